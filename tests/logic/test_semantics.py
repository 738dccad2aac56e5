"""Reference semantics: docs/theory.md §2 worked examples on all short words, and edge cases."""

from __future__ import annotations

import itertools
import re

import pytest

from expressivity.logic import accepts, holds, parse, truth_table
from expressivity.logic.syntax import Formula

ABC = ("a", "b", "c")


def all_words(symbols: tuple[str, ...], max_len: int = 6) -> list[tuple[str, ...]]:
    return [w for n in range(max_len + 1) for w in itertools.product(symbols, repeat=n)]


WORDS_ABC = all_words(ABC)
WORDS_AB = all_words(("a", "b"))


def assert_defines(formula: Formula, words: list[tuple[str, ...]], member) -> None:  # type: ignore[no-untyped-def]
    """L(formula) agrees with ``member`` on ``words`` (reference and vectorized semantics)."""
    for w in words:
        expected = member(w)
        assert accepts(formula, w) == expected, (w, expected)
        assert bool(truth_table(formula, w)[-1]) == expected, w


def regex(pattern: str):  # type: ignore[no-untyped-def]
    compiled = re.compile(pattern)
    return lambda w: compiled.fullmatch("".join(w)) is not None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("P a", "[abc]*a[abc]*"),  # Σ*aΣ*
        ("P(a & !P true)", "a[abc]*"),  # aΣ*
        ("Y a", "[abc]*a"),  # Σ*a
        ("P(b & Y a)", "[abc]*ab[abc]*"),  # Σ*abΣ*
        ("Y b & Y Y a", "[abc]*ab"),  # Σ*ab
        ("!P true", ""),  # {ε}
        ("P a & P b", "[abc]*(a[abc]*b|b[abc]*a)[abc]*"),
        ("P(b & P a)", "[abc]*a[abc]*b[abc]*"),  # Σ*aΣ*bΣ*
        ("Y^2 a", "[abc]*a[abc]"),
        ("Y<=2 a", "[abc]*a[abc]?"),
        ("H(a | b)", "[ab]*"),
        ("b S a", "[abc]*ab*"),
        ("P(a & !F b)", "[abc]*a[ac]*"),
    ],
)
def test_worked_examples_over_abc(text: str, pattern: str) -> None:
    assert_defines(parse(text), WORDS_ABC, regex(pattern))


def test_ab_star_over_ab() -> None:
    f = parse("¬P⊤ ∨ (Y b ∧ P(a ∧ ¬P⊤) ∧ ¬P(a ∧ Y a) ∧ ¬P(b ∧ Y b))")
    assert_defines(f, WORDS_AB, regex("(ab)*"))


def test_alphabet_pitfall_factor_ab_equals_subword_ab_only_over_ab() -> None:
    factor, subword = parse("P(b & Y a)"), parse("P(b & P a)")
    assert all(accepts(factor, w) == accepts(subword, w) for w in WORDS_AB)
    witness = ("a", "c", "b")
    assert not accepts(factor, witness) and accepts(subword, witness)


def test_rdp1_over_a_b0_b1_with_multi_character_symbols() -> None:
    f = parse(
        "(Y a & !P b0) | (P(b0 & !P b0 & Y a) & !P(a & P b0) & !P(b1 & P b0))",
    )
    words = all_words(("a", "b0", "b1"))
    code = {"a": "a", "b0": "x", "b1": "y"}
    pattern = re.compile("[^x]*a[^ay]*")
    assert_defines(f, words, lambda w: pattern.fullmatch("".join(code[s] for s in w)) is not None)


def test_not_p_true_holds_exactly_at_position_one() -> None:
    f = parse("!P true")
    for w in all_words(ABC, 4):
        positions = range(1, len(w) + 2)
        assert [holds(f, w, n) for n in positions] == [n == 1 for n in positions]
        assert holds(parse("start"), w, 1) and not any(
            holds(parse("start"), w, n) for n in range(2, len(w) + 2)
        )


def test_empty_word() -> None:
    for text in ("a", "P a", "Y a", "Y true", "P true", "a S b", "Y<=3 true", "Y^2 true"):
        assert not accepts(parse(text), ()), text
    for text in ("true", "start", "eos", "H false", "!P true", "G false", "WX false"):
        assert accepts(parse(text), ()), text
    assert list(truth_table(parse("P a"), ())) == [False]


def test_yesterday_is_false_at_position_one_and_strict() -> None:
    w = ("a", "a")
    assert [holds(parse("Y true"), w, n) for n in (1, 2, 3)] == [False, True, True]
    assert [holds(parse("Y a"), w, n) for n in (1, 2, 3)] == [False, True, True]
    assert [holds(parse("Y^2 true"), w, n) for n in (1, 2, 3)] == [False, False, True]


def test_past_and_since_are_strict() -> None:
    w = ("a", "b")
    assert [holds(parse("P a"), w, n) for n in (1, 2, 3)] == [False, True, True]
    assert [holds(parse("P b"), w, n) for n in (1, 2, 3)] == [False, False, True]
    # a S b at n needs some m < n with b; the position n itself is never inspected
    assert [holds(parse("a S b"), ("b", "c", "a"), n) for n in (1, 2, 3, 4)] == [
        False, True, False, False,
    ]  # fmt: skip
    assert [holds(parse("c S b"), ("b", "c", "a"), n) for n in (1, 2, 3, 4)] == [
        False, True, True, False,
    ]  # fmt: skip
    assert [holds(parse("H a"), ("a", "b"), n) for n in (1, 2, 3)] == [True, True, False]


def test_bounded_past_near_the_start() -> None:
    w = ("a", "b", "b", "b")
    f = parse("Y<=2 a")
    assert [holds(f, w, n) for n in range(1, 6)] == [False, True, True, False, False]
    assert [holds(parse("Y<=9 a"), w, n) for n in range(1, 6)] == [False, True, True, True, True]
    assert [holds(parse("Y^3 a"), w, n) for n in range(1, 6)] == [False, False, False, True, False]


def test_future_operators_at_eos() -> None:
    w = ("a", "b")
    eos = len(w) + 1
    assert not holds(parse("X true"), w, eos)
    assert holds(parse("WX false"), w, eos)
    assert not holds(parse("F true"), w, eos)
    assert holds(parse("G false"), w, eos)
    assert not holds(parse("true U true"), w, eos)
    assert holds(parse("X eos"), w, 2) and holds(parse("F eos"), w, 1)
    assert holds(parse("a U eos"), ("c", "a", "a"), 1)
    assert not holds(parse("a U eos"), ("a", "c"), 1)


def test_holds_rejects_positions_outside_the_word() -> None:
    with pytest.raises(ValueError):
        holds(parse("a"), ("a",), 3)
    with pytest.raises(ValueError):
        holds(parse("a"), ("a",), 0)
