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
         "perfect_on_test": True, "untested_short": False, "max_accuracy": 1.0, "n_star": 500},
        {"language": "LT-2", "alphabet": "", "layout": "global", "recognized": False,
         "perfect_on_test": True, "untested_short": False, "max_accuracy": 1.0, "n_star": 500},
        {"language": "LT-2", "alphabet": "ab", "layout": "local-1", "recognized": False,
         "perfect_on_test": False, "untested_short": False, "max_accuracy": 0.6, "n_star": 40},
    ])
    stability = pd.DataFrame([
        {"language": "PT-2", "alphabet": "", "layout": "global", "runs": 3, "recognized_runs": 2,
         "perfect_runs": 3},
        {"language": "LT-2", "alphabet": "", "layout": "global", "runs": 3, "recognized_runs": 0,
         "perfect_runs": 1},
    ])
    table = papers_comparison(summary, stability, "tiny")
    cells = list(zip(table["paper"], table["language"], table["layout"], strict=True))
    assert cells == [("LC25", "PT-2", "global"), ("LC25", "LT-2", "global"),
                     ("LC26", "PT-2", "global"), ("LC26", "LT-2", "global")]
    # the papers' criterion (100 % test accuracy) decides ``ours`` and ``same``: LT-2 × global
    # is perfect on test strings (so "recognized", unlike [LC25]) though fooled by our pairs
    assert list(table["ours"]) == ["recognized"] * 4
    assert list(table["same"]) == [True, False, True, False]  # LT-2 is outside LTL[P]
    assert list(table["ours_strict"]) == ["recognized", "not recognized"] * 2
    assert list(table["perfect_runs"]) == ["3/3", "1/3", "3/3", "1/3"]
    assert list(table["recognized_runs"]) == ["2/3", "0/3", "2/3", "0/3"]
    assert set(table["budget"]) == {"tiny"}


def test_jslc26_cells_exist_and_theory_allows_their_reported_successes() -> None:
    # A reported N* = 500 for periodic RoPE is only possible where theory does not certify
    # that global+periodic fails: check the cells against our classifier.
    from expressivity.analysis.papers import JSLC26_REPORTED

    cells = [f"{layout}+{enc}(2)" if enc.startswith("periodic-") else f"{layout}+{enc}"
             for _, layout, enc, _, _, _ in JSLC26_REPORTED]
    theory = predictions(sorted({r[0] for r in JSLC26_REPORTED}), cells)
    verdict = {(r.language, r.layout): r.predicted for r in theory.itertuples()}
    for (language, _, enc, _, reported, _), cell in zip(JSLC26_REPORTED, cells, strict=True):
        if enc.startswith("periodic-"):
            assert verdict[(language, cell)] == "yes", (language, cell)  # QR, period 2
        else:
            assert verdict[(language, cell)] == "unknown"  # no theory for plain RoPE here
        assert reported


def test_positions_comparison_takes_the_statistic_over_completed_runs() -> None:
    runs = pd.DataFrame([
        {"language": "SUFFIX-a", "alphabet": None, "layout": "global+rope", "seed": s,
         "status": st, "n_star": n, "recognized": False}
        for s, st, n in [(0, "completed", 46), (1, "completed", 44), (2, "failed", 0)]
    ] + [
        {"language": "EVEN-a-2", "alphabet": None, "layout": "global+periodic-rope(2)",
         "seed": s, "status": "completed", "n_star": n, "recognized": s == 1}
        for s, n in [(1, 500), (0, 41)]
    ] + [
        {"language": "EVEN-a-2", "alphabet": None, "layout": "global", "seed": 0,
         "status": "completed", "n_star": 44, "recognized": False},
    ])
    from expressivity.analysis.papers import positions_comparison

    table = positions_comparison(runs, "standard").set_index(["language", "cell"])
    assert len(table) == 2  # NoPE is not a reported cell; (ab)* and others were not run
    rope = table.loc[("SUFFIX-a", "global+rope")]
    assert (rope["statistic"], rope["reported"], rope["ours"]) == ("mean N*", "45.5", "45")
    assert rope["per_run"] == "46, 44" and rope["recognized_runs"] == "0/2"
    periodic = table.loc[("EVEN-a-2", "global+periodic-rope(2)")]
    assert (periodic["ours"], periodic["per_run"]) == ("500", "41, 500")  # max, seed order
    assert periodic["recognized_runs"] == "1/2"


def test_a_reported_layout_is_matched_by_its_nope_cells_at_any_depth_or_scale() -> None:
    def cell(layout: str, perfect: bool) -> dict[str, object]:
        return {"language": "PT-2", "alphabet": "", "layout": layout, "recognized": perfect,
                "perfect_on_test": perfect, "untested_short": False, "max_accuracy": 1.0,
                "n_star": 500}

    summary = pd.DataFrame([cell("global+log-n [4 layers]", True), cell("global+rope", False),
                            cell("global [5 layers]", False)])
    table = papers_comparison(summary, pd.DataFrame(columns=["language", "alphabet", "layout",
                                                             "runs"]), "x")
    lc25 = table[table["paper"] == "LC25"]
    # RoPE is another class (docs/theory.md §7): never set beside the papers' NoPE cells
    assert list(lc25["layout"]) == ["global+log-n [4 layers]", "global [5 layers]"]
    assert list(lc25["same"]) == [True, False]
