"""Corollary 16.5: an M plan on a hybrid's rows, G rows computing P levels, L1 rows Y levels."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.errors import ConfigError
from expressivity.extraction.agreement import check_agreement
from expressivity.logic.parser import parse
from expressivity.logic.syntax import Formula
from expressivity.models.construct import construct, construct_language
from expressivity.models.construct.hybrid import (
    assign_rows,
    build_hybrid_model,
    hybrid_layers,
    row_kinds,
)
from expressivity.models.construct.mixer_plan import plan_formula
from tests.logic.strategies import formulas
from tests.models.construct.agree import built_agrees_on_short_words

AB = Alphabet(("a", "b"))


def test_row_kinds_read_the_presets() -> None:
    assert row_kinds("jamba-2", 4) == ["M", "G", "M", "G"]
    assert row_kinds("samba-1", 3) == ["M", "L1", "M"]
    assert row_kinds("samba-2", 3) == ["M", "", "M"]  # a 2-local row reads no one position
    assert row_kinds("jamba-4", 3) == ["M", "M", "G"] and row_kinds("jamba-4", 2) == []


def test_each_level_goes_on_the_first_row_that_computes_it() -> None:
    pt2 = plan_formula(parse("P(b & P a)", AB), AB, signed=False)  # P a, then P(b & P a)
    assert assign_rows(pt2, ["M", "G"]) == [0, 1]
    assert assign_rows(pt2, ["M", "L1", "M"]) == [0, 2]  # Y rows cannot compute P
    assert assign_rows(pt2, ["M", "L1"]) is None
    since = plan_formula(parse("P(b & (a S b))", AB), AB, signed=False)
    assert assign_rows(since, ["M", "G"]) == [0, 1]
    assert assign_rows(plan_formula(parse("(a S b) & P(a S b)", AB), AB, signed=False),
                       ["G", "M", "G"]) == [1, 2]  # S needs an M row
    yesterday = plan_formula(parse("Y(a & P b)", AB), AB, signed=False)
    assert assign_rows(yesterday, ["M", "L1"]) == [0, 1]
    assert assign_rows(yesterday, ["M", "G", "M"]) == [0, 2]
    assert hybrid_layers(pt2, "jamba-2") == 2 and hybrid_layers(pt2, "samba-1") == 3
    assert hybrid_layers(yesterday, "samba-1") == 2 and hybrid_layers(yesterday, "jamba-2") == 3


@pytest.mark.parametrize(("language", "layout", "layers", "pattern"), [
    ("PT-2", "jamba-2", 2, "G"), ("LDP-1", "jamba-2", 2, "G"), ("RDP-1-3", "jamba-2", 2, "G"),
    ("LDP-2", "jamba-2", 5, "G"), ("TOMITA-7", "jamba-2", 4, "G"), ("FIRST", "samba-1", 2, "M"),
    ("PT-2", "samba-1", 3, "M"),
])
@pytest.mark.parametrize("scale", ["none", "log-n"])
def test_catalogue_languages_on_their_least_hybrid_agree_with_the_dfa(
        language: str, layout: str, layers: int, pattern: str, scale: str) -> None:
    built, source = construct_language(language, None, layout, attention_scale=scale)
    assert built.model.config.layout == layout and built.n_layers == layers
    assert pattern in {h.pattern for h in built.heads}
    up_to = 7 if source.dfa.n_symbols <= 2 else 4
    check = check_agreement(built.model, source.dfa, up_to=up_to, n_random=24,
                            max_length=1200, seed=11)
    assert check.agrees, check


def test_a_y_level_on_a_one_local_row() -> None:
    built, source = construct_language("Y(a & P b)", "a,b", "samba-1")
    assert built.n_layers == 2 and {h.pattern for h in built.heads} == {"M", "L1"}
    assert check_agreement(built.model, source.dfa, up_to=8, n_random=16, max_length=600,
                           seed=2).agrees


def test_the_p_heads_rest_on_their_sharpness() -> None:
    """λ = 0.5 gives one satisfying key among many too little weight: the G row must read it."""
    built, source = construct_language("PT-2", None, "jamba-2", sharpness=0.5)
    assert not check_agreement(built.model, source.dfa, up_to=6, n_random=32, max_length=400,
                               seed=3).agrees


def test_too_few_layers_are_refused_with_the_fix() -> None:
    plan = plan_formula(parse("P(b & P a)", AB), AB, signed=False)
    with pytest.raises(ConfigError, match="take more layers"):
        build_hybrid_model(plan, "samba-1", 2)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(phi=formulas(("a", "b"), ("P", "H", "Y", "S"), max_depth=3, max_height=4),
       layout=st.sampled_from(["jamba-2", "samba-1"]))
def test_random_past_formulas_on_hybrids_agree_on_every_short_word(phi: Formula,
                                                                   layout: str) -> None:
    assert construct(phi, AB, layout).model.config.layout == layout
    assert built_agrees_on_short_words(phi, AB, layout, 6), phi
