"""The batch reference evaluator used by the big property tests agrees with `logic.semantics`."""

from __future__ import annotations

from hypothesis import given, settings

from expressivity.logic.semantics import accepts
from tests.automata.conftest import ABC
from tests.automata.reference import all_words, formula_language
from tests.logic.strategies import TEMPORAL_OPERATORS, formulas


@settings(max_examples=120)
@given(formulas(ABC.symbols, TEMPORAL_OPERATORS, max_depth=3, max_height=4))
def test_batch_reference_matches_naive_semantics(formula) -> None:  # type: ignore[no-untyped-def]
    words = all_words(ABC, 4)
    batch = formula_language(formula, ABC, 4)
    assert batch.tolist() == [accepts(formula, w) for w in words]
