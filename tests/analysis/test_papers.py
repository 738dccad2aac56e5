"""The papers' reported cells beside a store's cells."""

from __future__ import annotations

import pandas as pd

from expressivity.analysis.classes import predictions
from expressivity.analysis.papers import REPORTED, papers_comparison


def test_reported_cells_are_the_cells_theory_decides_the_same_way() -> None:
    # Both papers report that experiment matched theory: every cell we list as reported must
    # carry the verdict our classifier proves or certifies for it.
    languages = sorted({language for _, language, _, _, _ in REPORTED})
    theory = predictions(languages, ["global", "local-1", "local-2", "local-4", "hybrid-1"])
    verdict = {(r.language, r.layout): r.predicted for r in theory.itertuples()}
    for _, language, layout, reported, _ in REPORTED:
        assert verdict[(language, layout)] == ("yes" if reported else "no"), (language, layout)


def test_comparison_counts_runs_and_skips_cells_not_run() -> None:
    summary = pd.DataFrame([
        {"language": "PT-2", "alphabet": "", "layout": "global", "recognized": True,
         "max_accuracy": 1.0, "n_star": 500},
        {"language": "LT-2", "alphabet": "", "layout": "global", "recognized": True,
         "max_accuracy": 1.0, "n_star": 500},
        {"language": "LT-2", "alphabet": "ab", "layout": "local-1", "recognized": False,
         "max_accuracy": 0.6, "n_star": 40},
    ])
    stability = pd.DataFrame([
        {"language": "PT-2", "alphabet": "", "layout": "global", "runs": 3, "recognized_runs": 2},
        {"language": "LT-2", "alphabet": "", "layout": "global", "runs": 3, "recognized_runs": 1},
    ])
    table = papers_comparison(summary, stability, "tiny")
    cells = list(zip(table["paper"], table["language"], table["layout"], strict=True))
    assert cells == [("LC25", "PT-2", "global"), ("LC25", "LT-2", "global"),
                     ("LC26", "PT-2", "global"), ("LC26", "LT-2", "global")]
    assert list(table["same"]) == [True, False, True, False]  # LT-2 is outside LTL[P]
    assert list(table["recognized_runs"]) == ["2/3", "1/3", "2/3", "1/3"]
    assert set(table["budget"]) == {"tiny"}
