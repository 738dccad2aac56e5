"""The unknown cells some run learned: where the theory has work left (issue 36).

A cell is *unknown* when `algebra.classify` proves neither an exact recognizer nor a
certificate against one within its bounds (docs/theory.md §17), unbounded or at the model's
own number of layers (§8). Such a cell that some run learned is evidence, not a verdict: the
theory should be able to prove it "yes" (or the runs err beyond the tested lengths). The
`unknown_learned` table lists each of them with the bound the theory hit, so that the table's
third number ("unknown cells learned") can be read cell by cell.
"""

from __future__ import annotations

import pandas as pd

from expressivity.analysis.schema import conform

__all__ = ["UNKNOWN_LEARNED_COLUMNS", "unknown_learned"]

#: One row per unknown cell with a learned run (`unknown_learned`).
UNKNOWN_LEARNED_COLUMNS: dict[str, str] = {
    "language": "string",
    "alphabet": "string",
    "group": "string",
    "layout": "string",
    "unknown": "string",  # "unbounded", or "at N layers" (yes or no unbounded)
    "learned_ours": "boolean",
    "learned_papers": "boolean",
    "theory": "string",  # the classification's reason: the bound it hit
}


def _which(predicted: object, at_depth: object, layers: object) -> str | None:
    def proved(value: object) -> bool:
        return bool(pd.notna(value)) and str(value) in ("yes", "no")

    if not proved(predicted):
        return "unbounded"
    if not proved(at_depth) and pd.notna(layers):
        return f"at {int(str(layers))} layers (unbounded: {predicted})"
    return None


def unknown_learned(comparison: pd.DataFrame) -> pd.DataFrame:
    """The cells of a `predicted_vs_observed` table whose prediction is unknown (unbounded, or
    at the model's own depth) and that some completed run learned by our criterion or by the
    papers' (`UNKNOWN_LEARNED_COLUMNS`), in the comparison's order."""
    rows = []
    at = comparison.get("predicted_at_depth", pd.Series(None, index=comparison.index))
    layers = comparison.get("n_layers", pd.Series(None, index=comparison.index))
    for (_, row), p_at, n in zip(comparison.iterrows(), at, layers, strict=True):
        which = _which(row["predicted"], p_at, n)
        ours = bool(row["observed"]) if pd.notna(row["observed"]) else False
        papers = bool(row["papers_observed"]) if pd.notna(row["papers_observed"]) else False
        if which is None or not (ours or papers):
            continue
        rows.append({"language": row["language"], "alphabet": row["alphabet"],
                     "group": row["group"], "layout": row["layout"], "unknown": which,
                     "learned_ours": ours, "learned_papers": papers,
                     "theory": row["reason"]})
    return conform(pd.DataFrame(rows, columns=list(UNKNOWN_LEARNED_COLUMNS)),
                   UNKNOWN_LEARNED_COLUMNS)
