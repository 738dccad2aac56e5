"""Recognition against the number of layers beside d* (`analysis.depth`)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from expressivity.analysis.classes import predictions
from expressivity.analysis.comparison import predicted_vs_observed
from expressivity.analysis.depth import depth_table, plot_recognition_vs_depth, thresholds


def _comparison(recognized: dict[str, bool]) -> pd.DataFrame:
    layouts = list(recognized)
    summary = pd.DataFrame({
        "language": ["TOMITA-7"] * len(layouts), "alphabet": [""] * len(layouts),
        "layout": layouts, "completed": [3] * len(layouts),
        "recognized": list(recognized.values()),
    })
    return predicted_vs_observed(summary, predictions([("TOMITA-7", "")], layouts, n_layers=2))


def test_threshold_at_d_star_and_below_it_flagged():
    cmp = _comparison({"global [1 layer]": False, "global": False, "global [3 layers]": False,
                       "global [4 layers]": True, "global [5 layers]": True})
    table = depth_table(cmp)
    assert list(table["n_layers"]) == [1, 2, 3, 4, 5] and set(table["layout"]) == {"global"}
    assert list(table["predicted_at_depth"]) == ["no", "no", "no", "yes", "yes"]
    t = thresholds(table).iloc[0]
    assert (t["min_depth"], t["least_recognized"], t["equals_min_depth"]) == ("4", 4, True)
    assert t["recognized_below_min_depth"] == ""
    assert isinstance(plot_recognition_vs_depth(table), Figure)
    cmp = _comparison({"global [3 layers]": True, "global [4 layers]": True})
    t = thresholds(depth_table(cmp)).iloc[0]
    assert t["recognized_below_min_depth"] == "3"
    assert t["equals_min_depth"] is not None and not t["equals_min_depth"]


def test_one_depth_per_cell_gives_no_thresholds():
    assert thresholds(depth_table(_comparison({"global": False}))).empty
