"""The printer: canonical ASCII and Unicode text that re-parses to the same AST, minimal parens."""

from __future__ import annotations

import contextlib
import re
import sys
from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.errors import FormulaSyntaxError
from expressivity.logic import parse, to_text, to_unicode
from expressivity.logic.syntax import And, Formula, Iff, Implies, Not, Or, Symbol
from expressivity.logic.temporal import BoundedPast, Past, Since, Until, Yesterday
from tests.logic.strategies import TEMPORAL_OPERATORS, formulas

a, b, c = Symbol("a"), Symbol("b"), Symbol("c")


@pytest.mark.parametrize(
    ("formula", "text"),
    [
        (Past(And(b, Yesterday(a))), "P(b & Y a)"),
        (Yesterday(a, 3), "Y^3 a"),
        (BoundedPast(Or(a, b), 2), "Y<=2 (a | b)"),
        (Not(Past(a)), "!P a"),
        (Not(And(a, b)), "!(a & b)"),
        (And(And(a, b), c), "a & b & c"),
        (And(a, And(b, c)), "a & (b & c)"),
        (Implies(a, Implies(b, c)), "a -> b -> c"),
        (Implies(Implies(a, b), c), "(a -> b) -> c"),
        (Iff(Iff(a, b), c), "a <-> b <-> c"),
        (Iff(a, Iff(b, c)), "a <-> (b <-> c)"),
        (Since(a, Until(b, c)), "a S b U c"),
        (Until(Since(a, b), c), "(a S b) U c"),
        (Since(Past(a), b), "P a S b"),
        (Past(Since(a, b)), "P(a S b)"),
        (Or(And(a, b), Since(a, c)), "a & b | a S c"),
        (Yesterday(Symbol("0"), 2), "Y^2 0"),
    ],
)
def test_canonical_ascii(formula: Formula, text: str) -> None:
    assert to_text(formula) == text
    assert str(formula) == text
    assert parse(text) == formula


def test_unicode_display() -> None:
    f = parse("!P true | (Y b & P(a & !P true)) -> false <-> Y<=3 a")
    assert to_unicode(f) == "¬P⊤ ∨ Y b ∧ P(a ∧ ¬P⊤) → ⊥ ↔ Y^{≤3} a"
    assert parse(to_unicode(f)) == f


@settings(max_examples=200)
@given(
    formulas(
        ("a", "b0", "c", "7"), (*TEMPORAL_OPERATORS, "O", "Y^5", "MOD"), max_height=6, max_k=12
    )
)
def test_round_trip(formula: Formula) -> None:
    assert parse(to_text(formula)) == formula
    assert parse(to_unicode(formula)) == formula


def _paren_pairs(text: str) -> list[tuple[int, int]]:
    stack, pairs = [], []
    for i, ch in enumerate(text):
        if ch == "(":
            stack.append(i)
        elif ch == ")":
            pairs.append((stack.pop(), i))
    return pairs


@settings(max_examples=150)
@given(formulas(("a", "b"), (*TEMPORAL_OPERATORS, "MOD"), max_height=5))
def test_parentheses_are_minimal(formula: Formula) -> None:
    """Dropping any pair of parentheses changes the AST (or breaks the syntax)."""
    text = to_text(formula)
    for i, j in _paren_pairs(text):
        dropped = text[:i] + " " + text[i + 1 : j] + " " + text[j + 1 :]
        with contextlib.suppress(FormulaSyntaxError):
            assert parse(dropped) != formula, (text, dropped)


def test_canonical_text_is_ascii() -> None:
    f = parse("¬P⊤ ∨ Y^{≤2} a ↔ ⊥ → a")
    assert re.fullmatch(r"[\x20-\x7e]*", to_text(f))


#: Node types a deep spine is built of: unary ones wrap the spine, binary ones put a small
#: formula beside it (left or right, so both associativities and every precedence nest deep).
_UNARY_NODES = (Not, Past, Yesterday, BoundedPast)
_BINARY_NODES = (And, Or, Implies, Iff, Since, Until)


def _spine_step() -> st.SearchStrategy[tuple[object, Formula, bool]]:
    node = st.sampled_from(_UNARY_NODES + _BINARY_NODES)
    small = formulas(("a", "b"), (*TEMPORAL_OPERATORS, "MOD"), max_height=2)
    return st.tuples(node, small, st.booleans())


def _deep(steps: list[tuple[object, Formula, bool]], depth: int) -> Formula:
    """The spine of ``steps`` repeated until it nests ``depth`` nodes deep."""
    f: Formula = Symbol("a")
    for i in range(depth):
        node, beside, on_the_left = steps[i % len(steps)]
        if node in (Yesterday, BoundedPast):
            f = node(f, 1 + i % 3)  # type: ignore[operator]
        elif node in _UNARY_NODES:
            f = node(f)  # type: ignore[operator]
        else:
            f = node(beside, f) if on_the_left else node(f, beside)  # type: ignore[operator]
    return f


def _structure(f: Formula) -> list[tuple[object, ...]]:
    """The post-order list of (node type, parameters): equal iff the trees are equal (each
    type has a fixed arity), compared without recursion (dataclass `==` recurses)."""
    return [
        (type(g), *(getattr(g, x.name) for x in fields(g)
                    if not isinstance(getattr(g, x.name), Formula)))
        for g in f.subformulas()
    ]


@settings(max_examples=10, deadline=None)
@given(st.lists(_spine_step(), min_size=1, max_size=12))
def test_deep_formulas_print_and_parse_back(steps: list[tuple[object, Formula, bool]]) -> None:
    """Printing needs no recursion: formulas nested beyond Python's recursion limit print (ASCII
    and Unicode) and parse back to the same tree."""
    formula = _deep(steps, sys.getrecursionlimit() + 200)
    for text in (to_text(formula), to_unicode(formula)):
        assert _structure(parse(text)) == _structure(formula)
    assert str(formula) == to_text(formula)
