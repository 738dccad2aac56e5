"""`Report`: every table of a results store as tidy frames, computed once (`build_report`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from expressivity.analysis.comparison import agreement
from expressivity.analysis.export import format_number
from expressivity.analysis.tables import matrix

if TYPE_CHECKING:
    from expressivity.models.layouts import Layout

__all__ = ["Report"]


@dataclass(frozen=True)
class Report:
    """Every table of a results store (tidy frames), computed once; figures are drawn from it."""

    runs: pd.DataFrame
    summary: pd.DataFrame
    classes: pd.DataFrame
    class_summary: pd.DataFrame
    comparison: pd.DataFrame
    disagreements: pd.DataFrame
    curves: pd.DataFrame
    adversarial: pd.DataFrame
    catalogue_classes: pd.DataFrame
    masks: dict[str, Layout] = field(default_factory=dict)  # layout name → parsed, at run size
    stability: pd.DataFrame = field(default_factory=pd.DataFrame)  # verdict of every run by seed
    history: pd.DataFrame = field(default_factory=pd.DataFrame)  # validation curves of every run
    papers: pd.DataFrame = field(default_factory=pd.DataFrame)  # [LC25]/[LC26] cells beside ours
    positions: pd.DataFrame = field(default_factory=pd.DataFrame)  # [JSLC26] numbers beside ours
    layouts: tuple[str, ...] = ()  # the sweep specs' layout axis: column order of every figure

    def tables(self) -> dict[str, tuple[pd.DataFrame, str]]:
        """Table name → (frame, caption), in the order they are written."""
        stats = agreement(self.comparison)
        recognition = matrix(self.summary.assign(cell=[
            ("✓ " if r else "") + ("—" if pd.isna(a) else format_number(float(a)))
            for r, a in zip(self.summary["recognized"], self.summary["max_accuracy"], strict=True)
        ]), "cell", self.layouts)
        tables = {
            "summary": (self.summary, "Language × layout: test accuracy over runs, N*, "
                        "adversarial accuracy and recognition"),
            "recognition_matrix": (recognition, "Max test accuracy; ✓ = recognized (some run "
                                   "perfect on the test and adversarial sets)"),
            "class_summary": (self.class_summary, "Recognition by class group × layout"),
            "predicted_vs_observed": (self.comparison, f"Theory vs experiment: {stats}"),
            "verdict_matrix": (matrix(self.comparison, "verdict", self.layouts),
                               "Theory vs experiment"),
            "agreement": (stats.to_frame(), f"TheoryAgreement: {stats}"),
            "disagreements": (self.disagreements, "Where theory and experiment disagree"),
            "seed_stability": (self.stability, "Verdict of every run of a cell in seed order "
                               "(✓ recognized, ✗ not); stable = all runs agree"),
            "papers": (self.papers, "The cells whose outcome [LC25]/[LC26] state (as a pattern; "
                       "analysis.papers) beside ours, at our budget"),
            "classes": (self.classes, "Class memberships of the languages run"),
            "accuracy_by_length": (self.curves, "Accuracy per test length over runs"),
            "adversarial_by_kind": (self.adversarial, "Accuracy per adversarial family"),
        }
        if not self.positions.empty:  # only a store with positional-encoding cells
            tables["papers_positions"] = (self.positions, "N* that [JSLC26] reports (as "
                                          "quoted in issue 18) beside ours, at our budget")
        return tables
