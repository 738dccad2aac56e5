"""Operator sets of attention heads (docs/theory.md "Sparse attention patterns") and their types.

`Head` (the temporal operator one attention pattern denotes: "ψ at some key m ∈ K(n)") and
`Fragment` (the set of operators of a layout) live in `logic.operators` and are re-exported.
`position_types` is the reference definition of depth-r types (straight from the key sets,
no automaton), used by tests and to re-check same-type pairs; `stable_pair_depth` certifies
a pair that shares its type at *every* depth.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from expressivity.logic.operators import Fragment, Head, hybrid, local, past

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
