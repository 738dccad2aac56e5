"""DFA operations against brute force on all short words: minimization, products, queries."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.automata import counting, ops, tables
from expressivity.automata.dfa import DFA
from expressivity.automata.nfa import NFA, reverse
from expressivity.errors import AlphabetError, StateExplosionError
from tests.automata.conftest import AB, ABC, dfas, permuted
from tests.automata.reference import all_words, dfa_language, word_lengths

LEN = 7  # random DFAs have ≤ 7 states: words up to 7 separate any two of their languages


def nerode_classes(dfa: DFA) -> int:
    """Number of reachable states with distinct futures (brute force over short suffixes)."""
    reachable = {dfa.run(w) for w in all_words(dfa.alphabet, dfa.n_states)}
    suffixes = all_words(dfa.alphabet, dfa.n_states)
    return len({tuple(bool(dfa.accepting[dfa.run(w, q)]) for w in suffixes) for q in reachable})


@settings(max_examples=200)
@given(dfas(AB), st.integers(0, 2**32 - 1))
def test_minimize_is_exact_minimal_canonical_and_idempotent(dfa: DFA, seed: int) -> None:
    m = ops.minimize(dfa)
    assert np.array_equal(dfa_language(m, LEN), dfa_language(dfa, LEN))
    assert m.n_states == nerode_classes(dfa)
    assert ops.minimize(m) == m
    assert ops.minimize(permuted(dfa, seed)) == m
    assert hash(ops.minimize(permuted(dfa, seed))) == hash(m)
    assert ops.canonical(dfa) == m


@settings(max_examples=100)
@given(dfas(ABC, max_states=5))
def test_minimize_three_letters(dfa: DFA) -> None:
    m = ops.minimize(dfa)
    assert np.array_equal(dfa_language(m, 5), dfa_language(dfa, 5))
    assert m.n_states == nerode_classes(dfa)


def test_canonical_numbering_is_breadth_first_by_symbol() -> None:
    # states renamed at random: the canonical form numbers them by BFS in symbol order
    dfa = DFA(AB, [[2, 1], [1, 1], [0, 1]], [True, False, False], 2)
    m = ops.minimize(dfa)
    assert m.initial == 0
    assert m.transitions.tolist() == [[1, 2], [0, 2], [2, 2]]
    assert m.accepting.tolist() == [False, True, False]


@settings(max_examples=150)
@given(dfas(AB, max_states=5), dfas(AB, max_states=5))
def test_boolean_operations(d1: DFA, d2: DFA) -> None:
    l1, l2 = dfa_language(d1, LEN), dfa_language(d2, LEN)
    assert np.array_equal(dfa_language(ops.intersection(d1, d2), LEN), l1 & l2)
    assert np.array_equal(dfa_language(ops.union(d1, d2), LEN), l1 | l2)
    assert np.array_equal(dfa_language(ops.difference(d1, d2), LEN), l1 & ~l2)
    assert np.array_equal(dfa_language(ops.symmetric_difference(d1, d2), LEN), l1 ^ l2)
    assert np.array_equal(dfa_language(ops.complement(d1), LEN), ~l1)


@settings(max_examples=150)
@given(dfas(AB, max_states=5), dfas(AB, max_states=5))
def test_distinguishing_word_is_the_shortlex_least_witness(d1: DFA, d2: DFA) -> None:
    # a witness has length < 5·5; words up to 10 hold the shortest one in almost every draw
    diff = np.flatnonzero(dfa_language(d1, 10) != dfa_language(d2, 10))
    witness = ops.distinguishing_word(d1, d2)
    assert ops.equivalent(d1, d2) == (witness is None)
    if witness is None:
        assert diff.size == 0
        assert ops.minimize(d1) == ops.minimize(d2)
    else:
        assert d1.accepts(witness) != d2.accepts(witness)
        assert diff.size == 0 or witness == all_words(AB, 10)[diff[0]]


@settings(max_examples=150)
@given(dfas(AB))
def test_queries(dfa: DFA) -> None:
    n = dfa.n_states
    words, member = all_words(AB, 2 * n), dfa_language(dfa, 2 * n)
    accepted, rejected = np.flatnonzero(member), np.flatnonzero(~member)
    assert ops.is_empty(dfa) == (accepted.size == 0)
    assert ops.shortest_accepted(dfa) == (words[accepted[0]] if accepted.size else None)
    assert ops.shortest_rejected(dfa) == (words[rejected[0]] if rejected.size else None)
    # L is infinite iff it has a word whose length lies in [n, 2n)
    lengths = word_lengths(2, 2 * n)
    assert ops.is_finite(dfa) == (not (member & (lengths >= n) & (lengths < 2 * n)).any())


@settings(max_examples=100)
@given(dfas(AB))
def test_reverse(dfa: DFA) -> None:
    rev = reverse(dfa)
    det = rev.determinize()
    for w in all_words(AB, 6):
        assert det.accepts(w) == dfa.accepts(w[::-1]) == rev.accepts(w)
    assert ops.minimize(reverse(det).determinize()) == ops.minimize(dfa)


def test_nfa_with_epsilon_and_explosion() -> None:
    # (a|b)* a (a|b)^k: the classic 2^(k+1)-state determinization
    k = 12
    delta = [[frozenset({0, 1}), frozenset({0})]]
    delta += [[frozenset({i + 1}), frozenset({i + 1})] for i in range(1, k + 1)]
    delta += [[frozenset(), frozenset()]]
    nfa = NFA(AB, tuple(tuple(r) for r in delta), frozenset({0}), frozenset({k + 1}))
    assert ops.minimize(nfa.determinize()).n_states == 2 ** (k + 1)
    with pytest.raises(StateExplosionError):
        nfa.determinize(max_states=1000)
    eps = NFA(AB, ((frozenset(), frozenset()),) * 2, {0}, {1}, ({1}, frozenset()))
    assert eps.accepts(()) and not eps.accepts(("a",))
    assert eps.determinize().accepts(())


def test_alphabets_must_match() -> None:
    d1 = DFA(AB, [[0, 0]], [True])
    d2 = DFA(Alphabet(("a", "c")), [[0, 0]], [True])
    for op in (ops.intersection, ops.union, ops.equivalent, ops.distinguishing_word):
        with pytest.raises(AlphabetError):
            op(d1, d2)


def test_drawing() -> None:
    dfa = DFA(AB, [[1, 2], [1, 0], [2, 2]], [False, True, False])
    graph = ops.to_networkx(dfa)
    assert graph.nodes[1]["accepting"] and graph.nodes[0]["initial"]
    assert graph.edges[2, 2]["symbols"] == ("a", "b")
    dot = ops.to_dot(dfa)
    assert "doublecircle" in dot and '2 -> 2 [label="a,b"]' in dot
    assert "2 ->" not in ops.to_dot(dfa, hide_sink=True)


def test_render(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    if shutil.which("dot") is None:
        pytest.skip("graphviz not installed")
    out = ops.render(DFA(AB, [[1, 0], [1, 1]], [False, True]), tmp_path / "d.png")
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_counting_functions() -> None:
    dfa = DFA(AB, [[1, 0], [1, 1]], [False, True])  # Σ*aΣ*
    assert counting.count_words(dfa, 3) == 7 and counting.count_table(dfa, 2).tolist() == [0, 1, 3]
    assert counting.density(dfa, 2) == 0.75
    words = list(counting.words_of_length(dfa, 2))
    assert words == [w for w in itertools.product("ab", repeat=2) if "a" in w]


def _normalized(blocks: list[int]) -> list[int]:
    """Block ids renamed by first occurrence: equal lists iff equal partitions."""
    first: dict[int, int] = {}
    return [first.setdefault(b, len(first)) for b in blocks]


def _random_tables() -> list[tuple[list[list[int]], list[bool]]]:
    rng = np.random.default_rng(1234)
    out = []
    for n in (1, 2, 3, 5, 8, 13, 40, 150, 400):
        for k in (1, 2, 3, 4):
            for density in (0.1, 0.5):
                table = rng.integers(0, n, size=(n, k)).tolist()
                out.append((table, (rng.random(n) < density).tolist()))
    for n in (7, 64, 300):  # a cycle with one accepting state: Moore needs n rounds
        for k in (1, 2):
            table = [[(q + 1) % n] + [q] * (k - 1) for q in range(n)]
            out.append((table, [q == 0 for q in range(n)]))
    return out


def test_minimize_table_agrees_with_minimize() -> None:
    """From plain lists, and without the search when the states come breadth-first."""
    for table, accepting in _random_tables():
        k = len(table[0])
        sigma = Alphabet(tuple("abcd"[:k]))
        dfa = DFA(sigma, table, accepting, len(table) // 2)
        flat = [q for row in table for q in row]
        assert ops.minimize_table(sigma, flat, accepting, dfa.initial) == ops.minimize(dfa)
        # `trim` renumbers the reachable states breadth-first, as an exploration meets them
        bfs = ops.trim(dfa)
        flat = bfs.transitions.reshape(-1).tolist()
        quick = ops.minimize_table(sigma, flat, bfs.accepting.tolist(), breadth_first=True)
        assert quick == ops.minimize(dfa)
    with pytest.raises(ValueError, match="starts at state 0"):
        ops.minimize_table(sigma, flat, bfs.accepting.tolist(), 1, breadth_first=True)


@pytest.mark.parametrize("rounds", [0, 1, 10**6])
def test_moore_and_hopcroft_give_the_same_partition(
    rounds: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # rounds=0: Hopcroft after two Moore rounds; 1: a short hand-over; 10**6: Moore to the end
    monkeypatch.setattr(tables, "_MOORE_ROUNDS_PER_LOG", rounds)
    for table, accepting in _random_tables():
        k = len(table[0])
        expected = tables._hopcroft(table, accepting, k)
        got = tables._partition([q for row in table for q in row], k, accepting)
        assert _normalized(got) == _normalized(expected)


def test_minimize_matches_hopcroft_quotient_then_trim() -> None:
    """The fused quotient + breadth-first numbering equals the quotient DFA passed to `trim`."""
    for table, accepting in _random_tables():
        k = len(table[0])
        dfa = DFA(Alphabet(tuple("abcd"[:k])), table, accepting, len(table) // 2)
        block_of = np.asarray(tables._hopcroft(table, accepting, k), dtype=np.int64)
        rep = np.zeros(int(block_of.max()) + 1, dtype=np.int64)
        rep[block_of] = np.arange(dfa.n_states)
        quotient = DFA(
            dfa.alphabet,
            block_of[dfa.transitions[rep]],
            dfa.accepting[rep],
            int(block_of[dfa.initial]),
        )
        assert ops.minimize(dfa) == ops.trim(quotient)
