"""MOD predicates ``mod(m,r)`` (n ≡ r mod m): spelling, errors, semantics and fragments."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from expressivity.alphabet import Alphabet
from expressivity.errors import AlphabetError, FormulaSyntaxError, UnsupportedFragmentError
from expressivity.logic import accepts, check_fragment, fragment, holds, parse, to_text
from expressivity.logic.syntax import And, Mod, Symbol
from expressivity.logic.temporal import Past
from tests.logic.strategies import FRAGMENTS, formulas


def test_spellings_and_printing() -> None:
    assert parse("mod(3,1)") == parse("mod ( 3 , 1 )") == Mod(3, 1)
    assert parse("P(a & mod(2,0))") == Past(And(Symbol("a"), Mod(2, 0)))
    assert to_text(parse("P mod(2,0) & !mod(4,3)")) == "P mod(2,0) & !mod(4,3)"


def test_a_symbol_may_still_be_called_mod() -> None:
    assert parse("mod & P mod") == And(Symbol("mod"), Past(Symbol("mod")))
    assert parse("mod | mod(2,1)", Alphabet.parse("mod,x")).symbols() == {"mod"}


@pytest.mark.parametrize(
    ("text", "column", "reason"),
    [
        ("mod(0,0)", 5, "modulus m >= 1, got 0"),
        ("P a & mod(3,3)", 13, "residue 0 <= r < m = 3, got 3"),
        ("mod(2,\n 17)", 2, "residue 0 <= r < m = 2, got 17"),
    ],
)
def test_bad_modulus_or_residue_is_a_located_syntax_error(
    text: str, column: int, reason: str
) -> None:
    with pytest.raises(FormulaSyntaxError) as info:
        parse(text)
    assert reason in info.value.reason
    assert info.value.column == column
    assert info.value.line == text[: text.index(reason.split()[-1], 4)].count("\n") + 1


@pytest.mark.parametrize("text", ["mod(2)", "mod(2,1,)", "mod(,1)", "mod(2,-1)", "mod(x,1)"])
def test_malformed_mod_is_a_syntax_error(text: str) -> None:
    with pytest.raises(FormulaSyntaxError):
        parse(text)


def test_the_node_validates_its_fields() -> None:
    with pytest.raises(ValueError, match="modulus"):
        Mod(0, 0)
    with pytest.raises(ValueError, match="residue"):
        Mod(2, 2)


def test_positions_count_from_one_and_include_eos() -> None:
    word = ("a", "b", "a")
    assert [holds(Mod(2, 1), word, n) for n in range(1, 5)] == [True, False, True, False]
    assert [holds(Mod(3, 0), word, n) for n in range(1, 5)] == [False, False, True, False]
    # at the EOS position N+1: mod(2,1) is "even length"
    assert [accepts(Mod(2, 1), "a" * n) for n in range(5)] == [True, False, True, False, True]
    assert all(accepts(Mod(1, 0), "ab"[: n % 3]) for n in range(4))


def test_aa_star_and_ab_star() -> None:
    aa = parse("H a & mod(2,1)")
    assert [w for w in ("", "a", "aa", "aaa", "aaaa", "ab") if accepts(aa, w)] == ["", "aa", "aaaa"]
    ab = parse("mod(2,1) & !P(mod(2,1) & b) & !P(mod(2,0) & a)")
    members = [w for w in ("", "a", "ab", "ba", "abab", "abba", "aba") if accepts(ab, w)]
    assert members == ["", "ab", "abab"]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("mod(2,1)", "LTL[MOD]"),
        ("P(a & mod(2,0))", "LTL[P,MOD]"),
        ("H a & mod(3,1)", "LTL[P,MOD]"),
        ("Y a & mod(2,0)", "LTL[Y,MOD]"),
        ("P(b & Y a) & mod(2,1)", "LTL[P,Y,MOD]"),
        ("start & mod(1,0)", "LTL[MOD]"),
        ("P(a & mod(2,0)) & F b", "LTL[P,F,MOD]"),
    ],
)
def test_fragment_labels(text: str, label: str) -> None:
    assert fragment(parse(text)) == label


def test_mod_must_be_allowed_explicitly() -> None:
    check_fragment(parse("P(a & mod(2,0))"), {"P", "MOD"})
    with pytest.raises(UnsupportedFragmentError, match="needs MOD"):
        check_fragment(parse("P(a & mod(2,0))"), {"P", "Y"})


@settings(max_examples=80)
@given(formulas(("a", "b"), FRAGMENTS["LTL[P,MOD]"], max_depth=3, max_mod=4))
def test_generated_ltl_p_mod_formulas_stay_in_their_fragment(formula: object) -> None:
    assert fragment(formula) in {"propositional", "LTL[P]", "LTL[MOD]", "LTL[P,MOD]"}  # type: ignore[arg-type]


def test_unknown_symbols_still_checked_beside_mod() -> None:
    with pytest.raises(AlphabetError):
        parse("mod(2,1) & z", Alphabet.parse("a,b"))
