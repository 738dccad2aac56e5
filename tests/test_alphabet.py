"""Alphabets and words: validation, encoding and parsing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.errors import AlphabetError


def test_parse_spellings_agree() -> None:
    assert Alphabet.parse("a,b,c") == Alphabet.parse("a b c") == Alphabet.parse("abc")
    assert Alphabet.parse(["a1", "b0"]).symbols == ("a1", "b0")


@pytest.mark.parametrize("bad", [[], ["a", "a"], ["P"], ["true"], ["start"], ["A"], ["a-b"], [""]])
def test_invalid_alphabets(bad: list[str]) -> None:
    with pytest.raises(AlphabetError):
        Alphabet(tuple(bad))


def test_symbol_outside_alphabet_is_named() -> None:
    sigma = Alphabet.parse("a,b")
    with pytest.raises(AlphabetError, match=r"'c'.*\{a,b\}"):
        sigma.parse_word("abc")


def test_word_parsing_single_and_multi_character() -> None:
    sigma = Alphabet.parse("a,b,c")
    assert sigma.parse_word("abca") == ("a", "b", "c", "a")
    assert sigma.parse_word("a b c") == ("a", "b", "c")
    assert sigma.parse_word("") == sigma.parse_word("ε") == ()
    multi = Alphabet.parse("a1,a2,b0")
    assert multi.parse_word("a1 b0 a2") == ("a1", "b0", "a2")
    assert multi.parse_word("a1") == ("a1",)
    with pytest.raises(AlphabetError):
        multi.parse_word("a1b0")


@given(st.lists(st.sampled_from(["a1", "a2", "b0"]), max_size=12))
def test_encode_decode_round_trip(word: list[str]) -> None:
    sigma = Alphabet.parse("a1,a2,b0")
    codes = sigma.encode(word)
    assert codes.dtype == np.int64
    assert sigma.decode(codes) == tuple(word)
    assert sigma.parse_word(sigma.format_word(word)) == tuple(word)


def test_decode_rejects_out_of_range_codes() -> None:
    with pytest.raises(AlphabetError, match="code 3"):
        Alphabet.parse("a,b").decode([0, 3])
