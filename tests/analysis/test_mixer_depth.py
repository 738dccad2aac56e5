"""SSM cells are "yes at N layers" exactly where Theorem 16.1's (M, MS) or 16.4's (SD)
recognizer has at most as many layers as the model has mixer rows (§16.1, §16.4, §16.5)."""

from __future__ import annotations

import pytest

from expressivity.analysis.classes import predictions
from expressivity.analysis.mixer_depth import (
    constructed_mixer,
    construction_depth,
    mixer_rows,
    pure_mixer,
    selective_mixer,
)
from expressivity.extraction.agreement import check_agreement
from expressivity.models.construct import construct_language, lay_on

#: Catalogue languages of the table (experiments/table.toml) with and without a construction.
LANGUAGES = ["LAST", "FIRST", "LDP-2", "RDP-1", "DYCK-(1,1)-3", "PARITY", "TOMITA-4",
             "TOMITA-6"]


def test_selective_mixers_and_their_hybrids_have_a_construction_depth() -> None:
    assert pure_mixer("mamba") == "M" and pure_mixer("mamba-signed") == "MS"
    assert pure_mixer("s4d") == "SD" and pure_mixer("SDC") == "SDC"
    assert pure_mixer("deltanet") is None and pure_mixer("samba-1") is None
    assert pure_mixer("jamba-2") is None and pure_mixer("global") is None
    assert pure_mixer("not a layout") is None
    assert selective_mixer("samba-1") == selective_mixer("jamba-2") == "M"
    assert selective_mixer("s4d") is selective_mixer("global") is None
    assert selective_mixer("2xM,2xL1") is None  # a custom hybrid: not claimed
    assert constructed_mixer("s4d") == "SD" and constructed_mixer("jamba-2") == "M"
    assert constructed_mixer("deltanet") is constructed_mixer("global") is None
    assert construction_depth("LAST", "", "samba-1") == construction_depth("LAST", "", "mamba")
    assert construction_depth("LAST", "", "s4d") == 1  # Y b: one delay channel
    assert construction_depth("RDP-1", "", "s4d") is None  # its formula reads the future
    assert construction_depth("LAST", "", "deltanet") is None


def test_mixer_rows_count_the_rows_whose_every_head_is_the_mixer() -> None:
    assert [mixer_rows("mamba", n) for n in (1, 2, 3)] == [1, 2, 3]
    assert [mixer_rows("samba-1", n) for n in (2, 3, 4)] == [1, 2, 2]  # M L1 M L1 ...
    assert [mixer_rows("jamba-2", n) for n in (1, 2, 3, 4)] == [0, 1, 2, 2]  # M G M G; 1: no fit
    assert mixer_rows("jamba-4", 4) == 3 and mixer_rows("s4d", 3) == 3  # M M G M
    assert mixer_rows("deltanet", 3) == 0


@pytest.mark.parametrize(("layout", "layers"), [("samba-1", 2), ("jamba-2", 2), ("jamba-2", 3)])
def test_a_hybrid_is_yes_at_a_depth_where_its_rows_fit_the_recognizer(layout: str,
                                                                       layers: int) -> None:
    """Corollary 16.5: each level of the M recognizer on the first row that computes it."""
    table = predictions(LANGUAGES, [layout], n_layers=layers)
    yes = 0
    for row in table.itertuples():
        if row.predicted == "yes" and construction_depth(str(row.language), "", layout):
            built, source = construct_language(str(row.language), None, layout)
            if built.n_layers <= layers:
                assert row.predicted_at_depth == "yes" and row.min_depth == f"≤{built.n_layers}"
                assert "Corollary 16.5" in str(row.reason_at_depth)
                assert check_agreement(built.model, source.dfa, up_to=6, n_random=20).agrees
                yes += 1
                continue
        assert row.predicted_at_depth == ("no" if row.predicted == "no" else "unknown")
    assert yes >= 3  # LAST, FIRST, TOMITA-4: one level on the first M row


def test_jamba_reads_a_p_level_on_its_global_row() -> None:
    """PT-2's recognizer has two levels; jamba-2's G row computes the second (P), so 2 layers
    suffice where laying it on M rows alone (Corollary 16.3) takes 3."""
    table = predictions(["PT-2"], ["jamba-2", "samba-1"], n_layers=2).set_index("layout")
    assert table.loc["jamba-2", "predicted_at_depth"] == "yes"
    assert table.loc["samba-1", "predicted_at_depth"] == "unknown"  # its L1 row computes Y only
    built, _ = construct_language("PT-2", None, "M")
    assert lay_on(built, "jamba-2").n_layers == 3


@pytest.mark.parametrize("layout", ["mamba", "mamba-signed", "s4d"])
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


@pytest.mark.parametrize("layout", ["mamba", "mamba-signed", "s4d"])
def test_cells_are_yes_at_their_depth_only_from_the_construction(layout: str) -> None:
    table = predictions(LANGUAGES, [layout], n_layers=2)
    for row in table.itertuples():
        depth = construction_depth(str(row.language), "", layout)
        if row.predicted == "yes" and depth is not None and depth <= 2:
            assert row.predicted_at_depth == "yes" and row.min_depth == f"≤{depth}"
            theorem = "Theorem 16.4" if layout == "s4d" else "Theorem 16.1"
            assert theorem in str(row.reason_at_depth)
        elif row.predicted == "no":
            assert row.predicted_at_depth == "no"
        else:  # no lower bound for mixers: never "no at this depth"
            assert row.predicted_at_depth == "unknown"
