"""Every plot function returns a Figure on the fixture, and writes no file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from expressivity.analysis import diagrams, plots
from expressivity.analysis.report import Report
from expressivity.catalogue import get_language

PLOTS: dict[str, Callable[[Report], Figure]] = {
    "accuracy_max": lambda r: plots.plot_accuracy_heatmap(r.summary, "max"),
    "accuracy_mean": lambda r: plots.plot_accuracy_heatmap(r.summary, "mean"),
    "n_star": lambda r: plots.plot_n_star_heatmap(r.summary),
    "adversarial": lambda r: plots.plot_adversarial_heatmap(r.summary),
    "generic": lambda r: plots.plot_heatmap(r.summary, "std_accuracy"),
    "class_recognition": lambda r: plots.plot_class_recognition(r.class_summary),
    "predicted_vs_observed": lambda r: plots.plot_predicted_vs_observed(r.comparison),
    "accuracy_vs_length": lambda r: plots.plot_accuracy_vs_length(r.curves),
    "class_diagram": lambda r: diagrams.plot_class_diagram(r.catalogue_classes),
    "dfa": lambda r: diagrams.plot_dfa(get_language("DYCK-(1,2)").dfa(), title="DYCK-(1,2)"),
    "dfa_one_state": lambda r: diagrams.plot_dfa(get_language("EVEN-a").dfa()),
    "masks_hybrid": lambda r: diagrams.plot_layout_masks("hybrid-2", n_layers=2, n_heads=4),
    "masks_bigbird": lambda r: diagrams.plot_layout_masks("bigbird-2-2-1"),
    "masks_run_size": lambda r: diagrams.plot_layout_masks(next(iter(r.masks.values()))),
}


@pytest.mark.parametrize("name", list(PLOTS))
def test_plot_returns_a_figure_without_io(
    name: str, report: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    fig = PLOTS[name](report)
    assert isinstance(fig, Figure)
    assert fig.axes
    fig.canvas.draw()  # renders without error
    assert list(tmp_path.iterdir()) == []


def test_heatmap_marks_recognized_cells(report: Report) -> None:
    fig = plots.plot_accuracy_heatmap(report.summary)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts.count("✓ 1.000") == 8  # the recognized cells of the example store
    assert "1.000" in texts  # PREFIX-a × hybrid-1: perfect on test, not recognized


def test_predicted_vs_observed_title_has_the_agreement(report: Report) -> None:
    fig = plots.plot_predicted_vs_observed(report.comparison)
    assert "20 of 22 cells agree" in fig.axes[0].get_title()


def test_class_inclusion_graph() -> None:
    graph = diagrams.class_inclusion_graph()
    assert ("LTL[Y]", "LTL[P,Y]") in graph.edges and ("LTL[P]", "LTL[P,Y]") in graph.edges
    assert ("star-free", "regular") in graph.edges
    assert graph.nodes["LTL[Y]"]["level"] == 0 and graph.nodes["regular"]["level"] == 3


_POSITIONS = (
    "from expressivity.analysis import diagrams\n"
    "pos = diagrams.class_diagram_positions(diagrams.class_inclusion_graph())\n"
    "print(sorted((node, round(float(x), 9), round(float(y), 9)) for node, (x, y) in pos.items()))"
)


def test_class_diagram_positions_do_not_follow_the_string_hash() -> None:
    """The class diagram is drawn the same in every process: networkx groups an attribute's
    nodes into sets, whose order follows PYTHONHASHSEED (the committed class_diagram.png
    changed from one `figures` run to the next)."""
    import os
    import subprocess
    import sys

    drawn = {
        subprocess.run([sys.executable, "-c", _POSITIONS], capture_output=True, text=True,
                       check=True, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
        for seed in range(4)
    }
    assert len(drawn) == 1, drawn


def test_class_diagram_rows_keep_the_graph_order() -> None:
    graph = diagrams.class_inclusion_graph()
    pos = diagrams.class_diagram_positions(graph)
    for level in {data for _, data in graph.nodes(data="level")}:
        row = [n for n in graph if graph.nodes[n]["level"] == level and n != diagrams.NOT_REGULAR]
        xs = [pos[n][0] for n in row]
        assert xs == sorted(xs), (level, row)
    assert pos[diagrams.NOT_REGULAR][0] == 1.0


def test_bad_heatmap_stat(report: Report) -> None:
    with pytest.raises(ValueError, match="stat"):
        plots.plot_accuracy_heatmap(report.summary, "median")
