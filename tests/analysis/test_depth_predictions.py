"""Predictions at the model's own number of layers (docs/theory.md §8): d*, the answer at
exactly n_layers, and the comparison judged against it beside the unbounded one."""

from __future__ import annotations

import pandas as pd

from expressivity.analysis.classes import predictions
from expressivity.analysis.comparison import agreement, predicted_vs_observed
from expressivity.analysis.schema import COMPARISON_COLUMNS, PREDICTION_COLUMNS


def test_a_language_that_needs_four_layers_is_no_at_two():
    table = predictions(["TOMITA-7", "LT-2", "LAST"], ["global", "hybrid-1", "local-1",
                                                        "global [5 layers]"], n_layers=2)
    assert dict(table.dtypes.astype(str)) == PREDICTION_COLUMNS
    row = {(r.language, r.layout): r for r in table.itertuples()}
    t7 = row[("TOMITA-7", "global")]
    assert (t7.predicted, t7.n_layers, t7.min_depth, t7.predicted_at_depth) == (
        "yes", 2, "4", "no")
    assert "not at depth 3" in t7.reason_at_depth
    deep = row[("TOMITA-7", "global [5 layers]")]  # the cell's own depth wins
    assert (deep.predicted, deep.n_layers, deep.predicted_at_depth) == ("yes", 5, "yes")
    lt2 = row[("LT-2", "hybrid-1")]
    assert (lt2.min_depth, lt2.predicted_at_depth) == ("2", "yes")
    last = row[("LAST", "global")]
    assert (last.predicted, last.min_depth, last.predicted_at_depth) == ("no", "∞", "no")


def test_without_a_depth_the_columns_are_empty():
    table = predictions(["LT-2"], ["hybrid-1"])
    assert table["n_layers"].isna().all() and table["predicted_at_depth"].isna().all()
    table = predictions(["LT-2"], ["hybrid-1"], {"hybrid-1": 1})  # per cell
    assert table.iloc[0]["predicted_at_depth"] == "no"  # Σ*abΣ* needs 2 layers


def test_the_comparison_judges_both_predictions():
    summary = pd.DataFrame({
        "language": ["TOMITA-7", "TOMITA-7", "LT-2"], "alphabet": ["", "", ""],
        "layout": ["global", "global [5 layers]", "hybrid-1"], "completed": [3, 3, 3],
        "recognized": [False, False, True],
    })
    theory = predictions([("TOMITA-7", ""), ("LT-2", "")], list(summary["layout"]), n_layers=2)
    table = predicted_vs_observed(summary, theory)
    assert dict(table.dtypes.astype(str)) == COMPARISON_COLUMNS
    got = {r.layout: (r.verdict, r.verdict_at_depth) for r in table.itertuples()}
    assert got["global"] == ("failed within it", "agree")  # needs 4 layers, has 2
    assert got["global [5 layers]"] == ("failed within it", "failed within it")
    assert got["hybrid-1"] == ("agree", "agree")
    assert (agreement(table).agree, agreement(table, at_depth=True).agree) == (1, 2)
