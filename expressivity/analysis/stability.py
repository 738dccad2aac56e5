"""Seed stability and learning curves: which cells change verdict between runs, how runs trained.

`seed_stability` lists, per language × layout cell, the verdict of each completed run (✓
recognized, ✗ not, ? perfect on the test and adversarial sets but not tested on short words)
in seed order, and how many runs pass the papers' criterion (``perfect_runs``: 100 % test
accuracy); a cell is *stable* when all its runs agree. `histories`
unpacks the validation history every run stores (``extra["history"]``: one row per validation,
as `training.loop` records it) into a tidy frame, and `plot_learning_curves` draws the mean
validation accuracy against the step for the runs of chosen cells: the evidence for "failed
within the prediction" (a run that was still improving when its budget or the plateau rule
stopped it is a trainability problem, one that stalled early is not obviously one).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import pandas as pd
from matplotlib.figure import Figure

from expressivity.sweeps.report import SHORT_PASSED, SHORT_UNTESTED, short_word_status

__all__ = ["HISTORY_COLUMNS", "STABILITY_COLUMNS", "histories", "plot_learning_curves",
           "seed_stability"]

#: Columns of `seed_stability`.
STABILITY_COLUMNS = ("language", "alphabet", "layout", "runs", "recognized_runs",
                     "perfect_runs", "verdicts", "accuracies", "stable")
#: Columns of `histories`.
HISTORY_COLUMNS = ("run_id", "language", "alphabet", "layout", "seed", "lr", "step", "loss",
                   "val_short", "val_long", "validation")


def _completed(runs: pd.DataFrame) -> pd.DataFrame:
    done = runs[runs["status"] == "completed"].copy()
    done["alphabet"] = done["alphabet"].fillna("")
    return done.sort_values(["seed", "lr", "run_id"], kind="stable")


def seed_stability(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per cell of a `ResultsStore.runs` frame (`STABILITY_COLUMNS`), cells in the
    order they first appear; ``verdicts`` and ``accuracies`` list the completed runs by seed
    (then learning rate)."""
    rows = []
    done = _completed(runs)
    order = {key: i for i, key in enumerate(dict.fromkeys(
        zip(runs["language"], runs["alphabet"].fillna(""), runs["layout"], strict=True)))}
    for (language, alphabet, layout), cell in done.groupby(
            ["language", "alphabet", "layout"], sort=False):
        stored = [bool(r) for r in cell["recognized"].fillna(False)]
        extras = cell["extra"] if "extra" in cell.columns else [None] * len(cell)
        short = [short_word_status(x) for x in extras]
        marks = ["✓" if r and s == SHORT_PASSED else "?" if r and s == SHORT_UNTESTED else "✗"
                 for r, s in zip(stored, short, strict=True)]
        recognized = [m == "✓" for m in marks]
        rows.append({
            "language": language, "alphabet": alphabet, "layout": layout,
            "runs": len(cell), "recognized_runs": sum(recognized),
            "perfect_runs": int((cell["test_accuracy"].astype(float) == 1.0).sum()),
            "verdicts": "".join(marks),
            "accuracies": " ".join(f"{a:.3f}" for a in cell["test_accuracy"].astype(float)),
            "stable": len(set(marks)) <= 1,
        })
    rows.sort(key=lambda r: order[(r["language"], r["alphabet"], r["layout"])])
    return pd.DataFrame(rows, columns=list(STABILITY_COLUMNS))


def histories(runs: pd.DataFrame) -> pd.DataFrame:
    """The validation history of every completed run (`HISTORY_COLUMNS`); ``validation`` is the
    mean of the short and long validation accuracies, the quantity the plateau rule watches."""
    rows = []
    for run in _completed(runs).itertuples(index=False):
        for h in json.loads(str(run.extra) or "{}").get("history", []):
            short, long = float(h.get("val_short", math.nan)), float(h.get("val_long", math.nan))
            rows.append({
                "run_id": run.run_id, "language": run.language, "alphabet": run.alphabet,
                "layout": run.layout, "seed": run.seed, "lr": run.lr, "step": int(h["step"]),
                "loss": float(h.get("loss", math.nan)), "val_short": short, "val_long": long,
                "validation": (short + long) / 2,
            })
    return pd.DataFrame(rows, columns=list(HISTORY_COLUMNS))


def plot_learning_curves(
    history: pd.DataFrame, cells: Sequence[tuple[str, str, str]], *, columns: int = 4,
    titles: Sequence[str] | None = None,
) -> Figure:
    """Mean validation accuracy against the step, one panel per (language, alphabet, layout)
    cell of ``cells`` and one line per run (labelled by seed); ``titles`` replace the panel
    titles (e.g. with the disagreement's kind)."""
    n = max(len(cells), 1)
    cols = min(columns, n)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(3.2 * cols, 2.3 * rows + 0.3), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False)
    for i, ax in enumerate(axes.flat):
        if i >= len(cells):
            ax.set_visible(False)
            continue
        language, alphabet, layout = cells[i]
        cell = history[(history["language"] == language) & (history["alphabet"] == alphabet)
                       & (history["layout"] == layout)]
        for (seed, lr), run in cell.groupby(["seed", "lr"], sort=True):
            ax.plot(run["step"], run["validation"], marker=".", lw=1,
                    label=f"seed {seed}" + (f", lr {lr:g}" if cell["lr"].nunique() > 1 else ""))
        name = f"{language} ({alphabet})" if alphabet else language
        ax.set_title(titles[i] if titles else f"{name} × {layout}", fontsize=8)
        ax.set_ylim(0.4, 1.02)
        ax.axhline(1.0, color="grey", lw=0.5, ls=":")
        ax.tick_params(labelsize=7)
        if not cell.empty:
            ax.legend(fontsize=6, loc="lower right")
    fig.supxlabel("step", fontsize=8)
    fig.supylabel("mean validation accuracy", fontsize=8)
    return fig
