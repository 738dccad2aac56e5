"""Exact counting and enumeration of accepted words against brute force over all short words."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

from expressivity.automata.counting import (
    codes_of_length,
    completion_table,
    count_table,
    count_words,
    density,
    live_table,
    log_count_table,
    log_density,
    words_of_length,
)
from expressivity.automata.dfa import DFA
from expressivity.errors import SamplingError
from tests.automata.conftest import ABC, dfas
from tests.automata.reference import all_codes

LEN = 6


def last_a() -> DFA:
    return DFA(ABC, [[1, 0, 0], [1, 0, 0]], [False, True])


@settings(max_examples=60)
@given(dfas(ABC, max_states=5))
def test_counts_and_enumeration_match_brute_force(dfa: DFA) -> None:
    table = count_table(dfa, LEN)
    live = live_table(dfa, LEN)
    for n in range(LEN + 1):
        words = all_codes(3, n)
        members = words[dfa.accepts_codes(words)]
        assert table[n] == count_words(dfa, n) == members.shape[0]
        assert live[n, dfa.initial] == (members.shape[0] > 0)
        assert np.array_equal(codes_of_length(dfa, n), members)  # lexicographic, like all_codes
        listed = [dfa.alphabet.encode(w).tolist() for w in words_of_length(dfa, n)]
        assert listed == members.tolist()
        assert density(dfa, n) == float(Fraction(members.shape[0], 3**n))


@settings(max_examples=30)
@given(dfas(ABC, max_states=6))
def test_completion_table_counts_from_every_state(dfa: DFA) -> None:
    table = completion_table(dfa, 4)
    for q in range(dfa.n_states):
        for n in range(5):
            words = all_codes(3, n)
            finals = np.array([dfa.run(dfa.alphabet.decode(w), q) for w in words], dtype=np.int64)
            assert table[n, q] == int(dfa.accepting[finals].sum())


def test_exact_big_integers_beyond_int64() -> None:
    dfa = last_a()
    counts = count_table(dfa, 1000)
    assert all(isinstance(c, int) for c in counts)
    assert counts[0] == 0 and counts[1] == 1
    assert counts[1000] == 3**999  # Σ*a: the last symbol is fixed
    assert counts[45] == 3**44  # just past the int64 switchover for |Σ| = 3
    assert density(dfa, 1000) == pytest.approx(1 / 3)


def test_log_counts_agree_with_exact_counts() -> None:
    dfa = DFA(ABC, [[1, 0, 2], [1, 0, 0], [2, 2, 2]], [False, True, False])  # no c, ends in a
    exact = count_table(dfa, 1200)
    logs = log_count_table(dfa, 1200)
    assert logs[0] == -math.inf
    for n in (1, 2, 40, 500, 1200):
        assert logs[n] == pytest.approx(math.log(exact[n]), rel=1e-12)
    assert log_density(dfa, 1200) == pytest.approx(math.log(exact[1200]) - 1200 * math.log(3))


def test_log_counts_scale_to_long_lengths() -> None:
    logs = log_count_table(last_a(), 20_000)
    assert logs[20_000] == pytest.approx(19_999 * math.log(3), rel=1e-12)


def test_empty_lengths_and_bad_requests() -> None:
    dfa = last_a()
    assert list(words_of_length(dfa, 0)) == []
    assert codes_of_length(dfa, 0).shape == (0, 0)
    assert list(words_of_length(dfa, 1)) == [("a",)]
    with pytest.raises(SamplingError, match="non-negative"):
        count_words(dfa, -1)
    with pytest.raises(SamplingError, match="enumeration limit"):
        codes_of_length(dfa, 12, limit=1000)


def test_words_of_length_is_lazy() -> None:
    it = words_of_length(last_a(), 200)  # 3^199 words: only the first few are produced
    assert next(it) == ("a",) * 200
    assert next(it) == ("a",) * 198 + ("b", "a")
