"""One Boolean evaluator (logic.boolean): bools and boolean arrays agree with each other."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.logic.boolean import boolean_value
from expressivity.logic.syntax import FALSE, TRUE, And, Formula, Iff, Implies, Not, Or, Symbol
from expressivity.logic.temporal import Past

LEAVES = [Symbol("a"), Symbol("b"), Past(Symbol("c")), TRUE, FALSE]


def _formulas() -> st.SearchStrategy[Formula]:
    return st.recursive(
        st.sampled_from(LEAVES),
        lambda inner: st.one_of(
            inner.map(Not),
            st.tuples(inner, inner).map(lambda p: And(*p)),
            st.tuples(inner, inner).map(lambda p: Or(*p)),
            st.tuples(inner, inner).map(lambda p: Implies(*p)),
            st.tuples(inner, inner).map(lambda p: Iff(*p)),
        ),
        max_leaves=12,
    )


def _reference(f: Formula, value: dict[Formula, bool]) -> bool:
    if f in (TRUE, FALSE):
        return f == TRUE
    if isinstance(f, Not):
        return not _reference(f.arg, value)
    if isinstance(f, And | Or | Implies | Iff):
        a, b = _reference(f.left, value), _reference(f.right, value)
        return {And: a and b, Or: a or b, Implies: (not a) or b, Iff: a == b}[type(f)]
    return value[f]


@settings(max_examples=300, deadline=None)
@given(_formulas())
def test_bools_and_truth_tables_agree_with_the_reference(f: Formula) -> None:
    variables = LEAVES[:3]
    index = {v: i for i, v in enumerate(variables)}

    def axis(g: Formula) -> np.ndarray:
        shape = [1, 1, 1]
        shape[index[g]] = 2
        return np.arange(2, dtype=bool).reshape(shape)

    table = np.broadcast_to(boolean_value(f, axis), (2, 2, 2))
    for bits in itertools.product((False, True), repeat=3):
        value = dict(zip(variables, bits, strict=True))
        expected = _reference(f, value)
        assert bool(boolean_value(f, value.__getitem__)) is expected
        assert bool(table[tuple(int(b) for b in bits)]) is expected


def test_stop_reads_a_connective_as_a_leaf() -> None:
    inner = And(Symbol("a"), Symbol("b"))
    f = Not(inner)
    assert bool(boolean_value(f, lambda g: g == inner, stop=lambda g: g == inner)) is False
