"""SSM cells are "yes at N layers" exactly where Theorem 16.1's recognizer has ≤ N (§16.1)."""

from __future__ import annotations

import pytest

from expressivity.analysis.classes import predictions
from expressivity.analysis.mixer_depth import construction_depth, pure_mixer
from expressivity.extraction.agreement import check_agreement
from expressivity.models.construct import construct_language

#: Catalogue languages of the table (experiments/table.toml) with and without a construction.
LANGUAGES = ["LAST", "FIRST", "LDP-2", "RDP-1", "DYCK-(1,1)-3", "PARITY", "TOMITA-4",
             "TOMITA-6"]


def test_only_pure_selective_mixers_have_a_construction_depth() -> None:
    assert pure_mixer("mamba") == "M" and pure_mixer("mamba-signed") == "MS"
    assert pure_mixer("s4d") is None and pure_mixer("samba-1") is None
    assert pure_mixer("jamba-2") is None and pure_mixer("global") is None
    assert pure_mixer("not a layout") is None
    assert construction_depth("LAST", "", "samba-1") is None


@pytest.mark.parametrize("layout", ["mamba", "mamba-signed"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_depth_is_that_of_a_recognizer_that_agrees_with_the_dfa(language: str,
                                                                    layout: str) -> None:
    depth = construction_depth(language, "", layout)
    if depth is None:  # no construction: the cell stays unknown at every depth
        with pytest.raises(Exception):  # noqa: B017 - the construction's own refusal
            construct_language(language, None, pure_mixer(layout))
        return
    built, source = construct_language(language, None, pure_mixer(layout))
    assert built.model.config.n_layers == depth
    up_to = 7 if source.dfa.n_symbols <= 2 else 4  # every word: at most a few thousand
    assert check_agreement(built.model, source.dfa, up_to=up_to, n_random=0).agrees


@pytest.mark.parametrize("layout", ["mamba", "mamba-signed"])
def test_cells_are_yes_at_their_depth_only_from_the_construction(layout: str) -> None:
    table = predictions(LANGUAGES, [layout], n_layers=2)
    for row in table.itertuples():
        depth = construction_depth(str(row.language), "", layout)
        if row.predicted == "yes" and depth is not None and depth <= 2:
            assert row.predicted_at_depth == "yes" and row.min_depth == f"≤{depth}"
            assert "Theorem 16.1" in str(row.reason_at_depth)
        elif row.predicted == "no":
            assert row.predicted_at_depth == "no"
        else:  # no lower bound for mixers: never "no at this depth"
            assert row.predicted_at_depth == "unknown"
