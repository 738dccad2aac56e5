"""Tables on the hand-made store: every number checked against values computed by hand.

Outcomes (expressivity.analysis.example): P = 1.0 (N* 44), A = 0.975 (N* 42), C = 0.85 (N* 41),
B = 0.65 (N* 40); adversarial "+" = 1.0, "-" = 0.5 (the "adversarial" family 0/2, "hard" 2/2).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from expressivity.analysis.comparison import agreement, disagreements, predicted_vs_observed
from expressivity.analysis.schema import (
    CLASS_SUMMARY_COLUMNS,
    COMPARISON_COLUMNS,
    CURVE_COLUMNS,
    SUMMARY_COLUMNS,
)
from expressivity.analysis.tables import (
    adversarial_by_kind,
    language_keys,
    length_curves,
    matrix,
    summarize,
)


def _cell(table: pd.DataFrame, language: str, layout: str, alphabet: str = "") -> pd.Series:
    rows = table[
        (table["language"] == language)
        & (table["layout"] == layout)
        & (table["alphabet"] == alphabet)
    ]
    assert len(rows) == 1, (language, layout)
    return rows.iloc[0]


def test_summary_schema_and_cells(frames: dict) -> None:
    summary = summarize(frames["runs"])
    assert dict(summary.dtypes.astype(str)) == SUMMARY_COLUMNS
    assert len(summary) == 24
    assert summary[["language", "alphabet", "layout"]].duplicated().sum() == 0


def test_summary_mean_max_std_n_star(frames: dict) -> None:
    summary = summarize(frames["runs"])
    cell = _cell(summary, "SUFFIX-a", "hybrid-1")  # P+ and A-
    assert cell["runs"] == 2 and cell["completed"] == 2 and cell["failed"] == 0
    assert cell["mean_accuracy"] == pytest.approx((1.0 + 0.975) / 2)
    assert cell["max_accuracy"] == 1.0
    assert cell["std_accuracy"] == pytest.approx(0.025 / math.sqrt(2))
    assert cell["n_star"] == 44
    assert cell["adversarial_accuracy"] == pytest.approx(0.75)
    assert cell["perfect_on_test"] and cell["recognized"]
    cell = _cell(summary, "LT-2", "local-1")  # A- and C-
    assert cell["mean_accuracy"] == pytest.approx((0.975 + 0.85) / 2)
    assert cell["n_star"] == 42
    assert not cell["perfect_on_test"] and not cell["recognized"]


def test_recognized_needs_the_adversarial_set_too(frames: dict) -> None:
    cell = _cell(summarize(frames["runs"]), "PREFIX-a", "hybrid-1")  # P- and P-
    assert cell["perfect_on_test"]
    assert not cell["recognized"]
    assert cell["adversarial_accuracy"] == pytest.approx(0.5)


def test_failed_runs_are_counted_but_not_averaged(frames: dict) -> None:
    summary = summarize(frames["runs"])
    cell = _cell(summary, "PARITY", "global")  # B- and a failed run
    assert (cell["runs"], cell["completed"], cell["failed"]) == (2, 1, 1)
    assert cell["mean_accuracy"] == pytest.approx(0.65)
    assert math.isnan(cell["std_accuracy"])
    assert cell["n_star"] == 40
    empty = _cell(summary, "PARITY", "hybrid-2")  # both failed
    assert empty["completed"] == 0 and empty["failed"] == 2
    assert math.isnan(empty["mean_accuracy"]) and pd.isna(empty["n_star"])
    assert not empty["recognized"]


def test_alphabet_override_is_its_own_language(frames: dict) -> None:
    summary = summarize(frames["runs"])
    cell = _cell(summary, "RDP-1", "hybrid-1", alphabet="a,b0,b1")
    assert cell["recognized"] and cell["mean_accuracy"] == 1.0
    assert "RDP-1 over {a,b0,b1}" in matrix(summary, "max_accuracy").index


def test_order_follows_languages_then_layouts(frames: dict) -> None:
    order = [("CNT", ""), ("LT-2", "")]
    summary = summarize(frames["runs"], order)
    assert list(summary["language"][:7]) == ["CNT"] * 3 + ["LT-2"] * 4
    assert list(summary["layout"][3:7]) == ["global", "local-1", "hybrid-1", "hybrid-2"]


def test_matrix_is_language_by_layout(frames: dict) -> None:
    wide = matrix(summarize(frames["runs"]), "max_accuracy")
    assert wide.shape == (8, 4)
    assert list(wide.columns) == ["global", "local-1", "hybrid-1", "hybrid-2"]
    assert wide.loc["PREFIX-a", "global"] == 1.0
    assert pd.isna(wide.loc["SUFFIX-ab", "hybrid-1"])  # never run


def test_class_summary(report) -> None:  # type: ignore[no-untyped-def]
    table = report.class_summary
    assert dict(table.dtypes.astype(str)) == CLASS_SUMMARY_COLUMNS
    assert table["group"].iloc[0] == "LTL[Y]-only"
    row = table[(table["group"] == "LTL[Y]-only") & (table["layout"] == "local-1")].iloc[0]
    assert (row["languages"], row["recognized"], row["fraction_recognized"]) == (2, 2, 1.0)
    assert row["mean_accuracy"] == pytest.approx((1.0 + (1.0 + 0.975) / 2) / 2)
    row = table[(table["group"] == "LTL[Y]-only") & (table["layout"] == "global")].iloc[0]
    assert (row["languages"], row["recognized"]) == (2, 0)
    assert row["mean_accuracy"] == pytest.approx(((0.65 + 0.85) / 2 + 0.65) / 2)
    assert row["mean_n_star"] == pytest.approx(40.5)
    row = table[(table["group"] == "LTL[P,Y]-only") & (table["layout"] == "hybrid-1")].iloc[0]
    assert (row["languages"], row["recognized"]) == (2, 2)  # LT-2 and RDP-1 over {a,b0,b1}
    groups = set(table["group"])
    assert groups == {"LTL[Y]-only", "LTL[P]-only", "LTL[P,Y]-only",
                      "star-free outside LTL[P,Y]", "not star-free", "not regular"}


def test_predicted_vs_observed_verdicts(report) -> None:  # type: ignore[no-untyped-def]
    table = report.comparison
    assert dict(table.dtypes.astype(str)) == COMPARISON_COLUMNS
    verdict = {(r.language, r.alphabet, r.layout): r.verdict for r in table.itertuples()}
    assert verdict[("SUFFIX-a", "", "local-1")] == "agree"  # yes, recognized
    assert verdict[("SUFFIX-a", "", "global")] == "agree"  # no, not recognized
    assert verdict[("PREFIX-a", "", "hybrid-1")] == "failed within it"
    assert verdict[("DYCK-(1,2)", "", "hybrid-1")] == "learned beyond the prediction"
    assert verdict[("LT-2", "", "hybrid-2")] == "unknown prediction"
    assert verdict[("PARITY", "", "hybrid-2")] == "no completed runs"
    assert verdict[("CNT", "", "hybrid-1")] == "agree"  # not regular: predicted no
    assert verdict[("RDP-1", "a,b0,b1", "hybrid-1")] == "agree"
    stats = agreement(table)
    assert (stats.agree, stats.judged) == (20, 22)
    assert stats.fraction == pytest.approx(20 / 22)
    assert dict(stats.counts) == {
        "agree": 20, "learned beyond the prediction": 1, "failed within it": 1,
        "not tested on short words": 0, "unknown prediction": 1, "no completed runs": 1,
    }
    assert str(stats).startswith("20 of 22 cells agree (90.9 %)")
    assert list(stats.to_frame()["cells"]) == [20, 1, 1, 0, 1, 1]


def test_missing_predictions_are_unknown(frames: dict) -> None:
    summary = summarize(frames["runs"])
    empty = pd.DataFrame(columns=["language", "alphabet", "layout", "predicted", "reason"])
    table = predicted_vs_observed(summary, empty)
    assert set(table["verdict"]) == {"unknown prediction"}
    assert set(table["group"]) == {"unknown"}


def test_disagreements_explain_themselves(report) -> None:  # type: ignore[no-untyped-def]
    table = disagreements(report.comparison, report.summary)
    assert list(table["language"]) == ["PREFIX-a", "DYCK-(1,2)"]
    prefix, dyck = table.iloc[0], table.iloc[1]
    assert "adversarial" in prefix["note"] and prefix["perfect_on_test"]
    assert "finite tests" in dyck["note"] and dyck["n_star"] == 44
    assert "locally R-trivial" in dyck["theory"]


def test_length_curves(frames: dict) -> None:
    curves = length_curves(frames["lengths"], frames["runs"])
    assert dict(curves.dtypes.astype(str)) == CURVE_COLUMNS
    row = curves[(curves["language"] == "SUFFIX-a") & (curves["layout"] == "hybrid-1")
                 & (curves["length"] == 43)].iloc[0]
    assert (row["runs"], row["mean_accuracy"], row["min_accuracy"], row["max_accuracy"]) == (
        2, pytest.approx(0.95), pytest.approx(0.9), 1.0)
    parity = curves[(curves["language"] == "PARITY") & (curves["layout"] == "global")]
    assert list(parity["length"]) == [41, 42, 43, 44] and set(parity["runs"]) == {1}
    rdp = curves[curves["language"] == "RDP-1"]
    assert set(rdp["alphabet"]) == {"a,b0,b1"}


def test_adversarial_by_kind(frames: dict) -> None:
    table = adversarial_by_kind(frames["adversarial"], frames["runs"])
    pick = table[(table["language"] == "SUFFIX-a") & (table["layout"] == "hybrid-1")]
    by_kind = {r.kind: r for r in pick.itertuples()}
    assert by_kind["adversarial"].mean_accuracy == pytest.approx(0.5)
    assert by_kind["adversarial"].min_accuracy == 0.0
    assert by_kind["adversarial"].examples == 4
    assert by_kind["hard"].mean_accuracy == 1.0


def test_language_keys_fill_the_alphabet(frames: dict) -> None:
    keys = language_keys(frames["runs"])
    assert ("RDP-1", "a,b0,b1") in keys and ("LT-2", "") in keys and len(keys) == 8
