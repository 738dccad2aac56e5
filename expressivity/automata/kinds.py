"""The kinds of circuit nodes (`Kind`), and the formula node type each kind stands for.

A circuit node is a ``(kind, a, b)`` triple (`Node`; see `automata.circuit`): ``a`` and ``b``
are operand nodes, a k (``Y^k``, ``Y^{≤k}``), a letter mask or a modulus and residue. The
kinds are also module names (``AND``, ``PREV``, ...) for the compiler's inner loops. `KIND_OF`,
`SPEC_OF` and `children` read the formula node types of `logic.syntax` as circuit nodes (their
kind, arity and operands), as `automata.builder.CircuitBuilder` translates them.
"""

from __future__ import annotations

from enum import StrEnum

from expressivity.logic import syntax as s
from expressivity.logic import temporal as tl

__all__ = [
    "BINARY_KINDS",
    "FUTURE_AT_EOS",
    "KIND_OF",
    "LEAF_KINDS",
    "SPEC_OF",
    "Kind",
    "Node",
    "children",
]


class Kind(StrEnum):
    """The kind of a circuit node (and of a register: a node's kind, or `SHIFT`)."""

    LETTERS = "letters"  # ("letters", mask, -1): the set of Σ ∪ {EOS} where it holds
    MOD = "mod"  # ("mod", m, r): the position is ≡ r (mod m)
    SYM = "sym"  # the formula atoms, folded into letter sets as they are interned
    TRUE = "true"
    FALSE = "false"
    EOS = "eos"
    START = "start"
    NOT = "not"
    AND = "and"
    OR = "or"
    IFF = "iff"
    IMPLIES = "implies"
    ONCE = "once"  # P
    HIST = "hist"  # H
    SINCE = "since"  # S
    PREV = "prev"  # Y^k (b = k)
    BOUNDED = "bounded"  # Y^{≤k} (b = k)
    NEXT = "next"  # X
    WNEXT = "wnext"  # WX
    EV = "ev"  # F
    GLOB = "glob"  # G
    UNTIL = "until"  # U
    SHIFT = "shift"  # a register of a shift register (not a node kind)


# The kinds as module names: `Kind.X` is a class-attribute lookup, several times slower than a
# global, and the compiler's inner loops compare kinds at every node.
(LETTERS, MOD, SYM, TRUE, FALSE, EOS, START, NOT, AND, OR, IFF, IMPLIES, ONCE, HIST, SINCE, PREV,
 BOUNDED, NEXT, WNEXT, EV, GLOB, UNTIL, SHIFT) = Kind

Node = tuple[Kind, int, int]

#: Value of each future operator at the EOS position (where there is no next position).
FUTURE_AT_EOS = {
    NEXT: False, WNEXT: True, EV: False, GLOB: True, UNTIL: False,
}

_UNARY: dict[type, Kind] = {
    s.Not: NOT,
    tl.Past: ONCE,
    tl.Historically: HIST,
    tl.Next: NEXT,
    tl.WeakNext: WNEXT,
    tl.Eventually: EV,
    tl.Globally: GLOB,
}
_BINARY: dict[type, Kind] = {
    s.And: AND,
    s.Or: OR,
    s.Iff: IFF,
    tl.Since: SINCE,
    tl.Until: UNTIL,
}
KIND_OF: dict[type, Kind] = {**_UNARY, **_BINARY}
#: Node kinds with two operand nodes (the others have one, or none: `LEAF_KINDS`).
BINARY_KINDS = frozenset(_BINARY.values())
#: Node kinds without operand nodes: letter sets ``("letters", mask, -1)`` and position
#: predicates ``("mod", m, r)`` (n ≡ r mod m, m ≥ 2; a register cycling through m phases).
LEAF_KINDS = frozenset({LETTERS, MOD})
#: Exactly these node types (not subclasses): (arity, kind) for the fast path of
#: `CircuitBuilder.formula`.
SPEC_OF: dict[type, tuple[int, Kind]] = {
    **{t: (1, k) for t, k in _UNARY.items()},
    tl.Yesterday: (1, PREV),
    tl.BoundedPast: (1, BOUNDED),
    **{t: (2, k) for t, k in _BINARY.items()},
    s.Implies: (2, IMPLIES),
    s.Symbol: (0, SYM),
    s.Top: (0, TRUE),
    s.Bottom: (0, FALSE),
    s.Start: (0, START),
    s.Eos: (0, EOS),
    s.Mod: (0, MOD),
}


def children(f: s.Formula) -> tuple[s.Formula, ...]:
    """The operand formulas of ``f``, a node type or a subclass of one (none for a leaf)."""
    if isinstance(f, (s.Not, tl.Past, tl.Yesterday, tl.BoundedPast, tl.Historically)):
        return (f.arg,)
    if isinstance(f, (tl.Next, tl.WeakNext, tl.Eventually, tl.Globally)):
        return (f.arg,)
    if isinstance(f, (s.And, s.Or, s.Implies, s.Iff, tl.Since, tl.Until)):
        return (f.left, f.right)
    return ()

