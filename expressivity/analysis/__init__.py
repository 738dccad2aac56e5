"""Analysis: results store → tidy tables (Markdown/LaTeX/CSV) and Figures, with provenance.

Names are imported on first use (matplotlib is slow to import). The flow::

    runs = ResultsStore(db).runs()                       # tidy, `sweeps.store.RUN_COLUMNS`
    summary = summarize(runs)                            # language × layout, `SUMMARY_COLUMNS`
    keys = language_keys(runs)
    comparison = predicted_vs_observed(summary, predictions(keys, layouts), language_classes(keys))
    plot_predicted_vs_observed(comparison)               # a Figure; no file I/O
    write_figures(db, "paper_figures")                   # everything, with provenance.json
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from expressivity.lazy import lazy_getattr

if TYPE_CHECKING:
    from expressivity.analysis.class_membership import (
        class_group,
        classification,
        language_classes,
    )
    from expressivity.analysis.comparison import (
        TheoryAgreement,
        agreement,
        disagreements,
        predicted_vs_observed,
    )
    from expressivity.analysis.diagnosis import diagnose, failure_table
    from expressivity.analysis.diagrams import (
        PRESET_LAYOUTS,
        class_inclusion_graph,
        plot_class_diagram,
        plot_dfa,
        plot_layout_masks,
    )
    from expressivity.analysis.example import write_example_store
    from expressivity.analysis.export import to_csv, to_latex, to_markdown
    from expressivity.analysis.figures import default_results_path, write_figures
    from expressivity.analysis.key_probe import one_key_probe, probe_checkpoint
    from expressivity.analysis.layout_theory import theory_layout
    from expressivity.analysis.lever_pairing import lever_pairs, mcnemar_exact
    from expressivity.analysis.levers import lever_table
    from expressivity.analysis.plateau import plateau_audit
    from expressivity.analysis.plots import (
        plot_accuracy_heatmap,
        plot_accuracy_vs_length,
        plot_adversarial_heatmap,
        plot_class_recognition,
        plot_heatmap,
        plot_n_star_heatmap,
        plot_predicted_vs_observed,
    )
    from expressivity.analysis.prediction_table import predictions
    from expressivity.analysis.recall import honest_split, recall_table
    from expressivity.analysis.report import Report
    from expressivity.analysis.rule import judge_rule
    from expressivity.analysis.store_report import build_report
    from expressivity.analysis.tables import (
        adversarial_by_kind,
        language_keys,
        length_curves,
        matrix,
        summarize,
        summarize_by_class,
    )

_HOMES = {
    "class_group": "class_membership",
    "classification": "class_membership",
    "language_classes": "class_membership",
    "predictions": "prediction_table",
    "theory_layout": "layout_theory",
    "TheoryAgreement": "comparison",
    "agreement": "comparison",
    "disagreements": "comparison",
    "predicted_vs_observed": "comparison",
    "diagnose": "diagnosis",
    "failure_table": "diagnosis",
    "PRESET_LAYOUTS": "diagrams",
    "class_inclusion_graph": "diagrams",
    "plot_class_diagram": "diagrams",
    "plot_dfa": "diagrams",
    "plot_layout_masks": "diagrams",
    "write_example_store": "example",
    "to_csv": "export",
    "to_latex": "export",
    "to_markdown": "export",
    "Report": "report",
    "build_report": "store_report",
    "default_results_path": "figures",
    "write_figures": "figures",
    "one_key_probe": "key_probe",
    "probe_checkpoint": "key_probe",
    "lever_pairs": "lever_pairing",
    "lever_table": "levers",
    "mcnemar_exact": "lever_pairing",
    "plateau_audit": "plateau",
    "judge_rule": "rule",
    "honest_split": "recall",
    "recall_table": "recall",
    "plot_accuracy_heatmap": "plots",
    "plot_accuracy_vs_length": "plots",
    "plot_adversarial_heatmap": "plots",
    "plot_class_recognition": "plots",
    "plot_heatmap": "plots",
    "plot_n_star_heatmap": "plots",
    "plot_predicted_vs_observed": "plots",
    "adversarial_by_kind": "tables",
    "language_keys": "tables",
    "length_curves": "tables",
    "matrix": "tables",
    "summarize": "tables",
    "summarize_by_class": "tables",
}
__all__ = [
    "PRESET_LAYOUTS",
    "Report",
    "TheoryAgreement",
    "adversarial_by_kind",
    "agreement",
    "build_report",
    "class_group",
    "class_inclusion_graph",
    "classification",
    "default_results_path",
    "diagnose",
    "disagreements",
    "failure_table",
    "honest_split",
    "judge_rule",
    "language_classes",
    "language_keys",
    "length_curves",
    "lever_pairs",
    "lever_table",
    "matrix",
    "mcnemar_exact",
    "one_key_probe",
    "plateau_audit",
    "plot_accuracy_heatmap",
    "plot_accuracy_vs_length",
    "plot_adversarial_heatmap",
    "plot_class_diagram",
    "plot_class_recognition",
    "plot_dfa",
    "plot_heatmap",
    "plot_layout_masks",
    "plot_n_star_heatmap",
    "plot_predicted_vs_observed",
    "predicted_vs_observed",
    "predictions",
    "probe_checkpoint",
    "recall_table",
    "summarize",
    "summarize_by_class",
    "theory_layout",
    "to_csv",
    "to_latex",
    "to_markdown",
    "write_example_store",
    "write_figures",
]


__getattr__ = lazy_getattr(__name__, _HOMES)
