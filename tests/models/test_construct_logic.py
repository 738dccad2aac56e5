"""Boolean side of the construction: threshold forms and disjoint DNFs equal their formulas."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings

from expressivity.logic.syntax import And, Formula, Iff, Implies, Not, Or, Symbol
from expressivity.models.construct.logic import (
    MAX_WEIGHT,
    disjoint_cover,
    frontier_table,
    threshold_form,
)
from tests.logic.strategies import formulas

VARS = ("a", "b", "c", "d")
boolean = formulas(VARS, (), max_depth=0, max_height=5, constants=())


def _value(f: Formula, point: dict[str, bool]) -> bool:
    """``f`` with each symbol read as an independent Boolean variable."""
    if isinstance(f, Symbol):
        return point[f.name]
    a = [_value(c, point) for c in f.children]
    if isinstance(f, Not):
        return not a[0]
    if isinstance(f, And):
        return a[0] and a[1]
    if isinstance(f, Or):
        return a[0] or a[1]
    if isinstance(f, Implies):
        return not a[0] or a[1]
    assert isinstance(f, Iff)
    return a[0] == a[1]


@settings(max_examples=200)
@given(boolean)
def test_threshold_forms_equal_their_formula(formula: Formula) -> None:
    form = threshold_form(formula, False, lambda f: 0, {})
    weights = [w for _, w in form[0]]
    assert min(weights) >= 1 and form[1] >= 1 and sum(weights) <= MAX_WEIGHT
    for bits in itertools.product((False, True), repeat=len(VARS)):
        point = dict(zip(VARS, bits, strict=True))
        total = sum(w * (_value(g, point) != neg) for (g, neg), w in form[0])
        assert (total >= form[1]) == _value(formula, point), (formula, form, point)


@settings(max_examples=200)
@given(boolean)
def test_disjoint_covers_are_exact_and_exclusive(formula: Formula) -> None:
    index = {Symbol(v): i for i, v in enumerate(VARS)}
    table = np.broadcast_to(frontier_table(formula, index, len(VARS)), (2,) * len(VARS))
    terms = disjoint_cover(table, tuple(range(len(VARS))))
    for bits in itertools.product((0, 1), repeat=len(VARS)):
        hits = sum(all(bits[i] != neg for i, neg in term) for term in terms)
        assert hits == int(table[bits]), (formula, terms, bits)


def test_threshold_form_of_dyck_root_is_one_score() -> None:
    from expressivity.logic.parser import parse

    f = parse("start | (Y b & P(a & start) & !P(a & Y a) & !P(b & Y b))", "a,b")
    lits, theta = threshold_form(f, False, lambda g: 0, {})
    assert len(lits) == 5 and theta == 4  # [4·start + Yb + P(..) + ¬P(..) + ¬P(..) ≥ 4]
    assert dict(lits)[(parse("start", "a,b"), False)] == 4
