"""Regex → DFA against Python's `re`, tokenization of symbol names, and error reporting."""

from __future__ import annotations

import contextlib
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.automata.ops import minimize, shortest_accepted
from expressivity.automata.regex import compile_regex, regex_nfa
from expressivity.errors import (
    AlphabetError,
    ExpressivityError,
    RegexSyntaxError,
    StateExplosionError,
)
from tests.automata.conftest import AB, ABC, regexes
from tests.automata.reference import all_words, dfa_language

MULTI = Alphabet(("a", "b0", "b1", "c"))


@settings(max_examples=300)
@given(regexes())
def test_regex_agrees_with_python_re(pair: tuple[str, str]) -> None:
    ours, python = pair
    dfa = compile_regex(ours, ABC)
    pattern = re.compile(python)
    expected = [pattern.fullmatch("".join(w)) is not None for w in all_words(ABC, 5)]
    assert dfa_language(dfa, 5).tolist() == expected
    assert dfa == minimize(dfa)  # already canonical


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("(ab)*", "(a b)*"),
        ("[^ab]*", "c*"),
        ("[^a b]*", "[c]*"),
        (".", "Σ"),
        (".", "a|b|c"),
        ("ε", "eps"),
        ("a+", "a a*"),
        ("a?", "ε|a"),
        ("a{2}", "aa"),
        ("a{2,}", "aaa*"),
        ("a{1,3}", "a|aa|aaa"),
        ("a{,2}", "ε|a|aa"),
        ("∅*", "ε"),
        ("a∅", "∅"),
        ("a|b c", "a|(bc)"),
        ("ab*", "a(b*)"),
        ("( a\n  b )*", "(ab)*"),
    ],
)
def test_spellings(left: str, right: str) -> None:
    assert compile_regex(left, ABC) == compile_regex(right, ABC)


def test_multi_character_symbols() -> None:
    dfa = compile_regex("[^a b0]* a [^b1]*", MULTI)
    assert dfa.accepts(("c", "b1", "a", "b0", "a")) and not dfa.accepts(("b0", "a"))
    assert shortest_accepted(compile_regex("b0 b1", MULTI)) == ("b0", "b1")
    with pytest.raises(AlphabetError, match="b0b1"):
        compile_regex("b0b1", MULTI)  # juxtaposed names must be separated by spaces
    digits = Alphabet(("0", "1"))
    assert shortest_accepted(compile_regex("(01)*1{2}", digits)) == ("1", "1")


def test_unknown_symbol() -> None:
    with pytest.raises(AlphabetError, match=r"'d'.*line 1, column 4"):
        compile_regex("ab d", ABC)


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [("(ab", 1, 4), ("a||b", 1, 3), ("a{3,2}", 1, 5), ("[a", 1, 3), ("a\n)", 2, 1), ("*a", 1, 1),
     ("a{", 1, 3), ("a#", 1, 2)],
)  # fmt: skip
def test_syntax_errors_carry_position_and_caret(text: str, line: int, column: int) -> None:
    with pytest.raises(RegexSyntaxError) as err:
        compile_regex(text, ABC)
    assert (err.value.line, err.value.column) == (line, column)
    assert "^" in str(err.value)


TOKENS = ["a", "b", "b0", "(", ")", "|", "*", "+", "?", "{", "}", ",", "2", "[", "]", "^", ".",
          "Σ", "ε", "eps", "∅", " ", "\n", "#", "x"]  # fmt: skip


@settings(max_examples=300)
@given(st.lists(st.sampled_from(TOKENS), max_size=10).map("".join))
def test_fuzz_never_leaks_a_lark_error(text: str) -> None:
    for alphabet in (ABC, MULTI):
        with contextlib.suppress(RegexSyntaxError, AlphabetError, StateExplosionError):
            compile_regex(text, alphabet, max_states=5000)


def test_state_bound() -> None:
    with pytest.raises(StateExplosionError, match="regular expression"):
        compile_regex("(a{100}){100}", AB, max_states=1000)
    with pytest.raises(StateExplosionError):
        compile_regex("(a|b)* a (a|b){14}", AB, max_states=1000)


def test_thompson_nfa() -> None:
    nfa = regex_nfa("(a|b)*a", AB)
    assert nfa.accepts(("b", "a")) and not nfa.accepts(("a", "b"))
    assert np.array_equal(
        dfa_language(nfa.determinize(), 5), dfa_language(compile_regex(".*a", AB), 5)
    )


def test_errors_are_expressivity_errors() -> None:
    with pytest.raises(ExpressivityError):
        compile_regex(")", ABC)
