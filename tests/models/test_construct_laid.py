"""Corollary 16.3's laid recognizers (`lay_on`): an M recognizer on a hybrid's M rows, the others
silent."""

from __future__ import annotations

import pytest
import torch

from expressivity.errors import ConfigError
from expressivity.extraction.agreement import check_agreement
from expressivity.layouts import parse_spelling
from expressivity.models.construct import construct_language, lay_on
from expressivity.models.construct.laid import least_layers, mixer_rows

#: Catalogue languages with an M construction of 1, 2, 4 and 5 layers (TOMITA-4: one layer
#: whose event is read from three conv taps, §16.1 "Window events").
LANGUAGES = ["LAST", "LT-1", "PT-2", "LDP-2", "TOMITA-4", "TOMITA-7"]
#: A formula whose M construction has 3 layers (P nested three deep).
THREE_DEEP = "P(b & P(a & P b))"


@pytest.mark.parametrize("layout", ["samba-1", "samba-2", "jamba-2", "jamba-4"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_laid_hybrid_agrees_with_the_dfa(language: str, layout: str) -> None:
    alone, source = construct_language(language, None, "M")
    laid = lay_on(alone, layout)
    config = laid.model.config
    assert config.layout == layout
    assert config.n_layers == least_layers(layout, alone.n_layers)
    assert mixer_rows(layout, config.n_layers) >= alone.n_layers
    assert check_agreement(laid.model, source.dfa, up_to=6, n_random=20).agrees
    # construct's own hybrid puts levels on attention rows too (Corollary 16.5): never deeper
    assert construct_language(language, None, layout)[0].n_layers <= config.n_layers


def test_the_other_rows_write_nothing_and_the_report_names_the_rows() -> None:
    built, _ = construct_language(THREE_DEEP, "ab", "M")  # 3 layers: P b, P(a & ..), P(b & ..)
    laid = lay_on(built, "jamba-2")  # M G M G M
    rows = parse_spelling("jamba-2").sized(laid.n_layers, 1)
    attention = [i for i, row in enumerate(rows) if row[0][0].kind != "M"]
    assert attention == [1, 3]
    for i in attention:
        assert all(float(p.detach().abs().sum()) == 0 for p in laid.model.blocks[i].parameters())
    assert [h.layer for h in laid.heads] == [0, 2, 4]
    assert "layer 5 M" in laid.written and "layer 3 M" in laid.written
    assert laid.coordinates == built.coordinates and laid.readout == built.readout
    tokens = torch.tensor([[0, 3, 3, 3, 4, 1, 2]])  # any word: the same logits row by row
    lengths = torch.tensor([5])
    torch.testing.assert_close(laid.model(tokens, lengths), built.model(tokens, lengths))


def test_laying_refuses_what_does_not_fit() -> None:
    built, _ = construct_language(THREE_DEEP, "ab", "M")
    with pytest.raises(ConfigError, match="take at least 5 layers"):
        lay_on(built, "jamba-2", 4)
    with pytest.raises(ConfigError, match="no M rows"):
        lay_on(built, "global")
    signed, _ = construct_language("PARITY", None, "MS")
    with pytest.raises(ConfigError, match="samba-k or jamba-n"):
        lay_on(signed, "jamba-2")


def test_a_hybrid_keeps_the_mixers_refusals() -> None:
    with pytest.raises(Exception, match="sign-flipping"):
        construct_language("PARITY", None, "jamba-2")
