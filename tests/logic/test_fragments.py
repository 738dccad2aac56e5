"""AST features (depth, size, operators, hashing) and syntactic fragment labels."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.errors import UnsupportedFragmentError
from expressivity.logic import (
    check_fragment,
    conj,
    disj,
    fragment,
    fragment_of,
    parse,
    uses_only,
)
from expressivity.logic.syntax import TRUE, And, Formula, Or, Symbol
from expressivity.logic.temporal import Past, Yesterday
from tests.logic.strategies import FRAGMENTS, formulas


@pytest.mark.parametrize(
    ("text", "depth", "size", "operators"),
    [
        ("a", 0, 1, set()),
        ("!a & b", 0, 4, {"!", "&"}),
        ("P(b & Y a)", 2, 5, {"P", "&", "Y"}),
        ("Y b & Y Y a", 2, 6, {"&", "Y"}),
        ("Y^3 a | Y<=2 b", 1, 5, {"|", "Y^3", "Y<=2"}),
        ("a S (b U P c)", 3, 6, {"S", "U", "P"}),
        ("!P true | (Y b & P(a & !P true))", 2, 13, {"!", "P", "|", "&", "Y"}),
    ],
)
def test_depth_size_operators(text: str, depth: int, size: int, operators: set[str]) -> None:
    f = parse(text)
    assert f.depth == depth
    assert f.size == size
    assert f.operators == operators


def test_nodes_are_frozen_hashable_and_structurally_equal() -> None:
    f, g = parse("P(b & Y a)"), parse("P( b ∧ Y a )")
    assert f == g and hash(f) == hash(g) and f is not g
    assert len({f, g, parse("P(b & Y^2 a)")}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.arg = TRUE  # type: ignore[misc]
    assert parse("P a | Y a") != parse("Y a | P a")  # structural, not semantic


def test_subformulas_symbols_and_helpers() -> None:
    f = parse("P(b & Y a)")
    assert [str(s) for s in f.subformulas()] == ["b", "a", "Y a", "b & Y a", "P(b & Y a)"]
    assert f.symbols() == {"a", "b"}
    a, b, c = Symbol("a"), Symbol("b"), Symbol("c")
    assert conj(a, b, c) == And(And(a, b), c) and conj() == TRUE
    assert disj(a, b) == Or(a, b) and str(disj()) == "false"
    with pytest.raises(ValueError):
        Yesterday(a, 0)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("a & !b", "propositional"),
        ("start | eos", "propositional"),
        ("P a", "LTL[P]"),
        ("O a", "LTL[P]"),
        ("H a & start", "LTL[P]"),
        ("P(a & !P true)", "LTL[P]"),
        ("Y a", "LTL[Y]"),
        ("Y b & Y Y a", "LTL[Y]"),
        ("Y^3 a", "LTL[Y]"),
        ("Y<=1 a", "LTL[Y]"),
        ("Y<=2 a & start", "LTL[Y^{≤2}]"),
        ("Y<=2 a & Y<=3 b", "LTL[Y]"),
        ("Y<=2 a & Y b", "LTL[Y]"),
        ("P(b & Y a)", "LTL[P,Y]"),
        ("P(b & Y<=4 a) & H c", "LTL[P,Y^{≤4}]"),
        ("P(b & Y<=4 a) & Y^2 c", "LTL[P,Y]"),
        ("a S b", "LTL[S]"),
        ("a S b & Y<=3 c", "LTL[S]"),
        ("F a & G b", "LTL[F]"),
        ("X a | WX b | a U b", "LTL[U]"),
        ("F a & start", "LTL[P,F]"),
        ("P(a & !P b0 & !F(a | b1))", "LTL[P,F]"),
        ("P a & X b", "LTL[S,U]"),
        ("Y a & F b", "LTL[S,U]"),
        ("X a & start", "LTL[S,U]"),
        ("eos & Y a", "LTL[Y]"),
    ],
)
def test_fragment_labels(text: str, label: str) -> None:
    assert fragment(parse(text)) == label
    assert fragment_of(parse(text)).description


def test_fragment_record() -> None:
    info = fragment_of(parse("P a & Y^3 b & Y<=2 c & start & F eos"))
    assert info.temporal_operators == {"P", "Y^3", "Y<=2", "F"}
    assert info.families == {"P", "Y", "Y<=2", "F"}
    assert info.past_bounds == {2} and info.max_k == 3
    assert info.has_past and info.has_future and info.uses_start and info.uses_eos
    assert info.label == "LTL[S,U]"


def test_uses_only_follows_the_rewritings() -> None:
    f = parse("Y<=2 a & start")
    assert uses_only(f, {"Y<=2"}) and uses_only(f, ["Y^{≤2}"]) and uses_only(f, {"Y"})
    assert uses_only(f, {"S"}) and not uses_only(f, {"Y<=3"}) and not uses_only(f, {"P"})
    assert uses_only(parse("H a"), {"P"}) and uses_only(parse("P a"), {"H"})
    assert uses_only(parse("Y^5 a"), {"Y"}) and not uses_only(parse("Y^5 a"), {"Y<=5"})
    assert uses_only(parse("G a & WX b"), {"U"}) and not uses_only(parse("G a"), {"X"})
    assert not uses_only(parse("start"), set()) and uses_only(parse("eos & a"), set())
    assert not uses_only(parse("F start"), {"F"}) and uses_only(parse("F start"), {"F", "P"})
    with pytest.raises(UnsupportedFragmentError, match="unknown operator 'Q'"):
        uses_only(parse("a"), {"Q"})


def test_check_fragment_names_what_is_missing() -> None:
    check_fragment(parse("P(b & Y a)"), {"P", "Y"})
    with pytest.raises(UnsupportedFragmentError, match=r"needs X") as info:
        check_fragment(parse("P a & X b"), {"P", "Y"}, context="the type automaton")
    assert "LTL[S,U]" in str(info.value) and "the type automaton" in str(info.value)


@settings(max_examples=60)
@given(formulas(("a", "b"), FRAGMENTS["LTL[P,Y^{≤2}]"], max_depth=3))
def test_generated_fragment_formulas_stay_in_their_fragment(formula: Formula) -> None:
    assert uses_only(formula, {"P", "Y<=2"})
    assert fragment(formula) in {"propositional", "LTL[P]", "LTL[Y^{≤2}]", "LTL[P,Y^{≤2}]"}
    assert formula.depth <= 3


_PRESETS = {
    label: formulas(("a",), ops, max_depth=2, max_height=3) for label, ops in FRAGMENTS.items()
}


@settings(max_examples=60)
@given(st.data())
def test_fragment_presets_of_the_strategies(data: st.DataObject) -> None:
    label = data.draw(st.sampled_from(sorted(FRAGMENTS)))
    assert uses_only(data.draw(_PRESETS[label]), FRAGMENTS[label])


def test_past_is_the_once_operator_not_ltlf2dfa_past_release() -> None:
    assert parse("O a") == parse("P a") == Past(Symbol("a"))
