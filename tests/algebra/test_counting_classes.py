"""Commutative, threshold-counting, alphabet-testable and LTT decisions against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings

from expressivity.algebra.commutative import (
    COUNTING_DECISIONS,
    is_alphabet_testable,
    is_commutative,
    is_threshold_counting,
)
from expressivity.algebra.local_testability import is_locally_threshold_testable
from expressivity.algebra.monoid import transition_semigroup
from expressivity.algebra.varieties import is_definite, is_locally_testable
from expressivity.algebra.witnesses import check_witness
from expressivity.automata.compile import compile_formula
from expressivity.automata.regex import compile_regex
from expressivity.logic.parser import parse
from tests.algebra.helpers import AB, ABC, dfas


def _brute_commutative(sg) -> bool:
    table = sg.cayley_table()
    return bool(np.array_equal(table, table.T))


def _brute_idempotent(sg) -> bool:
    table = sg.cayley_table()
    return all(table[i, i] == i for i in range(sg.size))


def _brute_aperiodic(sg) -> bool:
    table = sg.cayley_table()
    for x in range(sg.size):
        p = x
        for _ in range(sg.size):
            p = table[p, x]
        if table[p, x] != p:
            return False
    return True


def _brute_ltt(sg) -> bool:
    """The literal identity over every e, f in E(S) and x, y, z in S, by Cayley products."""
    table = sg.cayley_table()
    s = range(sg.semigroup_size)
    idem = [i for i in s if table[i, i] == i]

    def prod(*xs: int) -> int:
        acc = xs[0]
        for v in xs[1:]:
            acc = int(table[acc, v])
        return acc

    if not _brute_aperiodic(sg):
        return False
    for e, f, x, y, z in itertools.product(idem, idem, s, s, s):
        if prod(e, x, f, y, e, z, f) != prod(e, z, f, y, e, x, f):
            return False
    return True


BRUTE = {
    "commutative": _brute_commutative,
    "threshold_counting": lambda sg: _brute_commutative(sg) and _brute_aperiodic(sg),
    "alphabet_testable": lambda sg: _brute_commutative(sg) and _brute_idempotent(sg),
}


def _check(d) -> None:
    sg = transition_semigroup(d)
    for name, decide in [*COUNTING_DECISIONS.items(),
                         ("locally_threshold_testable", is_locally_threshold_testable)]:
        verdict = decide(sg)
        reference = _brute_ltt(sg) if name == "locally_threshold_testable" else BRUTE[name](sg)
        assert (verdict is True) == reference, name
        if verdict is not True:
            assert verdict.variety == name
            check_witness(sg.dfa, verdict)
            first, second = verdict.pumped(sg.dfa, 6)
            assert sg.dfa.accepts(first) != sg.dfa.accepts(second)


@settings(max_examples=80, deadline=None)
@given(dfas(AB, max_states=4))
def test_decisions_match_brute_force_two_letters(d):
    assume(transition_semigroup(d).size <= 12)
    _check(d)


@settings(max_examples=40, deadline=None)
@given(dfas(ABC, max_states=3))
def test_decisions_match_brute_force_three_letters(d):
    assume(transition_semigroup(d).size <= 10)
    _check(d)


@settings(max_examples=100, deadline=None)
@given(dfas(ABC, max_states=4))
def test_inclusions_between_the_classes(d):
    sg = transition_semigroup(d)
    assume(sg.size <= 200)
    ltt = is_locally_threshold_testable(sg) is True
    if is_alphabet_testable(sg) is True:
        assert is_threshold_counting(sg) is True
    if is_threshold_counting(sg) is True:
        assert is_commutative(sg) is True and ltt
    if is_locally_testable(sg) is True:
        assert ltt
    if is_definite(sg) is True:
        assert is_locally_testable(sg) is True


def _f(text: str, alphabet=ABC):
    return compile_formula(parse(text), alphabet)


@pytest.mark.parametrize(
    ("dfa", "expected"),
    [
        # (commutative, threshold counting, alphabet testable, LTT)
        (_f("P a"), (True, True, True, True)),  # Σ*aΣ*: a occurs
        (_f("P(a & P a)"), (True, True, False, True)),  # |w|_a ≥ 2
        (compile_regex("b*(ab*ab*)*", AB), (True, False, False, False)),  # PARITY of a
        (_f("P(a & start)"), (False, False, False, True)),  # aΣ*: LT
        (_f("P(b & Y a)"), (False, False, False, True)),  # Σ*abΣ*: LT
        (_f("Y a"), (False, False, False, True)),  # Σ*a: definite
        (compile_regex("b*ab*", AB), (True, True, False, True)),  # exactly one a: LTT, not LT
        (compile_regex("(ab)*", AB), (False, False, False, True)),  # LT
        (_f("P(b & P a)"), (False, False, False, False)),  # Σ*aΣ*bΣ* (PT-2) is not LTT
    ],
)
def test_known_languages(dfa, expected):
    got = (is_commutative(dfa) is True, is_threshold_counting(dfa) is True,
           is_alphabet_testable(dfa) is True, is_locally_threshold_testable(dfa) is True)
    assert got == expected


def test_exactly_one_a_is_ltt_but_not_lt():
    d = compile_regex("b*ab*", AB)
    lt = is_locally_testable(d)
    assert lt is not True  # b^K a b^K a b^K vs b^K a b^K: the same factors, different counts
    assert is_locally_threshold_testable(d) is True
