"""The `DFA` as a Python value: membership with ``in``, set operators, typed errors, identity."""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.automata import ops
from expressivity.automata.dfa import DFA
from expressivity.automata.nfa import NFA
from expressivity.errors import AlphabetError, AutomatonError, ExpressivityError
from tests.automata.conftest import AB, ABC, dfas, permuted
from tests.automata.reference import all_words

#: Words up to this length, for DFAs of at most `STATES` states: a word outside an inclusion
#: passes through at most STATES² product states, so the words-level inclusion below is exact.
STATES = 3
LEN = STATES * STATES - 1

#: Each operator, its `ops` function, and its meaning on one word's two memberships.
BINARY: dict[str, tuple[Callable[[DFA, DFA], DFA], Callable[[DFA, DFA], DFA],
                        Callable[[bool, bool], bool]]] = {
    "|": (operator.or_, ops.union, lambda x, y: x or y),
    "&": (operator.and_, ops.intersection, lambda x, y: x and y),
    "-": (operator.sub, ops.difference, lambda x, y: x and not y),
    "^": (operator.xor, ops.symmetric_difference, lambda x, y: x != y),
}
COMPARISONS: dict[str, Callable[[DFA, DFA], bool]] = {
    "<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt,
}


def _language(dfa: DFA, alphabet: Alphabet = AB) -> set[tuple[str, ...]]:
    """L ∩ Σ^{≤LEN}, word by word through `accepts` (the words-level definition)."""
    return {w for w in all_words(alphabet, LEN) if dfa.accepts(w)}


@settings(max_examples=120, deadline=None)
@given(dfas(AB, max_states=STATES), dfas(AB, max_states=STATES))
def test_binary_operators_are_the_set_operations_on_words(d1: DFA, d2: DFA) -> None:
    words = all_words(AB, LEN)
    for name, (op, function, meaning) in BINARY.items():
        result = op(d1, d2)
        assert result == function(d1, d2), name  # the same canonical DFA
        assert result == ops.canonical(result), name
        for w in words:
            assert result.accepts(w) == meaning(d1.accepts(w), d2.accepts(w)), (name, w)


@settings(max_examples=120, deadline=None)
@given(dfas(AB, max_states=STATES))
def test_invert_is_the_complement_on_words(d: DFA) -> None:
    assert ~d == ops.complement(d) == ops.canonical(~d)
    assert ~~d == ops.canonical(d)
    for w in all_words(AB, LEN):
        assert (~d).accepts(w) != d.accepts(w)


@settings(max_examples=200, deadline=None)
@given(dfas(AB, max_states=STATES), dfas(AB, max_states=STATES))
def test_comparisons_are_inclusion_of_languages(d1: DFA, d2: DFA) -> None:
    l1, l2 = _language(d1), _language(d2)
    expected = {"<=": l1 <= l2, "<": l1 < l2, ">=": l1 >= l2, ">": l1 > l2}
    assert {name: cmp(d1, d2) for name, cmp in COMPARISONS.items()} == expected
    assert (d1 <= d2 and d2 <= d1) == ops.equivalent(d1, d2)


@settings(max_examples=60, deadline=None)
@given(dfas(AB, max_states=STATES), st.integers(0, 2**31 - 1))
def test_equality_and_hash_stay_structural(d: DFA, seed: int) -> None:
    renamed = permuted(d, seed)
    assert renamed <= d <= renamed  # the same language ...
    same_table = np.array_equal(renamed.transitions, d.transitions) and (
        renamed.initial == d.initial and np.array_equal(renamed.accepting, d.accepting)
    )
    assert (renamed == d) == same_table  # ... but equal only as identical tables
    copy = DFA(d.alphabet, d.transitions.tolist(), d.accepting.tolist(), d.initial)
    assert copy == d and hash(copy) == hash(d)
    assert len({ops.canonical(renamed), ops.canonical(d)}) == 1


@settings(max_examples=60, deadline=None)
@given(dfas(AB, max_states=4))
def test_in_accepts_every_spelling_that_accepts_takes(d: DFA) -> None:
    for w in all_words(AB, 5):
        member = d.accepts(w)
        for spelling in (w, list(w), "".join(w), np.array(w, dtype=str)):
            assert (spelling in d) == member == d.accepts(spelling)


def test_in_is_false_for_what_is_not_a_word_over_the_alphabet() -> None:
    everything = DFA(AB, [[0, 0]], [True])
    assert "ab" in everything and "" in everything and ("b", "a") in everything
    for foreign in ("abc", ("a", "c"), ["z"], 3, None, [["a"]], b"ab"):
        assert foreign not in everything
    multi = DFA(Alphabet(("a1", "b0")), [[0, 0]], [True])
    assert ("a1", "b0") in multi and ["b0"] in multi
    assert "a1" not in multi  # a string is read letter by letter, as `accepts` reads it
    with pytest.raises(AlphabetError):
        multi.accepts("a1")


def test_mismatched_alphabets_raise_a_typed_error() -> None:
    d1, d2 = DFA(AB, [[0, 0]], [True]), DFA(ABC, [[0, 0, 0]], [False])
    for op in [*(op for op, _, _ in BINARY.values()), *COMPARISONS.values()]:
        with pytest.raises(AlphabetError, match="different alphabets"):
            op(d1, d2)
        with pytest.raises(AlphabetError, match="different alphabets"):
            op(d2, d1)


def test_other_operands_are_not_supported() -> None:
    d = DFA(AB, [[0, 0]], [True])
    for op in [*(op for op, _, _ in BINARY.values()), *COMPARISONS.values()]:
        with pytest.raises(TypeError):
            op(d, {("a",)})  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            op(1, d)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: DFA(AB, [[0, 0, 0]], [True]), "shape"),
        (lambda: DFA(AB, np.zeros((0, 2)), []), "at least one state"),
        (lambda: DFA(AB, [[0, 0]], [True, False]), "accepting mask"),
        (lambda: DFA(AB, [[0, 1]], [True]), "outside"),
        (lambda: DFA(AB, [[0, 0]], [True], initial=3), "initial state"),
        (lambda: NFA(AB, ((frozenset(),),), frozenset({0}), frozenset()), "successor sets"),
        (lambda: NFA(AB, ((frozenset({4}), frozenset()),), frozenset({0}), frozenset()),
         "outside"),
        (lambda: ops.minimize_table(AB, [0, 0], [True], 1, breadth_first=True), "state 0"),
    ],
)
def test_bad_automata_raise_automaton_error(build: Callable[[], object], match: str) -> None:
    with pytest.raises(AutomatonError, match=match) as caught:
        build()
    assert isinstance(caught.value, ExpressivityError) and isinstance(caught.value, ValueError)
