"""The honest split: proven-yes learned, certified-no held, unknown learned, both criteria."""

from __future__ import annotations

import pandas as pd

from expressivity.analysis.comparison import predicted_vs_observed
from expressivity.analysis.recall import (
    RECALL_COLUMNS,
    honest_split,
    recall_by_group,
    recall_table,
)


def _cell(language: str, layout: str, predicted: str, group: str, *, ours: bool = False,
          papers: bool = False, untested: bool = False, completed: int = 3) -> dict[str, object]:
    return {"language": language, "alphabet": "", "group": group, "layout": layout,
            "predicted": predicted, "observed": ours, "papers_observed": papers,
            "untested_short": untested, "completed": completed, "verdict": "", "reason": ""}


COMPARISON = pd.DataFrame([
    _cell("PREFIX-a", "global", "yes", "LTL[P]-only", ours=True, papers=True),
    _cell("PT-2", "global", "yes", "LTL[P]-only", papers=True),  # fooled by adversarial pairs
    _cell("LT-1", "global", "yes", "LTL[P]-only", papers=True, untested=True),  # old record
    _cell("SUFFIX-a", "global", "no", "LTL[Y]-only"),
    _cell("EVEN-a", "global", "no", "not star-free", papers=True, untested=True),
    _cell("LT-2", "global", "no", "LTL[P,Y]-only", papers=True),
    _cell("SUFFIX-a", "local-1", "yes", "LTL[Y]-only", ours=True, papers=True),
    _cell("X", "local-1", "unknown", "unknown", ours=True, papers=True),
    _cell("Y", "local-1", "yes", "LTL[Y]-only", completed=0),  # no completed run: left out
])


def test_recall_counts_each_criterion_per_layout_and_class() -> None:
    table = recall_table(COMPARISON)
    assert dict(table.dtypes.astype(str)) == RECALL_COLUMNS
    by = {(r.layout, r.group): r for r in table.itertuples()}
    g = by[("global", "all")]
    assert (g.yes_cells, g.yes_learned, g.yes_learned_papers, g.yes_untested) == (3, 1, 3, 1)
    assert (g.no_cells, g.no_held, g.no_held_papers, g.no_untested) == (3, 2, 1, 1)
    p = by[("global", "LTL[P]-only")]
    assert (p.yes_cells, p.yes_learned) == (3, 1)
    local = by[("local-1", "all")]
    assert (local.yes_cells, local.yes_learned, local.unknown_cells, local.unknown_learned) == (
        1, 1, 1, 1)
    total = by[("all", "all")]
    assert (total.yes_cells, total.yes_learned, total.no_cells) == (4, 2, 3)
    assert list(table["layout"])[-1] == "all"


def test_recall_per_class_group_sums_the_layouts_of_each_group() -> None:
    table = recall_by_group(COMPARISON)
    assert dict(table.dtypes.astype(str)) == RECALL_COLUMNS
    assert set(table["layout"]) == {"all"}
    by = {r.group: r for r in table.itertuples()}
    assert list(by) == ["LTL[Y]-only", "LTL[P]-only", "LTL[P,Y]-only", "not star-free",
                        "unknown", "all"]  # report order; the cell without runs is left out
    y = by["LTL[Y]-only"]  # SUFFIX-a: no under global (held), yes under local-1 (learned)
    assert (y.yes_cells, y.yes_learned, y.no_cells, y.no_held) == (1, 1, 1, 1)
    p = by["LTL[P]-only"]
    assert (p.yes_cells, p.yes_learned, p.yes_learned_papers, p.yes_untested) == (3, 1, 3, 1)
    assert (by["LTL[P,Y]-only"].no_held, by["LTL[P,Y]-only"].no_held_papers) == (1, 0)
    for column in RECALL_COLUMNS:  # the groups add up to the whole table's row
        if column not in ("layout", "group"):
            parts = sum(int(getattr(r, column)) for g, r in by.items() if g != "all")
            assert parts == int(getattr(by["all"], column)) == honest_split(COMPARISON)[column]


def test_the_headline_names_both_criteria_and_the_untested_cells() -> None:
    split = honest_split(COMPARISON)
    assert split["yes_learned"] == 2 and split["yes_learned_papers"] == 4
    text = str(split)
    assert text.startswith("proven-yes cells learned 2/4 (50 %) by our criterion, 4/4 (100 %) "
                           "by the papers'; certified-no cells held 2/3 (67 %) by ours, "
                           "1/3 (33 %) by the papers'")
    assert "1 proven-yes and 1 certified-no cells not tested on short words" in text
    assert str(honest_split(COMPARISON.iloc[:0])) == "no cell with completed runs"


def test_untested_cells_are_their_own_verdict() -> None:
    summary = pd.DataFrame([
        {"language": "PREFIX-a", "alphabet": "", "layout": "global", "completed": 1,
         "recognized": False, "perfect_on_test": True, "untested_short": True},
        {"language": "PREFIX-a", "alphabet": "", "layout": "local-1", "completed": 1,
         "recognized": False, "perfect_on_test": False, "untested_short": False},
    ])
    predicted = pd.DataFrame([
        {"language": "PREFIX-a", "alphabet": "", "layout": layout, "predicted": p, "reason": ""}
        for layout, p in (("global", "yes"), ("local-1", "no"))])
    table = predicted_vs_observed(summary, predicted)
    assert list(table["verdict"]) == ["not tested on short words", "agree"]
    assert list(table["papers_observed"]) == [True, False]


def test_the_figures_readme_leads_with_the_honest_split(report) -> None:  # type: ignore[no-untyped-def]
    from expressivity.analysis.provenance import Provenance
    from expressivity.analysis.readme import render_readme

    prov = Provenance(command="x", created="now", git_commit="c", git_dirty=False,
                      toolkit_version="v", store={"path": "s", "runs": 1, "completed": 1,
                                                  "runs_digest": "d", "sweeps": []},
                      machine={})
    text = render_readme(report, prov, [], ["png"])
    assert f"**{honest_split(report.comparison)}.**" in text
    assert "proven-yes learned (ours)" in text and "max test accuracy 100 %" in text
    assert "recall" in report.tables()


def test_cells_fall_into_architecture_families() -> None:
    from expressivity.analysis.recall import cell_family

    assert cell_family("global+log-n [4 layers]") == "causal attention"
    assert cell_family("longformer-2-1") == "causal attention"
    assert cell_family("window-1 @cls") == cell_family("full") == "encoder"
    assert cell_family("strided-2") == "encoder"  # the Sparse Transformer's heads (§13)
    assert cell_family("samba-1") == cell_family("mamba") == "state space"


def test_the_family_split_counts_per_family_and_at_the_models_depth() -> None:
    from expressivity.analysis.recall import family_recall_table

    rows = [_cell("PREFIX-a", "global [2 layers]", "yes", "LTL[P]-only", ours=True),
            _cell("TOMITA-7", "global [2 layers]", "yes", "LTL[P]-only"),  # needs 4 layers
            _cell("PREFIX-a", "window-1 @cls", "yes", "LTL[P]-only"),
            _cell("PARITY", "mamba-signed", "yes", "not star-free", ours=True)]
    comparison = pd.DataFrame(rows).assign(predicted_at_depth=["yes", "no", "yes", "unknown"])
    unbounded = family_recall_table(comparison).set_index(["layout", "group"])
    assert unbounded.loc[("causal attention", "all"), "yes_cells"] == 2
    assert unbounded.loc[("causal attention", "all"), "yes_learned"] == 1
    assert unbounded.loc[("encoder", "all"), "yes_cells"] == 1
    assert unbounded.loc[("state space", "not star-free"), "yes_learned"] == 1
    assert unbounded.loc[("all", "all"), "yes_cells"] == 4
    deep = family_recall_table(comparison, at_depth=True).set_index(["layout", "group"])
    assert deep.loc[("causal attention", "all"), ["yes_cells", "no_cells", "no_held"]].tolist() \
        == [1, 1, 1]  # TOMITA-7 is "no at depth 2", and held
    assert deep.loc[("state space", "all"), ["yes_cells", "unknown_cells"]].tolist() == [0, 1]
    assert str(honest_split(comparison, at_depth=True)).startswith(
        "proven-yes cells learned 1/2 (50 %)")


def test_a_only_certificates_are_counted_apart_and_at_their_depth() -> None:
    from expressivity.analysis.encoder_predictions import ANY_PRECISION, ONLY_A
    from expressivity.analysis.recall import family_recall_table

    def no(language: str, reason: str, ours: bool, at_depth: str = "no",
           reason_at_depth: str = "") -> dict[str, object]:
        return {**_cell(language, "window-1 @cls", "no", "LTL[P]-only", ours=ours, papers=ours),
                "reason": reason, "predicted_at_depth": at_depth,
                "reason_at_depth": reason_at_depth}

    comparison = pd.DataFrame([
        no("FIRST", f"... {ONLY_A}: with multiplicities ...", ours=True),  # beaten: A only
        no("PT-2", f"... {ONLY_A}: with multiplicities ...", ours=False),
        no("LT-1", f"... {ANY_PRECISION} after 2 layers", ours=False),
        no("LT-2", "unbounded: unknown", ours=True, at_depth="no",
           reason_at_depth=f"at 2 layers: {ONLY_A}: ..."),
    ]).assign(predicted=["no", "no", "no", "unknown"])
    row = recall_table(comparison).iloc[-1]
    assert (row.no_cells, row.no_held, row.no_a_only_cells, row.no_a_only_held) == (3, 2, 2, 1)
    split = honest_split(comparison)
    assert ("certified-no cells held 2/3 (67 %) by ours (of them relative to reading model A "
            "only: 1/2), 2/3 (67 %) by the papers'") in str(split)
    deep = family_recall_table(comparison, at_depth=True).iloc[-1]
    assert (deep.no_cells, deep.no_held, deep.no_a_only_cells, deep.no_a_only_held) == (
        4, 2, 1, 0)  # at depth: LT-2's no is the A-only one, and a run beat it
    assert "A only" not in str(honest_split(COMPARISON))  # no such cell: nothing said
