"""Recognition against the number of layers, beside d* (docs/theory.md §8, issue 31).

`depth_table` turns a `comparison.predicted_vs_observed` frame into one row per language ×
layout × n_layers (the cell labels ``LAYOUT [N layers]`` of `sweeps.cells` split back into
layout and depth), with d* and the prediction at that depth; `thresholds` gives per language ×
layout the least n_layers at which some run recognized L, whether it equals d*, and every
depth below d* that was recognized (which would refute §8 under its reading model: each is
to be investigated); `plot_recognition_vs_depth` draws recognized (✓/✗) against n_layers per
layout with d* marked.
"""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from expressivity.analysis.schema import language_labels
from expressivity.sweeps.cell_labels import Cell

__all__ = ["DEPTH_COLUMNS", "depth_table", "plot_recognition_vs_depth", "thresholds"]

#: One row per language × layout × number of layers.
DEPTH_COLUMNS = ["language", "alphabet", "layout", "n_layers", "min_depth",
                 "predicted_at_depth", "observed", "completed"]


def _base(label: str) -> str:
    cell = Cell.parse(label)
    return cell.layout if cell.positional == "none" else label.split(" [")[0]


def depth_table(comparison: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``comparison`` with a known depth, the layer suffix moved into ``n_layers``."""
    rows = comparison.dropna(subset=["n_layers"])
    out = rows.assign(layout=[_base(str(x)) for x in rows["layout"]])
    return out[DEPTH_COLUMNS].sort_values(["language", "layout", "n_layers"]).reset_index(
        drop=True)


def _exact(text: object) -> int | None:
    return int(str(text)) if str(text).isdigit() else None


def thresholds(table: pd.DataFrame) -> pd.DataFrame:
    """Per language × layout with several depths: d*, the least recognized n_layers (NA if
    none), whether they are equal, and the recognized depths below d* (to investigate)."""
    rows = []
    for (language, alphabet, layout), group in table.groupby(
            ["language", "alphabet", "layout"], sort=False, dropna=False):
        if group["n_layers"].nunique() < 2:
            continue
        d_star = group["min_depth"].iloc[0]
        seen = group[group["observed"].astype(bool)]["n_layers"]
        least = int(seen.min()) if len(seen) else None
        exact = _exact(d_star)
        below = sorted(int(n) for n in seen if exact is not None and n < exact)
        rows.append({"language": language, "alphabet": alphabet, "layout": layout,
                     "min_depth": d_star, "least_recognized": least,
                     "equals_min_depth": None if exact is None or least is None
                     else least == exact,
                     "recognized_below_min_depth": ",".join(map(str, below))})
    frame = pd.DataFrame(rows, columns=["language", "alphabet", "layout", "min_depth",
                                        "least_recognized", "equals_min_depth",
                                        "recognized_below_min_depth"])
    return frame.astype({"least_recognized": "Int64"})  # a layer count, NA where none


def plot_recognition_vs_depth(table: pd.DataFrame) -> Figure:
    """One panel per layout: for each language, ✓ (recognized) / ✗ per n_layers, and a bar
    at d* (a light bar: only bounds known)."""
    layouts = list(dict.fromkeys(table["layout"]))
    labels = list(dict.fromkeys(language_labels(table)))
    fig = Figure(figsize=(2.0 + 2.6 * len(layouts), 1.0 + 0.35 * len(labels)),
                 layout="constrained")
    axes = fig.subplots(1, max(1, len(layouts)), sharey=True, squeeze=False)[0]
    named = table.assign(label=language_labels(table))
    top = int(table["n_layers"].max()) if len(table) else 1
    for ax, layout in zip(axes, layouts, strict=False):
        part = named[named["layout"] == layout]
        for y, label in enumerate(labels):
            cells = part[part["label"] == label]
            for row in cells.itertuples():
                ok = bool(row.observed)
                ax.text(int(row.n_layers), y, "✓" if ok else "✗", ha="center", va="center",
                        color="#1a7f37" if ok else "#999999", fontsize=9)
            if len(cells):
                d = str(cells["min_depth"].iloc[0])
                exact = _exact(d)
                if exact is not None:
                    ax.plot([exact - 0.45, exact - 0.45], [y - 0.4, y + 0.4], color="#0b5394")
                elif d == "∞":
                    ax.text(top + 0.6, y, "∞", ha="left", va="center", fontsize=8)
        ax.set_title(layout, fontsize=9)
        ax.set_xlim(0.4, top + 1.0)
        ax.set_xticks(range(1, top + 1))
        ax.set_xlabel("n_layers (bar: d*)")
        ax.set_yticks(range(len(labels)), labels, fontsize=8)
        ax.set_ylim(len(labels) - 0.5, -0.5)
    return fig
