"""Seed stability and learning curves from a results store's runs frame."""

from __future__ import annotations

import json

import pandas as pd

from expressivity.analysis.stability import histories, plot_learning_curves, seed_stability


def _run(run_id: str, language: str, layout: str, seed: int, recognized: bool | None,
         accuracy: float, history: list[dict[str, float]], status: str = "completed",
         alphabet: str | None = None, short: bool = True) -> dict[str, object]:
    words = {"short_words": {"n": 511, "correct": 511, "max_length": 8}} if short else {}
    return {"run_id": run_id, "language": language, "alphabet": alphabet, "layout": layout,
            "seed": seed, "lr": 1e-3, "status": status, "recognized": recognized,
            "test_accuracy": accuracy, "extra": json.dumps({"history": history, **words})}


def _curve(*values: float) -> list[dict[str, float]]:
    return [{"step": 50 * (i + 1), "loss": 0.5, "val_short": v, "val_long": v - 0.1}
            for i, v in enumerate(values)]


RUNS = pd.DataFrame([
    _run("r2", "SUFFIX-a", "global", 2, False, 0.81, _curve(0.7, 0.8)),
    _run("r0", "SUFFIX-a", "global", 0, True, 1.0, _curve(0.9, 1.1)),
    _run("r1", "SUFFIX-a", "global", 1, False, 0.9, _curve(0.8)),
    _run("q0", "SUFFIX-a", "local-1", 0, True, 1.0, _curve(1.1, 1.1)),
    _run("q1", "SUFFIX-a", "local-1", 1, True, 1.0, _curve(1.1)),
    _run("q2", "SUFFIX-a", "local-1", 2, None, float("nan"), [], status="failed"),
    _run("p0", "PARITY", "global", 0, False, 0.5, _curve(0.6), alphabet="ab"),
])


def test_seed_stability_lists_verdicts_in_seed_order() -> None:
    table = seed_stability(RUNS)
    assert list(zip(table["language"], table["layout"], strict=True)) == [
        ("SUFFIX-a", "global"), ("SUFFIX-a", "local-1"), ("PARITY", "global")]
    first = table.iloc[0]
    assert (first["runs"], first["recognized_runs"], first["verdicts"]) == (3, 1, "✓✗✗")
    assert first["accuracies"] == "1.000 0.900 0.810" and not first["stable"]
    second = table.iloc[1]  # the failed run is not a verdict
    assert (second["runs"], second["verdicts"], second["stable"]) == (2, "✓✓", True)
    assert table.iloc[2]["alphabet"] == "ab" and table.iloc[2]["stable"]
    assert list(table["perfect_runs"]) == [1, 2, 0]


def test_a_run_not_tested_on_short_words_is_marked_and_not_counted() -> None:
    old = pd.DataFrame([_run("o0", "SUFFIX-a", "global", 0, True, 1.0, [], short=False),
                        _run("o1", "SUFFIX-a", "global", 1, True, 1.0, [])])
    row = seed_stability(old).iloc[0]
    assert (row["verdicts"], row["recognized_runs"], row["perfect_runs"]) == ("?✓", 1, 2)
    assert not row["stable"]


def test_histories_unpack_every_validation() -> None:
    h = histories(RUNS)
    assert len(h) == 2 + 2 + 1 + 2 + 1 + 1
    r0 = h[h["run_id"] == "r0"]
    assert list(r0["step"]) == [50, 100]
    assert list(r0["validation"].round(6)) == [0.85, 1.05]
    assert set(h["run_id"]) == {"r0", "r1", "r2", "q0", "q1", "p0"}  # failed runs have none


def test_learning_curves_draw_one_line_per_run_and_one_panel_per_cell() -> None:
    fig = plot_learning_curves(histories(RUNS), [("SUFFIX-a", "", "global"), ("PARITY", "ab",
                                                                                "global")],
                               columns=4, titles=["a", "b"])
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 2
    assert [len(ax.lines) - 1 for ax in visible] == [3, 1]  # minus the dotted line at 1.0
    assert [ax.get_title() for ax in visible] == ["a", "b"]
