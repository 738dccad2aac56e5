"""The transition semigroup: enumeration, representative words, products, powers, Green."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from expressivity.algebra.monoid import (
    compose,
    index_and_period,
    omega_exponent,
    transition_semigroup,
)
from expressivity.alphabet import Alphabet
from expressivity.errors import SemigroupTooLargeError
from tests.algebra.helpers import AB, ABC, brute_force_rows, dfa, dfas


@settings(max_examples=60)
@given(dfas(AB, max_states=4))
def test_elements_are_exactly_the_transformations_of_words(d):
    sg = transition_semigroup(d)
    # every element of S is the image of a word of length <= |S|
    expected = brute_force_rows(d, min(sg.semigroup_size, 6))
    got = {sg.elements[i].astype(np.int64).tobytes() for i in range(sg.semigroup_size)}
    assert expected <= got
    if sg.semigroup_size <= 6:
        assert expected == got
    assert len(got) == sg.semigroup_size  # no duplicates


@settings(max_examples=60)
@given(dfas(ABC, max_states=4))
def test_words_are_shortlex_least_representatives(d):
    sg = transition_semigroup(d)
    seen: dict[bytes, tuple[str, ...]] = {}
    for length in range(0, 5):
        for word in itertools.product(d.alphabet.symbols, repeat=length):
            key = sg.row_of_word(word).astype(np.int64).tobytes()
            if length and key not in seen:
                seen[key] = word  # shortlex order: the first word met is the least one
    for i in range(sg.semigroup_size):
        w = sg.word(i)
        assert w, "elements of S have non-empty words"
        assert np.array_equal(sg.row_of_word(w), sg.elements[i])
        key = sg.elements[i].astype(np.int64).tobytes()
        if key in seen:
            assert seen[key] == w
    assert sg.element_of(()) == sg.identity


@settings(max_examples=40)
@given(dfas(AB, max_states=4))
def test_cayley_tables_products_and_powers(d):
    sg = transition_semigroup(d)
    m, k = sg.size, d.n_symbols
    letters = [sg.element_of((s,)) for s in d.alphabet.symbols]
    for i in range(m):
        for a in range(k):
            assert sg.right[i, a] == sg.product(i, letters[a])
            assert sg.left[i, a] == sg.product(letters[a], i)
    table = sg.cayley_table()
    for i, j in itertools.product(range(m), repeat=2):
        row = compose(sg.elements[i][None], sg.elements[j][None])[0]
        assert np.array_equal(sg.elements[table[i, j]], row)
    for i in range(m):
        e = sg.omega[i]
        assert table[e, e] == e, "x^ω is idempotent"
        index, period = index_and_period(sg.elements[i])
        powers = [i]
        for _ in range(index + period):
            powers.append(int(table[powers[-1], i]))  # powers[j] = x^(j+1)
        assert powers[index - 1] == powers[index + period - 1]  # x^index = x^(index+period)
        assert len(set(powers[: index + period - 1])) == index + period - 1  # and least so
        k = omega_exponent(sg.elements[i])
        assert k % period == 0 and index <= k < index + period and powers[k - 1] == e
        assert sg.idempotent[i] == (table[i, i] == i)
    assert table[sg.identity].tolist() == list(range(m))


def test_identity_is_adjoined_only_when_no_word_acts_as_it():
    # parity: the word bb acts as the identity, so S = M
    parity = dfa(AB, [[0, 1], [1, 0]], [0])
    sg = transition_semigroup(parity)
    assert sg.identity_in_semigroup and sg.size == sg.semigroup_size == 2
    assert sg.word(sg.identity) == ("a",)
    # Σ*a: no non-empty word is the identity, so M = S ∪ {1}
    suffix = dfa(ABC, [[1, 0, 0], [1, 0, 0]], [1])
    sg = transition_semigroup(suffix)
    assert not sg.identity_in_semigroup and sg.size == sg.semigroup_size + 1 == 3
    assert sg.word(sg.identity) == ()


def test_size_bound_raises():
    # the full transformation monoid T_4 (256 elements) from a cycle, a swap and a merge
    sigma = Alphabet(("a", "b", "c"))
    d = dfa(sigma, [[1, 1, 1], [2, 0, 1], [3, 2, 2], [0, 3, 3]], [0])
    assert transition_semigroup(d).semigroup_size == 256
    with pytest.raises(SemigroupTooLargeError, match="more than 100"):
        transition_semigroup(d, max_size=100)


def test_byte_keys_for_many_states():
    # a 17-state cycle with a reset: rows no longer fit one int64 key
    n = 17
    table = [[(q + 1) % n, 0] for q in range(n)]
    d = dfa(AB, table, [0])
    sg = transition_semigroup(d)
    assert sg.semigroup_size == n + n  # the n rotations and the n constant maps
    assert sg.index_of(sg.elements[5:9]).tolist() == [5, 6, 7, 8]


def test_green_relations_match_principal_ideals():
    for d in [
        dfa(AB, [[1, 2], [2, 0], [2, 2]], [0]),  # (ab)*: the Brandt monoid B2
        dfa(ABC, [[1, 0, 0], [1, 2, 0], [2, 2, 2]], [2]),  # Σ*abΣ*
        dfa(AB, [[0, 1], [1, 0]], [0]),  # parity
    ]:
        sg = transition_semigroup(d)
        table = sg.cayley_table()
        right = [frozenset(table[i].tolist()) for i in range(sg.size)]
        left = [frozenset(table[:, i].tolist()) for i in range(sg.size)]
        two = [frozenset(table[table[:, i]].ravel().tolist()) for i in range(sg.size)]
        g = sg.green
        for i, j in itertools.product(range(sg.size), repeat=2):
            assert (g.rclass[i] == g.rclass[j]) == (right[i] == right[j])
            assert (g.lclass[i] == g.lclass[j]) == (left[i] == left[j])
            assert (g.jclass[i] == g.jclass[j]) == (two[i] == two[j])
            assert (g.hclass[i] == g.hclass[j]) == (right[i] == right[j] and left[i] == left[j])
        for i, j in itertools.product(range(sg.size), repeat=2):
            if g.rclass[i] == g.rclass[j]:
                assert sg.element_of(sg.word(i) + g.right_path(i, j)) == j
            if g.lclass[i] == g.lclass[j]:
                assert sg.element_of(g.left_path(i, j) + sg.word(i)) == j
