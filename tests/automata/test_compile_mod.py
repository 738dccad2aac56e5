"""Formulas with MOD predicates → DFA: exact against the semantics on all short words."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula, compile_with
from expressivity.automata.regex import compile_regex
from expressivity.errors import UnsupportedFragmentError
from expressivity.logic import syntax as s
from expressivity.logic import temporal as tl
from expressivity.logic.parser import parse
from expressivity.logic.semantics import accepts
from tests.automata.conftest import AB, ABC
from tests.automata.reference import all_words, dfa_language, formula_language
from tests.logic.strategies import FUTURE_OPERATORS, PAST_OPERATORS, TEMPORAL_OPERATORS, formulas

A = Alphabet(("a",))

WORKED = [  # (formula, alphabet, equivalent regex, states of the minimal complete DFA)
    ("H a & mod(2,1)", "a", "(a a)*", 2),
    ("H a & mod(2,1)", "ab", "(a a)*", 3),
    ("mod(2,1)", "ab", "((a|b)(a|b))*", 2),
    ("mod(2,1) & !P(mod(2,1) & b) & !P(mod(2,0) & a)", "ab", "(a b)*", 3),
    ("mod(2,1) & !P(mod(2,1) & !a) & !P(mod(2,0) & !b)", "abc", "(a b)*", 3),
    ("P(a & mod(3,0))", "ab", "((a|b)(a|b)(a|b))* (a|b)(a|b) a .*", 4),
    ("mod(3,1) <-> mod(1,0)", "a", "(a a a)*", 3),
    ("P(a & X(b & mod(2,1)))", "ab", ".* a b .*", 3),  # false: a at an even position too
]


@pytest.mark.parametrize(("text", "sigma", "regex", "states"), WORKED[:-1])
def test_worked_examples(text: str, sigma: str, regex: str, states: int) -> None:
    alphabet = Alphabet.parse(sigma)
    dfa = compile_formula(parse(text, alphabet), alphabet)
    assert dfa == compile_regex(regex, alphabet)
    assert dfa.n_states == states


def test_mod_at_the_eos_position_counts_the_length() -> None:
    for m in range(1, 6):
        for r in range(m):
            dfa = compile_formula(s.Mod(m, r), A)
            assert [dfa.accepts(("a",) * n) for n in range(12)] == [
                (n + 1) % m == r for n in range(12)
            ]
            assert dfa.n_states == m


def test_residues_of_a_multiple_modulus_compile_to_the_same_dfa() -> None:
    # n ≡ 1 (mod 2)  ⇔  n ≡ 1 or 3 (mod 4)
    left = compile_formula(parse("P(a & mod(2,1))"), AB)
    right = compile_formula(parse("P(a & (mod(4,1) | mod(4,3)))"), AB)
    assert left == right


def test_backward_construction_rejects_mod_and_auto_reads_forwards() -> None:
    f = parse("P(a & F(b & mod(2,0)))")
    with pytest.raises(UnsupportedFragmentError, match="MOD"):
        compile_with(f, AB, direction="backward")
    assert compile_with(f, AB, direction="forward") == compile_formula(f, AB)


_MOD_PAST = formulas(ABC.symbols, (*PAST_OPERATORS, "MOD"), max_depth=3, max_height=4)
_MOD_MIXED = formulas(ABC.symbols, (*TEMPORAL_OPERATORS, "MOD"), max_depth=3, max_height=4)
_MOD_FUTURE = formulas(ABC.symbols, (*FUTURE_OPERATORS, "MOD"), max_depth=2, max_height=4)
_P_MOD = formulas(ABC.symbols, ("P", "H", "MOD"), max_depth=3, max_height=5, max_mod=4)
MOD_FAMILIES = st.one_of(
    _MOD_PAST,
    _P_MOD,
    st.builds(tl.Past, _MOD_FUTURE),
    _MOD_MIXED,
    st.builds(tl.Historically, _MOD_MIXED),
)


@settings(max_examples=300)
@given(MOD_FAMILIES)
def test_dfa_agrees_with_the_semantics_on_all_words_up_to_6(formula: s.Formula) -> None:
    dfa = compile_formula(formula, ABC)
    assert np.array_equal(dfa_language(dfa, 6), formula_language(formula, ABC, 6))


@settings(max_examples=100)
@given(formulas(AB.symbols, (*TEMPORAL_OPERATORS, "MOD"), max_height=4, max_mod=5))
def test_small_alphabet_longer_words(formula: s.Formula) -> None:
    dfa = compile_formula(formula, AB)
    assert np.array_equal(dfa_language(dfa, 9), formula_language(formula, AB, 9))


@settings(max_examples=30)
@given(MOD_FAMILIES)
def test_dfa_agrees_with_naive_semantics(formula: s.Formula) -> None:
    dfa = compile_formula(formula, ABC)
    assert dfa_language(dfa, 5).tolist() == [accepts(formula, w) for w in all_words(ABC, 5)]


def test_a_huge_modulus_is_a_state_explosion_not_a_hang() -> None:
    from expressivity.errors import StateExplosionError

    with pytest.raises(StateExplosionError, match="mod\\(1000000000000"):
        compile_formula(parse("P(a & mod(1000000000000,3))"), AB, max_states=1_000)
    assert compile_formula(parse("mod(1000,999)"), A, max_states=2_000).n_states == 1_000
