"""The formula nodes: `Formula.fold` against plain recursion, and the nodes' typed errors."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings

from expressivity.errors import ExpressivityError, FormulaError
from expressivity.logic.syntax import TRUE, And, Formula, Mod, Not, Symbol
from expressivity.logic.temporal import BoundedPast, Past, Yesterday
from tests.logic.strategies import formulas


def _depth(f: Formula) -> int:
    """The definition: temporal nesting, by recursion over the children."""
    inner = max((_depth(c) for c in f.children), default=0)
    return inner + 1 if f.temporal else inner


def _size(f: Formula) -> int:
    return 1 + sum(_size(c) for c in f.children)


@settings(max_examples=300, deadline=None)
@given(formulas(operators=("P", "Y", "Y^k", "Y<=k", "H", "S", "X", "F", "U", "MOD")))
def test_fold_gives_the_recursive_definitions(f: Formula) -> None:
    assert f.depth == _depth(f)
    assert f.size == _size(f)
    assert f.fold(lambda g, kids: (type(g), *kids)) == _shape(f)


def _shape(f: Formula) -> tuple[object, ...]:
    return (type(f), *(_shape(c) for c in f.children))


def test_fold_combines_each_distinct_subformula_once() -> None:
    a, also_a = Symbol("a"), Symbol("a")
    f = And(Past(a), And(Past(also_a), Yesterday(a, 2)))
    seen: list[Formula] = []

    def combine(g: Formula, kids: Sequence[int]) -> int:
        seen.append(g)
        return 1 + sum(kids)

    assert f.fold(combine) == f.size == 8
    assert seen.count(Symbol("a")) == 1 and seen.count(Past(a)) == 1
    assert len(seen) == len(set(seen)) == 5  # a, P a, Y^2 a, P a & Y^2 a, f
    # parameters tell nodes apart: Y a and Y^2 a are two nodes
    assert And(Yesterday(a), Yesterday(a, 2)).fold(lambda g, kids: 1 + sum(kids)) == 5


def test_fold_needs_no_recursion() -> None:
    f: Formula = Symbol("a")
    for _ in range(5_000):
        f = Not(Past(f))
    assert f.depth == 5_000 and f.size == 10_001


def _subformulas(f: Formula) -> list[Formula]:
    """The definition: the children's subformulas left to right, then the node."""
    return [g for c in f.children for g in _subformulas(c)] + [f]


@settings(max_examples=300, deadline=None)
@given(formulas(operators=("P", "Y", "Y^k", "Y<=k", "H", "S", "X", "F", "U", "MOD")))
def test_subformulas_are_the_recursive_post_order(f: Formula) -> None:
    got = list(f.subformulas())
    assert [id(g) for g in got] == [id(g) for g in _subformulas(f)]  # the same objects


def test_subformulas_need_no_recursion() -> None:
    f: Formula = Symbol("a")
    for i in range(5_000):
        f = Not(Past(f)) if i % 2 else And(f, Symbol("b"))
    kinds = [type(g) for g in f.subformulas()]
    assert len(kinds) == f.size and kinds[0] is Symbol and kinds[-1] is Not
    assert f.operators == {"!", "&", "P"} and f.symbols() == {"a", "b"}


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: Mod(0, 0), "modulus"),
        (lambda: Mod(2, 2), "residue"),
        (lambda: Yesterday(TRUE, 0), "Y\\^k needs k >= 1"),
        (lambda: BoundedPast(TRUE, 0), "needs k >= 1"),
    ],
)
def test_bad_nodes_raise_formula_error(build: object, match: str) -> None:
    with pytest.raises(FormulaError, match=match) as caught:
        build()  # type: ignore[operator]
    # one of the toolkit's errors, and still a ValueError for callers that catch that
    assert isinstance(caught.value, ExpressivityError) and isinstance(caught.value, ValueError)
