"""What the theory says per language: groups, smallest classes and predicted layouts."""

from __future__ import annotations

import pytest

from expressivity.analysis.classes import (
    DIAGRAM,
    class_group,
    language_classes,
    predictions,
    smallest_classes,
    theory_layout,
)
from expressivity.analysis.schema import CLASS_COLUMNS, PREDICTION_COLUMNS


@pytest.mark.parametrize(
    ("layout", "theory"),
    [
        ("global", "global"),
        ("local-1", "local-1"),
        ("local-04", "local-4"),
        ("hybrid-2", "hybrid-2"),
        ("hybrid-2:g=3", "hybrid-2"),  # the head split does not change the logic
        ("local-2:g=1", None),
        ("interleaved-1", "interleaved-1"),  # decided on its operator set (issue 17)
        ("4xG,4xL1", "4xG,4xL1"),
        ("L3+X1", None),  # not a layout spelling
    ],
)
def test_theory_layout(layout: str, theory: str | None) -> None:
    assert theory_layout(layout) == theory


def test_groups_of_the_papers_languages() -> None:
    table = language_classes(
        ["SUFFIX-a", "PREFIX-a", "LT-2", "RDP-1", ("RDP-1", "a,b0,b1"), "DYCK-(1,2)",
         "PARITY", "CNT"]
    )
    assert dict(table.dtypes.astype(str)) == CLASS_COLUMNS
    group = {(r.language, r.alphabet): r.group for r in table.itertuples()}
    assert group == {
        ("SUFFIX-a", ""): "LTL[Y]-only",
        ("PREFIX-a", ""): "LTL[P]-only",
        ("LT-2", ""): "LTL[P,Y]-only",
        ("RDP-1", ""): "star-free outside LTL[P,Y]",  # over {a,b0,b1,c}
        ("RDP-1", "a,b0,b1"): "LTL[P,Y]-only",  # the alphabet decides (docs/theory.md §5)
        ("DYCK-(1,2)", ""): "star-free outside LTL[P,Y]",
        ("PARITY", ""): "not star-free",
        ("CNT", ""): "not regular",
    }
    smallest = {(r.language, r.alphabet): r.smallest for r in table.itertuples()}
    assert smallest[("SUFFIX-a", "")] == "LTL[Y]"
    assert smallest[("PARITY", "")] == "regular"
    assert smallest[("CNT", "")] == "not regular"


def test_unclassifiable_text_is_unknown() -> None:
    row = language_classes(["P(a & Y b)"]).iloc[0]  # a formula without an alphabet
    assert row["group"] == "unknown" and row["smallest"] == "unknown"
    assert predictions(["P(a & Y b)"], ["global"]).iloc[0]["predicted"] == "unknown"


def test_class_group_of_both_global_and_local() -> None:
    row = {"regular": True, "definite": True, "r_trivial": True, "locally_r_trivial": True,
           "aperiodic": True}
    assert class_group(row) == "LTL[P] ∩ LTL[Y]"
    assert smallest_classes({**row, "regular": True}) == ["LTL[Y]", "LTL[P]"]


def test_diagram_is_a_hasse_diagram_of_known_columns() -> None:
    assert {col for col, _, _ in DIAGRAM.values()} <= set(CLASS_COLUMNS)
    assert DIAGRAM["regular"][2] == ()


def test_predictions_follow_classify() -> None:
    table = predictions(["SUFFIX-a", "LT-2", "CNT"], ["global", "local-1", "hybrid-1",
                                                      "hybrid-2", "block-4"])
    assert dict(table.dtypes.astype(str)) == PREDICTION_COLUMNS
    got = {(r.language, r.layout): r.predicted for r in table.itertuples()}
    assert got[("SUFFIX-a", "local-1")] == "yes"
    assert got[("SUFFIX-a", "global")] == "no"
    assert got[("SUFFIX-a", "hybrid-2")] == "no"  # Σ*a is outside LTL[P,Y^≤k] for k ≥ 2
    assert got[("LT-2", "hybrid-1")] == "yes"
    assert got[("LT-2", "block-4")] == "no"  # aab and ε share their block-4 type at every depth
    assert {got[("CNT", x)] for x in ("global", "local-1", "hybrid-1")} == {"no"}


def test_classes_re_exports_each_name_from_its_home() -> None:
    """`analysis.classes` gathers the names of `class_membership`, `layout_theory` and
    `prediction_table`: the same objects, so old imports see what the homes hold."""
    from expressivity.analysis import class_membership, classes, layout_theory, prediction_table

    homes = (class_membership, layout_theory, prediction_table)
    for name in classes.__all__:
        assert [getattr(h, name) for h in homes if name in h.__all__] == [getattr(classes, name)]
