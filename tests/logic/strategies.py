"""Hypothesis strategies for formulas of a chosen fragment, words, and formula-like text.

Import from any test (``tests`` is a package)::

    from tests.logic.strategies import formulas, words

    formulas(("a", "b", "c"), {"P"})                 # LTL[P] (with P only)
    formulas(("a", "b"), {"Y", "Y^k"}, max_depth=2)  # LTL[Y]
    formulas(("a", "b"), {"Y<=2"})                   # LTL[Y^{≤2}]: bounded past, k = 2 only
    formulas(("a", "b"), FRAGMENTS["LTL[P,Y]"])      # P, H, Y and Y^k
    formulas(("a", "b"), TEMPORAL_OPERATORS)         # every past and future operator

Every formula drawn by ``formulas(symbols, operators, max_depth=r, ...)`` mentions only
``symbols``, the given ``connectives`` and ``constants``, and temporal operators from
``operators``; its operator depth (`Formula.depth`) is at most ``max_depth`` and its syntax tree
has height at most ``max_height`` (so size < 2**(max_height+1)). Operator names:

- ``P``, ``O`` (same node), ``H``, ``S``, ``X``, ``WX``, ``F``, ``G``, ``U``;
- ``Y`` (k = 1); ``Y^k`` (k drawn from 1..max_k); ``Y^3`` (that k only);
- ``Y<=k`` (k drawn from 1..max_k); ``Y<=2`` (that k only; also spelled ``Y^{≤2}``);
- ``MOD``: not an operator but the atoms ``mod(m,r)`` (m drawn from 1..max_mod, 0 ≤ r < m),
  added to the leaves.

Hypothesis shrinks towards atoms, then towards the first operator listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from hypothesis import strategies as st

from expressivity.logic import syntax as ast
from expressivity.logic import temporal as tl
from expressivity.logic.syntax import Formula

PAST_OPERATORS: tuple[str, ...] = ("P", "H", "Y", "Y^k", "Y<=k", "S")
FUTURE_OPERATORS: tuple[str, ...] = ("X", "WX", "F", "G", "U")
TEMPORAL_OPERATORS: tuple[str, ...] = PAST_OPERATORS + FUTURE_OPERATORS
CONNECTIVES: tuple[str, ...] = ("!", "&", "|", "->", "<->")
CONSTANTS: tuple[str, ...] = ("true", "false", "start", "eos")

#: Operator sets whose formulas lie in the named fragment (`fragment(f)` is it or a smaller one).
FRAGMENTS: dict[str, tuple[str, ...]] = {
    "LTL[P]": ("P", "H"),
    "LTL[Y]": ("Y", "Y^k"),
    "LTL[Y^{≤2}]": ("Y<=2",),
    "LTL[Y^{≤3}]": ("Y<=3",),
    "LTL[P,Y]": ("P", "H", "Y", "Y^k"),
    "LTL[P,Y^{≤2}]": ("P", "H", "Y<=2"),
    "LTL[S]": PAST_OPERATORS,
    "LTL[P,F]": ("P", "H", "F", "G"),
    "LTL[S,U]": TEMPORAL_OPERATORS,
    "LTL[P,MOD]": ("P", "H", "MOD"),
    "LTL[P,Y,MOD]": ("P", "H", "Y", "Y^k", "MOD"),
}

_UNARY = {
    "P": tl.Past,
    "O": tl.Past,
    "H": tl.Historically,
    "X": tl.Next,
    "WX": tl.WeakNext,
    "F": tl.Eventually,
    "G": tl.Globally,
}
_BINARY_TEMPORAL = {"S": tl.Since, "U": tl.Until}
_CONNECTIVES = {"&": ast.And, "|": ast.Or, "->": ast.Implies, "<->": ast.Iff}
_CONSTANTS = {"true": ast.TRUE, "false": ast.FALSE, "start": ast.START, "eos": ast.EOS}
_INDEXED = re.compile(r"^Y(\^|<=|\^\{≤)(k|\d+)\}?$")


def formulas(
    symbols: Sequence[str] = ("a", "b", "c"),
    operators: Iterable[str] = TEMPORAL_OPERATORS,
    *,
    max_depth: int = 3,
    max_height: int = 5,
    connectives: Iterable[str] = CONNECTIVES,
    constants: Iterable[str] = CONSTANTS,
    max_k: int = 3,
    max_mod: int = 3,
) -> st.SearchStrategy[Formula]:
    """Formulas over ``symbols`` using only ``operators`` (see the module docstring)."""
    operators, connectives, constants = tuple(operators), tuple(connectives), tuple(constants)
    unknown = [o for o in connectives if o != "!" and o not in _CONNECTIVES]
    unknown += [c for c in constants if c not in _CONSTANTS]
    if unknown:
        raise ValueError(f"unknown connectives/constants: {unknown}")
    leaves = [st.sampled_from([ast.Symbol(s) for s in symbols])] if symbols else []
    if constants:
        leaves.append(st.sampled_from([_CONSTANTS[c] for c in constants]))
    if "MOD" in operators:
        leaves.append(mods(max_mod))
    if not leaves:
        raise ValueError("formulas() needs at least one symbol or constant")
    atom: st.SearchStrategy[Formula] = st.one_of(leaves)
    temporal = [_temporal(op, max_k) for op in operators if op != "MOD"]
    cache: dict[tuple[int, int], st.SearchStrategy[Formula]] = {}

    def build(depth: int, height: int) -> st.SearchStrategy[Formula]:
        if height == 0:
            return atom
        if (depth, height) not in cache:
            same = build(depth, height - 1)
            options = [atom]
            if "!" in connectives:
                options.append(st.builds(ast.Not, same))
            options += [st.builds(_CONNECTIVES[c], same, same) for c in connectives if c != "!"]
            if depth > 0:
                inner = build(depth - 1, height - 1)
                options += [make(inner) for make in temporal]
            cache[depth, height] = st.one_of(options)
        return cache[depth, height]

    return build(max_depth, max_height)


def mods(max_mod: int = 3) -> st.SearchStrategy[Formula]:
    """MOD atoms ``mod(m,r)`` with 1 ≤ m ≤ ``max_mod`` and 0 ≤ r < m."""
    moduli = st.integers(1, max_mod)
    return moduli.flatmap(lambda m: st.builds(ast.Mod, st.just(m), st.integers(0, m - 1)))


def _temporal(op: str, max_k: int):  # type: ignore[no-untyped-def]
    """A function from the operand strategy to the strategy of ``op`` applied to it."""
    if op in _UNARY:
        node = _UNARY[op]
        return lambda inner: st.builds(node, inner)
    if op in _BINARY_TEMPORAL:
        node2 = _BINARY_TEMPORAL[op]
        return lambda inner: st.builds(node2, inner, inner)
    if op == "Y":
        return lambda inner: st.builds(tl.Yesterday, inner, st.just(1))
    match = _INDEXED.match(op)
    if not match:
        raise ValueError(f"unknown operator {op!r}; see tests/logic/strategies.py")
    node3 = tl.Yesterday if match.group(1) == "^" else tl.BoundedPast
    ks = st.integers(1, max_k) if match.group(2) == "k" else st.just(int(match.group(2)))
    return lambda inner: st.builds(node3, inner, ks)


def words(symbols: Sequence[str] = ("a", "b", "c"), max_size: int = 8) -> st.SearchStrategy:
    """Words (tuples of symbol names) of length 0..max_size over ``symbols``."""
    return st.lists(st.sampled_from(tuple(symbols)), max_size=max_size).map(tuple)


#: Every token spelling of the grammar, plus near misses, for fuzzing the parser.
TOKENS: tuple[str, ...] = (
    "a", "b0", "c", "7", "12", "true", "false", "start", "eos", "⊤", "⊥", "trueish",
    "!", "¬", "&", "∧", "|", "∨", "->", "→", "<->", "↔", "(", ")", "P", "O", "H", "Y", "S",
    "X", "WX", "F", "G", "U", "^", "{", "}", "<=", "≤", "3", "0", "Y^2", "Y<=3", "Y^{≤2}",
    "Ya", "W", "=>", "~", "&&", "_x", "$", "\n", "\t", " ",
    "mod(", "mod", "mod(2,1)", "mod(0,0)", "mod(2,2)", ",",
)  # fmt: skip


def formula_texts(max_tokens: int = 12) -> st.SearchStrategy[str]:
    """Text glued from grammar tokens (often almost a formula): parses or raises a syntax error."""
    separators = st.sampled_from(["", " ", "  ", "\n"])
    pieces = st.lists(st.tuples(st.sampled_from(TOKENS), separators), max_size=max_tokens)
    return pieces.map(lambda ps: "".join(tok + sep for tok, sep in ps))
