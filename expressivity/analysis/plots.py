"""Figures of results: heatmaps, accuracy-vs-length curves, predicted-vs-observed and by-class maps.

Every function takes the tidy frames of `expressivity.analysis.tables` and returns a
`matplotlib.figure.Figure` built without pyplot (no global state, no file I/O); save it with
``fig.savefig``. Numbers are printed with `export.format_number`, so only a perfect score reads
1.000; a ✓ marks cells where some run was recognized (perfect on test and adversarial sets).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from expressivity.analysis.comparison import TheoryAgreement, agreement
from expressivity.analysis.export import format_number
from expressivity.analysis.schema import (
    AGREE,
    BEYOND,
    FAILED_WITHIN,
    NO_RUNS,
    UNKNOWN,
    UNTESTED,
    language_labels,
    layout_order,
)
from expressivity.analysis.tables import matrix

__all__ = [
    "plot_accuracy_heatmap",
    "plot_accuracy_vs_length",
    "plot_adversarial_heatmap",
    "plot_class_recognition",
    "plot_heatmap",
    "plot_n_star_heatmap",
    "plot_predicted_vs_observed",
]

_MISSING = "#eeeeee"


def _grid_figure(n_rows: int, n_cols: int, *, extra: float = 0.0) -> tuple[Figure, Axes]:
    height = max(2.2, 1.2 + 0.45 * n_rows)  # room for a colorbar and its label at one row
    fig = Figure(figsize=(2.2 + 1.15 * n_cols + extra, height), layout="constrained")
    return fig, fig.add_subplot()


def _colorbar(fig: Figure, image: Any, ax: Axes, label: str) -> None:
    """A colorbar whose label is wrapped to fit its length, so that a heatmap of one or two
    rows does not clip it (about 0.09 in per character at the label's 10 pt)."""
    length = 0.8 * (fig.get_figheight() - 1.0)  # the bar's share of the axes' height
    width = max(8, int(length / 0.09))
    lines = textwrap.wrap(label, width, break_long_words=False)
    fig.colorbar(image, ax=ax, label="\n".join(lines) or label, shrink=0.8)


def _axes_labels(ax: Axes, wide: pd.DataFrame) -> None:
    columns = [str(c) for c in wide.columns]
    if max(map(len, columns), default=0) > 12:  # long cell labels (layout+encoding): slanted
        ax.set_xticks(range(wide.shape[1]), columns, rotation=35, ha="left",
                      rotation_mode="anchor")
    else:
        ax.set_xticks(range(wide.shape[1]), columns)
    ax.set_yticks(range(wide.shape[0]), [str(i) for i in wide.index])
    ax.tick_params(top=True, bottom=False, labeltop=True, labelbottom=False)
    ax.set_facecolor(_MISSING)


def plot_heatmap(
    frame: pd.DataFrame,
    value: str,
    *,
    title: str = "",
    cmap: str = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    digits: int = 3,
    colorbar: str = "",
    layouts: Sequence[str] | None = None,
) -> Figure:
    """Language × layout heatmap of column ``value`` of a per-cell frame (e.g. `summarize`).

    Cells print their value (a ✓ where ``recognized`` is true, if the frame has that column);
    cells without runs stay grey and empty.
    """
    wide = matrix(frame, value, layouts).astype("Float64").astype("float64")
    marks = matrix(frame, "recognized", layouts) if "recognized" in frame.columns else None
    data = np.ma.masked_invalid(wide.to_numpy(dtype=float))
    fig, ax = _grid_figure(*wide.shape, extra=1.0)
    values = data.compressed()
    lo = vmin if vmin is not None else float(values.min()) if values.size else 0.0
    hi = vmax if vmax is not None else float(values.max()) if values.size else 1.0
    image = ax.imshow(data, cmap=cmap, vmin=lo, vmax=hi, aspect="auto")
    for i, j in zip(*np.nonzero(~np.ma.getmaskarray(data)), strict=True):
        v = float(data[i, j])
        text = str(int(v)) if digits == 0 else format_number(v, digits)
        mark = marks.iat[i, j] if marks is not None else False
        if not pd.isna(mark) and bool(mark):
            text = "✓ " + text
        shade = image.cmap(min(max((v - lo) / (hi - lo), 0.0), 1.0) if hi > lo else 0.5)
        dark = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2] < 0.55
        ax.text(j, i, text, ha="center", va="center", fontsize=8,
                color="white" if dark else "black")
    _axes_labels(ax, wide)
    _colorbar(fig, image, ax, colorbar or value)
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def plot_accuracy_heatmap(
    summary: pd.DataFrame, stat: str = "max", layouts: Sequence[str] | None = None
) -> Figure:
    """Test accuracy (``stat`` = "max" or "mean" over runs), language × layout ([LC26] Fig. 3)."""
    if stat not in ("max", "mean"):
        raise ValueError(f"stat must be 'max' or 'mean', got {stat!r}")
    return plot_heatmap(
        summary, f"{stat}_accuracy", title=f"{stat} test accuracy over runs (✓ = recognized)",
        cmap="viridis", vmin=0.5, vmax=1.0, colorbar=f"{stat} accuracy", layouts=layouts,
    )


def plot_n_star_heatmap(summary: pd.DataFrame, layouts: Sequence[str] | None = None) -> Figure:
    """N*, the best run's longest perfect length, language × layout."""
    return plot_heatmap(
        summary, "n_star", title="N*: longest length up to which every tested length is perfect",
        cmap="magma", digits=0, colorbar="N*", layouts=layouts,
    )


def plot_adversarial_heatmap(
    summary: pd.DataFrame, layouts: Sequence[str] | None = None
) -> Figure:
    """Mean accuracy on the adversarial pairs, language × layout."""
    return plot_heatmap(
        summary, "adversarial_accuracy", title="mean adversarial accuracy over runs",
        cmap="cividis", vmin=0.0, vmax=1.0, colorbar="adversarial accuracy", layouts=layouts,
    )


def plot_class_recognition(
    class_summary: pd.DataFrame, layouts: Sequence[str] | None = None
) -> Figure:
    """Class group × layout: the share of languages recognized, printed as "k/n"."""
    frame = class_summary.assign(language=class_summary["group"], alphabet="")
    wide = matrix(frame, "fraction_recognized", layouts).astype("Float64").astype("float64")
    got, total = matrix(frame, "recognized", layouts), matrix(frame, "languages", layouts)
    data = np.ma.masked_invalid(wide.to_numpy(dtype=float))
    fig, ax = _grid_figure(*wide.shape, extra=2.0)
    image = ax.imshow(data, cmap="Greens", vmin=0.0, vmax=1.0, aspect="auto")
    for i, j in zip(*np.nonzero(~np.ma.getmaskarray(data)), strict=True):
        ax.text(j, i, f"{got.iat[i, j]}/{total.iat[i, j]}", ha="center", va="center",
                fontsize=9, color="white" if data[i, j] > 0.6 else "black")
    _axes_labels(ax, wide)
    _colorbar(fig, image, ax, "languages recognized")
    ax.set_title("which attention recognizes which class (languages recognized / languages run)",
                 fontsize=10)
    return fig


_VERDICT_COLOURS = {
    (AGREE, "yes"): ("#1a9850", "agree: recognized, as predicted"),
    (AGREE, "no"): ("#a6d96a", "agree: not recognized, as predicted"),
    (BEYOND, ""): ("#4575b4", BEYOND),
    (FAILED_WITHIN, ""): ("#d73027", FAILED_WITHIN),
    (UNTESTED, ""): ("#fdae61", UNTESTED),
    (UNKNOWN, ""): ("#bdbdbd", UNKNOWN),
    (NO_RUNS, ""): ("#ffffff", NO_RUNS),
}


def plot_predicted_vs_observed(
    comparison: pd.DataFrame, summary_of: TheoryAgreement | None = None,
    layouts: Sequence[str] | None = None,
) -> Figure:
    """Language × layout matrix of verdicts; each cell reads "predicted → observed"."""
    from matplotlib.colors import ListedColormap

    keys = list(_VERDICT_COLOURS)
    code = [
        keys.index((v, p if v == AGREE else "")) for v, p in
        zip(comparison["verdict"], comparison["predicted"], strict=True)
    ]
    text = [
        "—" if v == NO_RUNS else f"{p} → ?" if v == UNTESTED else f"{p} → {'yes' if o else 'no'}"
        for v, p, o in zip(comparison["verdict"], comparison["predicted"],
                           comparison["observed"], strict=True)
    ]
    frame = comparison.assign(code=code, text=text)
    wide = matrix(frame, "code", layouts).astype("Float64").astype("float64")
    labels = matrix(frame, "text", layouts)
    data = np.ma.masked_invalid(wide.to_numpy(dtype=float))
    fig, ax = _grid_figure(*wide.shape, extra=3.2)
    colours = ListedColormap([c for c, _ in _VERDICT_COLOURS.values()])
    ax.imshow(data, cmap=colours, vmin=-0.5, vmax=len(keys) - 0.5, aspect="auto")
    for i, j in zip(*np.nonzero(~np.ma.getmaskarray(data)), strict=True):
        dark = int(data[i, j]) in (0, 2, 3)
        ax.text(j, i, labels.iat[i, j], ha="center", va="center", fontsize=8,
                color="white" if dark else "black")
    _axes_labels(ax, wide)
    ax.set_xticks(np.arange(-0.5, wide.shape[1]), minor=True)
    ax.set_yticks(np.arange(-0.5, wide.shape[0]), minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    handles = [Patch(facecolor=c, edgecolor="#777777", label=name)
               for c, name in _VERDICT_COLOURS.values()]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8,
              title="predicted → observed", title_fontsize=8, frameon=False)
    stats = summary_of if summary_of is not None else agreement(comparison)
    title = "\n".join(textwrap.wrap(f"theory vs experiment: {stats}", 80))
    ax.set_title(title, fontsize=9)
    return fig


def plot_accuracy_vs_length(
    curves: pd.DataFrame, *, ncols: int = 3, layouts: Sequence[str] | None = None
) -> Figure:
    """One panel per language: mean accuracy against test length per layout, min–max shaded."""
    labels = list(dict.fromkeys(language_labels(curves)))
    order = list(layouts) if layouts is not None else layout_order(curves["layout"])
    colours = {name: f"C{i % 10}" for i, name in enumerate(order)}
    ncols = max(1, min(ncols, len(labels)))
    nrows = max(1, -(-len(labels) // ncols))
    fig = Figure(figsize=(3.4 * ncols, 2.5 * nrows + 0.6), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
    frame = curves.assign(label=language_labels(curves))
    for ax, label in zip(axes.flat, labels, strict=False):
        panel = frame[frame["label"] == label]
        for name in order:
            line = panel[panel["layout"] == name].sort_values("length")
            if line.empty:
                continue
            x = line["length"].to_numpy(dtype=float)
            ax.plot(x, line["mean_accuracy"].to_numpy(dtype=float), color=colours[name],
                    label=name, linewidth=1.4)
            ax.fill_between(x, line["min_accuracy"].to_numpy(dtype=float),
                            line["max_accuracy"].to_numpy(dtype=float), color=colours[name],
                            alpha=0.15, linewidth=0)
        ax.set_title(label, fontsize=9)
        ax.axhline(1.0, color="#999999", linewidth=0.6, linestyle=":")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(labels):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("test length")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in axes[:, 0]:
        ax.set_ylabel("accuracy")
    handles = [Patch(color=colours[n], label=n) for n in order]
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(order), 7),
               fontsize=8, frameon=False)
    fig.suptitle("accuracy against test length (mean over runs; band: min–max)", fontsize=10)
    return fig
