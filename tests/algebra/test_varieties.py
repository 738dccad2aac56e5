"""Variety decisions: agreement with brute-force identity checks, and checked witnesses."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings

from expressivity.algebra.graphs import is_definite_by_pair_graph, is_partially_ordered
from expressivity.algebra.monoid import transition_semigroup
from expressivity.algebra.varieties import DECISIONS, IDENTITIES
from expressivity.algebra.witnesses import IdentityWitness, check_witness, word_row
from tests.algebra.helpers import AB, ABC, dfa, dfas, random_dfa, reference_membership


def _check_all(d):
    sg = transition_semigroup(d)
    for cls, decide in DECISIONS.items():
        verdict = decide(sg)
        assert (verdict is True) == reference_membership(sg, cls), cls
        if verdict is not True:
            assert isinstance(verdict, IdentityWitness) and not verdict
            assert verdict.variety == cls
            check_witness(sg.dfa, verdict)
            first, second = verdict.pumped(sg.dfa, 5)
            assert sg.dfa.accepts(first) == verdict.accepted[0]
            assert sg.dfa.accepts(second) == verdict.accepted[1]


@settings(max_examples=70)
@given(dfas(AB, max_states=4))
def test_decisions_match_brute_force_identities_two_letters(d):
    assume(transition_semigroup(d).size <= 14)
    _check_all(d)


@settings(max_examples=40)
@given(dfas(ABC, max_states=3))
def test_decisions_match_brute_force_identities_three_letters(d):
    assume(transition_semigroup(d).size <= 12)
    _check_all(d)


@pytest.mark.slow
def test_decisions_match_brute_force_many():
    rng = np.random.default_rng(7)
    for _ in range(300):
        d = random_dfa(rng, ABC if rng.random() < 0.5 else AB, max_states=5)
        if transition_semigroup(d).size <= 20:
            _check_all(d)


@settings(max_examples=150)
@given(dfas(ABC, max_states=5))
def test_automaton_tests_agree_with_algebra(d):
    sg = transition_semigroup(d)
    for algebraic, automaton in [
        (DECISIONS["r_trivial"], is_partially_ordered),
        (DECISIONS["definite"], is_definite_by_pair_graph),
    ]:
        a, b = algebraic(sg), automaton(d)
        assert (a is True) == (b is True)
        if b is not True:
            check_witness(sg.dfa, b)
            assert b.variety == a.variety


def test_witness_words_map_to_the_reported_elements():
    # (ab)*: R-trivial fails; the words must realize (xy)^ω x ≠ (xy)^ω
    d = dfa(AB, [[1, 2], [2, 0], [2, 2]], [0])
    w = DECISIONS["r_trivial"](d)
    assert w is not True
    x, y = dict(w.assignment)["x"], dict(w.assignment)["y"]
    xy = x + y
    assert w.lhs == xy * w.exponent + x and w.rhs == xy * w.exponent
    assert not np.array_equal(word_row(d, w.lhs), word_row(d, w.rhs))
    assert str(w.identity) == "(xy)^ω x = (xy)^ω"
    sg = transition_semigroup(d)
    assert w.elements == (sg.word(sg.element_of(w.lhs)), sg.word(sg.element_of(w.rhs)))
    u, v = w.context
    assert w.pair == (u + w.lhs + v, u + w.rhs + v)
    assert d.accepts(w.pair[0]) != d.accepts(w.pair[1])
    assert "fails for" in w.describe()


def test_check_witness_rejects_a_forged_witness():
    d = dfa(AB, [[1, 2], [2, 0], [2, 2]], [0])
    w = DECISIONS["r_trivial"](d)
    assert w is not True
    from dataclasses import replace

    with pytest.raises(AssertionError):
        check_witness(d, replace(w, rhs=w.lhs))
    with pytest.raises(AssertionError):
        check_witness(d, replace(w, accepted=(w.accepted[1], w.accepted[0])))


def test_semigroup_not_monoid_for_local_classes():
    # Σ*a over {a,b,c} is definite and locally testable; with the identity of M counted as an
    # idempotent of S, x·1 = 1 would fail for every x and nothing would be definite
    d = dfa(ABC, [[1, 0, 0], [1, 0, 0]], [1])
    sg = transition_semigroup(d)
    assert not sg.identity_in_semigroup
    for cls in ("definite", "generalized_definite", "locally_testable", "locally_r_trivial"):
        assert DECISIONS[cls](sg) is True
    assert not IDENTITIES["definite"].monoid
    assert DECISIONS["r_trivial"](sg) is not True


def test_identities_spelled_as_in_the_literature():
    assert str(IDENTITIES["aperiodic"]) == "x^ω = x^ω x"
    assert str(IDENTITIES["definite"]) == "x y^ω = y^ω"
    assert str(IDENTITIES["da"]) == "(xyz)^ω y (xyz)^ω = (xyz)^ω"
    assert str(IDENTITIES["locally_r_trivial"]) == (
        "(z^ω x z^ω y z^ω)^ω z^ω x z^ω = (z^ω x z^ω y z^ω)^ω"
    )
