"""The formula parser: spellings, precedence, error reports and fuzzing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.errors import AlphabetError, FormulaSyntaxError
from expressivity.logic import parse
from expressivity.logic.syntax import EOS, FALSE, START, TRUE, And, Iff, Implies, Not, Or, Symbol
from expressivity.logic.temporal import (
    BoundedPast,
    Eventually,
    Globally,
    Historically,
    Next,
    Past,
    Since,
    Until,
    WeakNext,
    Yesterday,
)
from tests.logic.strategies import formula_texts

a, b, c = Symbol("a"), Symbol("b"), Symbol("c")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a", a),
        ("b0", Symbol("b0")),
        ("a1_x", Symbol("a1_x")),
        ("7", Symbol("7")),
        ("true", TRUE),
        ("false", FALSE),
        ("start", START),
        ("eos", EOS),
        ("trueish", Symbol("trueish")),
        ("!a", Not(a)),
        ("P a", Past(a)),
        ("O a", Past(a)),
        ("H a", Historically(a)),
        ("Y a", Yesterday(a)),
        ("Y^1 a", Yesterday(a, 1)),
        ("Y^3 a", Yesterday(a, 3)),
        ("Y^{3} a", Yesterday(a, 3)),
        ("Y ^ 12 a", Yesterday(a, 12)),
        ("Y^3 0", Yesterday(Symbol("0"), 3)),
        ("Y<=3 a", BoundedPast(a, 3)),
        ("Y<=1 a", BoundedPast(a, 1)),
        ("a S b", Since(a, b)),
        ("X a", Next(a)),
        ("WX a", WeakNext(a)),
        ("F a", Eventually(a)),
        ("G a", Globally(a)),
        ("a U b", Until(a, b)),
        ("P(a)", Past(a)),
        ("((a))", a),
    ],
)
def test_every_node_has_a_spelling(text: str, expected: object) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize(
    ("ascii_text", "unicode_text"),
    [
        ("!a & b | c -> a <-> true", "¬a ∧ b ∨ c → a ↔ ⊤"),
        ("false", "⊥"),
        ("!P true | (Y b & P(a & !P true))", "¬P⊤ ∨ (Y b ∧ P(a ∧ ¬P⊤))"),
        ("Y<=3 a", "Y^{≤3} a"),
        ("Y<=3 a", "Y≤3 a"),
        ("Y<=3 a", "Y^{<=3} a"),
        ("Y<=3 a", "Y^<=3 a"),
        ("Y<=3 a", "Y^{ ≤ 3 } a"),
        ("a -> b", "a → b"),
    ],
)
def test_unicode_and_ascii_spellings_give_the_same_ast(ascii_text: str, unicode_text: str) -> None:
    assert parse(ascii_text) == parse(unicode_text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # unary operators bind tightest
        ("P a & b", And(Past(a), b)),
        ("!a & b", And(Not(a), b)),
        ("!a S b", Since(Not(a), b)),
        ("P a S b", Since(Past(a), b)),
        ("Y^2 a U b", Until(Yesterday(a, 2), b)),
        ("P Y !a", Past(Yesterday(Not(a)))),
        ("!!a", Not(Not(a))),
        # S and U: one level, right-associative, tighter than &
        ("a S b S c", Since(a, Since(b, c))),
        ("a S b U c", Since(a, Until(b, c))),
        ("a U b S c", Until(a, Since(b, c))),
        ("a & b S c", And(a, Since(b, c))),
        ("a S b & c", And(Since(a, b), c)),
        # & over |, both left-associative
        ("a & b & c", And(And(a, b), c)),
        ("a | b | c", Or(Or(a, b), c)),
        ("a | b & c", Or(a, And(b, c))),
        ("a & b | c", Or(And(a, b), c)),
        # -> right-associative, looser than |
        ("a -> b -> c", Implies(a, Implies(b, c))),
        ("a | b -> c", Implies(Or(a, b), c)),
        ("a -> b | c", Implies(a, Or(b, c))),
        # <-> loosest, left-associative
        ("a <-> b <-> c", Iff(Iff(a, b), c)),
        ("a -> b <-> c", Iff(Implies(a, b), c)),
        ("a <-> b -> c", Iff(a, Implies(b, c))),
        # parentheses override
        ("(a | b) & c", And(Or(a, b), c)),
        ("(a -> b) -> c", Implies(Implies(a, b), c)),
        ("P(b & Y a)", Past(And(b, Yesterday(a)))),
    ],
)
def test_precedence_and_associativity(text: str, expected: object) -> None:
    assert parse(text) == expected


def test_whitespace_and_newlines_are_free() -> None:
    assert parse("  P (\n b\t&\r\n Y   a )\n") == parse("P(b & Y a)")
    assert parse("Y\n<=\n3 a") == BoundedPast(a, 3)


def test_alphabet_checks_symbols_and_names_the_column() -> None:
    sigma = Alphabet.parse("a,b,c")
    assert parse("P(b & Y a)", sigma) == Past(And(b, Yesterday(a)))
    with pytest.raises(AlphabetError) as info:
        parse("P(b &\n Y d)", sigma)
    message = str(info.value)
    assert "'d'" in message and "{a,b,c}" in message
    assert "line 2, column 4" in message
    assert message.endswith("  Y d)\n     ^")


@pytest.mark.parametrize(
    ("text", "line", "column", "reason", "expected"),
    [
        ("a &", 1, 4, "unexpected end of formula", "a symbol"),
        ("(a", 1, 3, "unexpected end of formula", "')'"),
        ("P a b", 1, 5, "unexpected symbol 'b'", "end of input"),
        ("a\n  & (b |\n )", 3, 2, "unexpected ')'", "'('"),
        ("Ya", 1, 1, "unknown operator 'Ya'", "'Y'"),
        ("P(a) & Yb", 1, 8, "unknown operator 'Yb'", "'!'"),
        ("a => b", 1, 3, "'->' for implication", "'->'"),
        ("a <=> b", 1, 3, "'<->' for equivalence", "'<->'"),
        ("a && b", 1, 4, "single '&'", "'!'"),
        ("a || b", 1, 4, "single '|'", "'!'"),
        ("Y<=a", 1, 4, "unexpected symbol 'a'", "a number"),
        ("Y^0 a", 1, 3, "k >= 1", "a number >= 1"),
        ("Y<=0 a", 1, 4, "k >= 1", "a number >= 1"),
        ("12", 1, 1, "unexpected number '12'", "a symbol"),
        ("a $ b", 1, 3, "unexpected character '$'", "'&'"),
        ("", 1, 1, "unexpected end of formula", "'('"),
        ("_x", 1, 1, "invalid name '_x'", "a symbol"),
    ],
)
def test_syntax_errors_report_position_caret_and_expected(
    text: str, line: int, column: int, reason: str, expected: str
) -> None:
    with pytest.raises(FormulaSyntaxError) as info:
        parse(text)
    err = info.value
    assert (err.line, err.column) == (line, column)
    assert reason in err.reason
    assert expected in err.expected
    message = str(err)
    assert f"line {line}, column {column}" in message
    source = (text.splitlines() or [""])[line - 1]
    assert f"\n  {source}\n  {' ' * (column - 1)}^" in message
    assert "expected one of: " in message


def test_expected_tokens_are_exact_after_an_operand() -> None:
    with pytest.raises(FormulaSyntaxError) as info:
        parse("(a b")
    assert set(info.value.expected) == {"'S'", "'U'", "'&'", "'|'", "'->'", "'<->'", "')'"}


def test_deep_nesting_parses_without_recursion() -> None:
    depth = 5000
    f = parse("(" * depth + "!" * depth + "a" + ")" * depth)
    for _ in range(depth):
        assert isinstance(f, Not)
        f = f.arg
    assert f == a


def _parses_or_raises_syntax_error(text: str) -> None:
    try:
        parse(text)
    except FormulaSyntaxError as err:
        # the caret points into (or just past) the reported source line
        lines = text.splitlines() or [""]
        assert 1 <= err.line <= len(lines)
        assert 1 <= err.column <= len(lines[err.line - 1]) + 1
        assert err.expected and str(err)
        # never a lark exception underneath
        assert err.__cause__ is None or not type(err.__cause__).__module__.startswith("lark")


@settings(max_examples=300)
@given(
    st.text(
        alphabet=st.characters(codec="utf-8") | st.sampled_from("()&|!PY\r\n\x0b\u2028"),
        max_size=30,
    )
)
def test_fuzz_arbitrary_text_parses_or_raises_formula_syntax_error(text: str) -> None:
    _parses_or_raises_syntax_error(text)


@settings(max_examples=300)
@given(formula_texts())
def test_fuzz_token_soup_parses_or_raises_formula_syntax_error(text: str) -> None:
    _parses_or_raises_syntax_error(text)


def test_non_text_input_is_a_syntax_error() -> None:
    with pytest.raises(FormulaSyntaxError):
        parse(3)  # type: ignore[arg-type]
