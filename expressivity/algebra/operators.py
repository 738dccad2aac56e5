"""Operator sets of attention heads (docs/theory.md "Sparse attention patterns") and their types.

A `Head` is the temporal operator one attention pattern denotes: "ψ at some key m ∈ K(n)";
a `Fragment` is the set of operators of a layout. `position_types` is the reference definition
of depth-r types (straight from the key sets, no automaton), used by tests and to re-check
same-type pairs; `stable_pair_depth` certifies a pair that shares its type at *every* depth.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from expressivity.errors import ConfigError

__all__ = [
    "Fragment",
    "Head",
    "eos_key",
    "eos_type",
    "hybrid",
    "local",
    "past",
    "position_types",
    "stable_pair_depth",
]


@dataclass(frozen=True, order=True)
class Head:
    """One head's operator ◇_K ψ = "ψ holds at some key m ∈ K(n)". K(n) is the union of: every
    m < n (``past``); m = n − o for o in ``offsets``; the earlier m of n's block of b token
    indices for b in ``blocks``; always restricted to m ≥ max(1, ``skip``), and empty on the
    global-token rows n < ``skip``. ``flag_only``: the head reads only whether K(n) is empty."""

    past: bool = False
    offsets: tuple[int, ...] = ()
    blocks: tuple[int, ...] = ()
    skip: int = 0
    flag_only: bool = False

    @property
    def name(self) -> str:
        """``P``, ``Y``, ``Y<=3``, ``Y{2,4}``, ``B4``, unions joined by ``|``; ``/g`` skips."""
        parts = ["P"] if self.past else []
        offs = self.offsets
        if offs == tuple(range(1, len(offs) + 1)) and offs:
            parts.append("Y" if len(offs) == 1 else f"Y<={len(offs)}")
        elif offs:
            parts.append("Y{" + ",".join(map(str, offs)) + "}")
        parts += [f"B{b}" for b in self.blocks]
        text = "|".join(parts) or "∅"
        text = f"({text})⊤" if self.flag_only else text
        return text + (f"/{self.skip}" if self.skip > 1 else "")

    @property
    def reach(self) -> int:
        """The largest key offset n − m outside ``past``."""
        return max([*self.offsets, *(b - 1 for b in self.blocks), 0])

    def keys(self, n: int) -> list[int]:
        """K(n) for a position n ≥ 1 of a word (reference definition, used by tests)."""
        low = max(1, self.skip)
        if n < self.skip:
            return []
        out = set(range(low, n)) if self.past else set()
        out.update(n - o for o in self.offsets if n - o >= low)
        for b in self.blocks:
            out.update(range(max(low, b * (n // b)), n))
        return sorted(out)


@dataclass(frozen=True)
class Fragment:
    """An operator set: ``past`` adds P, ``window`` = k adds Y^≤k (0: none; Y^≤1 = Y), ``heads``
    adds further heads (`Head`), ``summary`` adds E (the whole-word set of types, read from the
    global tokens) and ``hubs`` = g marks positions 1..g−1 as global tokens. ``exact`` is False
    for the seed-free under-approximation of random keys: only its "yes" answers are sound."""

    past: bool = False
    window: int = 0
    heads: tuple[Head, ...] = ()
    summary: bool = False
    hubs: int = 0
    exact: bool = True
    label: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.window < 0 or not (self.past or self.window or self.heads or self.summary):
            raise ConfigError(
                f"a fragment needs P, Y^<=k with k >= 1, a head or E, got past={self.past}, "
                f"window={self.window}"
            )

    @property
    def operators(self) -> tuple[Head, ...]:
        """Every head, legacy P / Y^≤k first, without duplicates."""
        legacy = ([Head(past=True)] if self.past else []) + (
            [Head(offsets=tuple(range(1, self.window + 1)))] if self.window else []
        )
        return tuple(dict.fromkeys([*legacy, *self.heads]))

    @property
    def name(self) -> str:
        """``P``, ``Y``, ``Y<=2``, ``P,Y<=4``, ``Y{2,4}``, ``Y<=2,E`` ..."""
        parts = [h.name for h in self.operators]
        parts += ["E"] if self.summary else []
        parts += [f"hub<{self.hubs}"] if self.hubs > 1 else []
        return ",".join(parts)

    def __str__(self) -> str:
        return self.label or f"LTL[{self.name}]"

    @property
    def window_only(self) -> bool:
        """Only fixed-offset heads (and P): the periodic-family argument applies."""
        return all(not h.blocks for h in self.operators)


def past() -> Fragment:
    """{P}: LTL[P], global attention."""
    return Fragment(past=True)


def local(k: int) -> Fragment:
    """{Y^≤k}: k-local attention (k = 1 is LTL[Y])."""
    return Fragment(past=False, window=k)


def hybrid(k: int) -> Fragment:
    """{P, Y^≤k}: global plus k-local attention."""
    return Fragment(past=True, window=k)


def position_types(word: Sequence[str], fragment: Fragment, depth: int) -> list[Hashable]:
    """Reference: the depth-``depth`` types of positions 1..N+1 (EOS last) of ``word``, as
    nested values, computed from the definition: depth 0 is (letter, each head's empty-row
    flag, global token or not); depth j adds each head's set of depth-(j−1) types at K(n)."""
    letters: list[Hashable] = [*word, "<eos>"]
    heads = fragment.operators
    keys = [[h.keys(n) for h in heads] for n in range(1, len(letters) + 1)]
    types: list[Hashable] = [
        (s, tuple(not k for k in keys[i]), i + 1 < fragment.hubs) for i, s in enumerate(letters)
    ]
    base = list(types)
    for _ in range(depth):
        nxt: list[Hashable] = []
        for i in range(len(letters)):
            reads = tuple(
                bool(k) if h.flag_only else frozenset(types[m - 1] for m in k)
                for h, k in zip(heads, keys[i], strict=True)
            )
            nxt.append((base[i], reads))
        types = nxt
    return types


def eos_key(word: Sequence[str], fragment: Fragment, depth: int) -> Hashable:
    """What a depth-``depth`` formula can read at EOS: its type and, with E, the set of all
    types of the word (global tokens summarize the whole string)."""
    types = position_types(word, fragment, depth)
    return (types[-1], frozenset(types)) if fragment.summary else types[-1]


def eos_type(word: Sequence[str], fragment: Fragment, depth: int) -> Hashable:
    """Reference: the depth-``depth`` type of the EOS position of ``word`` (see `eos_key`)."""
    return eos_key(word, fragment, depth)


def stable_pair_depth(
    u: Sequence[str], v: Sequence[str], fragment: Fragment, max_depth: int = 32
) -> int | None:
    """The least depth R at which u and v share their EOS key and the type partition of all
    their positions stops refining, or None up to ``max_depth``.

    Proof that they then share their EOS key at every depth: the positions of u and v are
    closed under keys, and depth-(j+1) types are one function of depth-0 types and the sets
    of depth-j types at the keys; if depth R+1 induces the same partition as depth R, so does
    every later depth, so no formula of any depth separates u from v.
    """
    prev: list[int] | None = None
    for depth in range(max_depth + 1):
        tu, tv = position_types(u, fragment, depth), position_types(v, fragment, depth)
        ids: dict[Hashable, int] = {}
        part = [ids.setdefault(t, len(ids)) for t in [*tu, *tv]]
        if prev is not None and len(set(part)) == len(set(prev)):
            key_u = (tu[-1], frozenset(tu)) if fragment.summary else tu[-1]
            key_v = (tv[-1], frozenset(tv)) if fragment.summary else tv[-1]
            return depth - 1 if key_u == key_v else None
        prev = part
    return None
