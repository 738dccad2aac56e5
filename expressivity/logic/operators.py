"""Operator sets: the temporal operator of one attention head (`Head`) and a fragment of them.

A `Head` is the operator ◇_K ψ one attention pattern denotes ("ψ at some key m ∈ K(n)"); a
`Fragment` is a set of heads — LTL[P] (global attention), LTL[Y^≤k] (k-local), LTL[P,Y^≤k]
(hybrid), and the sparse patterns' heads (docs/theory.md "Sparse attention patterns"). The
algebra decides definability in a fragment (`algebra.types`), the data builds pairs that a
fragment cannot separate (`data.pairs`): both use this one value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from expressivity.errors import ConfigError

__all__ = ["Fragment", "Head", "hybrid", "local", "past"]

_SPELLING = re.compile(r"^(?:LTL\[)?\s*(P)?\s*,?\s*(Y(?:\s*<=\s*(\d+))?)?\s*\]?$")


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

    @classmethod
    def parse(cls, text: str) -> Fragment:
        """Read ``"P"``, ``"Y"``, ``"Y<=2"``, ``"P,Y"``, ``"P,Y<=4"`` (optionally ``LTL[...]``)."""
        m = _SPELLING.match(text.strip())
        if not m or not (m.group(1) or m.group(2)):
            raise ConfigError(
                f"fragment {text!r} is not one of P, Y, Y<=k, P,Y, P,Y<=k (optionally LTL[...])"
            )
        window = 0 if not m.group(2) else int(m.group(3) or 1)
        return cls(past=bool(m.group(1)), window=window)

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
