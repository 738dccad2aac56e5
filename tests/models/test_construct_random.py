"""Constructed transformers agree with the DFA on random LTL[P,Y] and LTL[P,Y^{≤2}] formulas."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula
from expressivity.extraction.agreement import check_agreement
from expressivity.logic.syntax import Formula
from expressivity.models.construct import construct
from tests.logic.strategies import FRAGMENTS, formulas

AB = Alphabet(("a", "b"))
ABC = Alphabet(("a", "b", "c"))


def _agrees(formula: Formula, sigma: Alphabet, layout: str | None = None) -> None:
    """Every word up to length 8 and 4 random words of lengths 9..500, in float32."""
    dfa = compile_formula(formula, sigma)
    cm = construct(formula, sigma, layout)
    assert cm.n_layers <= max(1, 2 * _unfolded_depth(formula))
    result = check_agreement(cm.model, dfa, up_to=8, n_random=4, max_length=500,
                             seed=hash(str(formula)) % 2**32)
    assert result.agrees, f"{formula}: disagrees on {result.first}\n{cm.summary()}"


def _unfolded_depth(f: Formula) -> int:
    """Operator depth with Y^k counted k times and start counted as ¬P⊤ (depth 1)."""
    from expressivity.logic.syntax import Start
    from expressivity.logic.temporal import Yesterday

    inner = max((_unfolded_depth(c) for c in f.children), default=0)
    if isinstance(f, Start):
        return 1
    if isinstance(f, Yesterday):
        return inner + f.k
    return inner + 1 if f.temporal else inner


# Fast representatives (default run) of the slow-tier property tests below.
@settings(max_examples=12)
@given(formulas(AB.symbols, FRAGMENTS["LTL[P,Y]"], max_depth=3, max_height=5))
def test_some_random_ltl_p_y_formulas_match_the_dfa(formula: Formula) -> None:
    _agrees(formula, AB)


@settings(max_examples=8)
@given(formulas(AB.symbols, FRAGMENTS["LTL[P,Y^{≤2}]"], max_depth=3, max_height=5))
def test_some_random_ltl_p_y2_formulas_match_the_dfa(formula: Formula) -> None:
    _agrees(formula, AB, layout="hybrid-2")


@pytest.mark.slow
@settings(max_examples=100)
@given(formulas(AB.symbols, FRAGMENTS["LTL[P,Y]"], max_depth=3, max_height=5))
def test_random_ltl_p_y_formulas_match_the_dfa(formula: Formula) -> None:
    _agrees(formula, AB)


@pytest.mark.slow
@settings(max_examples=100)
@given(formulas(AB.symbols, FRAGMENTS["LTL[P,Y^{≤2}]"], max_depth=3, max_height=5))
def test_random_ltl_p_y2_formulas_match_the_dfa(formula: Formula) -> None:
    _agrees(formula, AB, layout="hybrid-2")


@pytest.mark.slow
@settings(max_examples=25)
@given(formulas(ABC.symbols, ("P", "H", "Y", "Y^k", "Y<=k"), max_depth=2, max_height=4))
def test_random_formulas_over_three_letters_match_the_dfa(formula: Formula) -> None:
    _agrees(formula, ABC)


@pytest.mark.slow
@settings(max_examples=300)
@given(formulas(ABC.symbols, ("P", "H", "Y", "Y^k", "Y<=k"), max_depth=3, max_height=6))
def test_many_deeper_random_formulas_match_the_dfa(formula: Formula) -> None:
    _agrees(formula, ABC)
