"""`Report`: every table of a results store as tidy frames, computed once (`build_report`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from expressivity.analysis.comparison import agreement
from expressivity.analysis.depth import thresholds
from expressivity.analysis.diagnosis import MECHANISMS, failure_table
from expressivity.analysis.export import format_number
from expressivity.analysis.open_cells import unknown_learned
from expressivity.analysis.recall import (
    OURS,
    PAPERS,
    cell_family,
    family_recall_table,
    honest_split,
    recall_table,
)
from expressivity.analysis.seed_results import seed_results
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
    plateau: pd.DataFrame = field(default_factory=pd.DataFrame)  # runs the plateau rule stopped
    levers: pd.DataFrame = field(default_factory=pd.DataFrame)  # recall per lever (ablations)
    lever_lengths: pd.DataFrame = field(default_factory=pd.DataFrame)  # accuracy per length bin
    lever_pairs: pd.DataFrame = field(default_factory=pd.DataFrame)  # levers cell by cell
    rules: pd.DataFrame = field(default_factory=pd.DataFrame)  # the sweeps' [rule]s judged
    layouts: tuple[str, ...] = ()  # the sweep specs' layout axis: column order of every figure
    depth: pd.DataFrame = field(default_factory=pd.DataFrame)  # recognition per n_layers, d*
    recorded: bool = False  # the predictions were read back (`build_report`), not decided now
    diagnoses: pd.DataFrame = field(default_factory=pd.DataFrame)  # missed cells' mechanisms

    def tables(self) -> dict[str, tuple[pd.DataFrame, str]]:
        """Table name → (frame, caption), in the order they are written."""
        stats = agreement(self.comparison)
        at_depth = agreement(self.comparison, at_depth=True)
        untested = (self.summary["untested_short"].fillna(False) if "untested_short"
                    in self.summary.columns else pd.Series(False, index=self.summary.index))
        recognition = matrix(self.summary.assign(cell=[
            ("✓ " if r else "? " if u else "") + ("—" if pd.isna(a) else format_number(float(a)))
            for r, u, a in zip(self.summary["recognized"], untested, self.summary["max_accuracy"],
                               strict=True)
        ]), "cell", self.layouts)
        tables = {
            "summary": (self.summary, "Language × layout: test accuracy over runs, N*, "
                        "adversarial accuracy and recognition"),
            "recognition_matrix": (recognition, "Max test accuracy; ✓ = recognized (some run "
                                   "perfect on the test and adversarial sets and the short "
                                   "words); ? = perfect on test and adversarial sets, not "
                                   "tested on short words"),
            "recall": (recall_table(self.comparison), f"Per layout and class: proven-yes cells "
                       f"learned, certified-no cells held, unknown cells learned, by {OURS} and "
                       f"by the {PAPERS}: {honest_split(self.comparison)}"),
            "class_summary": (self.class_summary, "Recognition by class group × layout"),
            "predicted_vs_observed": (self.comparison, f"Theory vs experiment: {stats}"),
            "verdict_matrix": (matrix(self.comparison, "verdict", self.layouts),
                               "Theory vs experiment"),
            "agreement": (stats.to_frame(), f"TheoryAgreement: {stats}"),
            "verdict_matrix_at_depth": (matrix(self.comparison, "verdict_at_depth", self.layouts),
                                        "Theory at each model's own number of layers vs "
                                        "experiment (docs/theory.md §8)"),
            "agreement_at_depth": (at_depth.to_frame(), "TheoryAgreement at each model's own "
                                   f"number of layers: {at_depth}"),
            "disagreements": (self.disagreements, "Where theory and experiment disagree"),
            "unknown_learned": (unknown_learned(self.comparison), "The unknown cells (unbounded "
                                "or at the model's own depth) that some run learned, with the "
                                "bound the theory hit: where theory has work left"),
            "seed_stability": (self.stability, "Verdict of every run of a cell in seed order "
                               "(✓ recognized, ✗ not); stable = all runs agree"),
            "papers": (self.papers, "The cells whose outcome [LC25]/[LC26] state (as a pattern; "
                       "analysis.papers) beside ours, at our budget"),
            "classes": (self.classes, "Class memberships of the languages run"),
            "accuracy_by_length": (self.curves, "Accuracy per test length over runs"),
            "adversarial_by_kind": (self.adversarial, "Accuracy per adversarial family"),
        }
        if len({cell_family(str(x)) for x in self.comparison["layout"]}) > 1:
            for deep, name, how in ((False, "recall_by_family", "unbounded depth"),
                                    (True, "recall_by_family_at_depth",
                                     "at each model's own number of layers")):
                tables[name] = (family_recall_table(self.comparison, at_depth=deep),
                                f"Per architecture family × class group, {how}: "
                                f"{honest_split(self.comparison, at_depth=deep)}")
        if not self.diagnoses.empty:
            tables["failures"] = (failure_table(self.comparison, self.diagnoses),
                                  "The proven-yes cells missed (failed within the prediction), "
                                  "by the furthest check of our criterion some run passed "
                                  "(analysis.diagnosis): " + "; ".join(
                                      f"{k}, {v}" for k, v in MECHANISMS.items()))
        seeds = seed_results(self.comparison)
        if not seeds.empty:  # only a store with global, local and hybrid cells
            shown = int(seeds["shown"].sum())
            tables["lc26_seed_results"] = (seeds, f"The seed results of [LC26] "
                                           f"(analysis.seed_results): {shown} of {len(seeds)} "
                                           "shown by named cells, in theory and in the runs")
        if not self.levers.empty:  # only a store with a sweep of [[lever]] tables
            tables["levers"] = (self.levers, f"Recall per lever (analysis.levers): cells "
                                f"learned by {OURS} and by the {PAPERS}")
        if not self.lever_lengths.empty:
            tables["lever_lengths"] = (self.lever_lengths, "Test accuracy per lever and cell "
                                       "in bins of lengths, pooled over the cell's runs "
                                       "(analysis.levers.lever_lengths)")
        if not self.lever_pairs.empty:
            tables["lever_pairs"] = (self.lever_pairs, "Two levers cell by cell: proven-yes "
                                     f"cells learned by both, one or neither by {OURS}, the "
                                     "exact McNemar p-value of the discordant cells, and the "
                                     "discordant counts by the papers' "
                                     "(analysis.lever_pairing)")
        if not self.rules.empty:  # only a store with a sweep that states a [rule]
            tables["rules"] = (self.rules, "The decision each sweep was run for, as its spec's "
                               "[rule] states it, judged from the store (analysis.rule)")
        if not self.plateau.empty:  # only a store with runs the plateau rule stopped
            still = int(self.plateau["improving_at_stop"].sum())
            tables["plateau_audit"] = (self.plateau, f"Runs the plateau rule stopped: {still} of "
                                       f"{len(self.plateau)} were still improving (accuracy "
                                       "gain, or loss down by plateau_delta; analysis.plateau)")
        levels = thresholds(self.depth) if not self.depth.empty else pd.DataFrame()
        if not levels.empty:  # only a store whose cells span several depths
            tables["depth"] = (self.depth, "Recognition per number of layers beside d* "
                               "(docs/theory.md §8)")
            tables["depth_thresholds"] = (levels, "Least recognized number of layers against "
                                          "d*; recognized below d* = to investigate")
        if not self.positions.empty:  # only a store with positional-encoding cells
            tables["papers_positions"] = (self.positions, "N* that [JSLC26] reports (as "
                                          "quoted in issue 18) beside ours, at our budget")
        return tables
