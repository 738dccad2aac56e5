"""The honest split of theory vs experiment: per layout and class, what was learned and held.

An agreement rate hides what matters (issue 34): a table where nothing is ever learned agrees
on every certified-no cell. `recall_table` therefore counts, per layout × class group (and per
layout over all groups, group "all"), over the cells with completed runs:

- **proven-yes cells learned** / total: the theory proves an exact recognizer exists;
- **certified-no cells held** / total: the theory certifies none exists, and no run passed;
  among them, apart, the encoder "no"s whose certificate holds **relative to reading model A
  only** (``no_a_only_*``): the pair separates when rows read multiplicities, so a float32
  network may beat them (docs/theory.md §15), and a run that does is evidence on A, not
  against a certificate that binds it;
- **unknown cells learned** / total: no proof either way;

each under two criteria, named and side by side: **ours** (some run right on every test
string, every adversarial pair and every short word, `data.short_words`) and **the papers'**
(some run at 100 % test accuracy, [LC25, LC26]). A cell whose best runs were perfect on the
test and adversarial sets but were recorded before the short split existed is *not tested on
short words* (``*_untested``): under our criterion it counts as neither learned nor held.
`HonestSplit` is the one-line summary (the README headline).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from expressivity.algebra.layout_verdicts import has_mixers
from expressivity.analysis.encoder_predictions import ONLY_A
from expressivity.analysis.schema import GROUPS, layout_order
from expressivity.errors import ExpressivityError
from expressivity.layouts import parse_spelling
from expressivity.layouts.encoders import is_encoder
from expressivity.sweeps.cell_labels import Cell

__all__ = ["FAMILIES", "OURS", "PAPERS", "RECALL_COLUMNS", "HonestSplit", "cell_family",
           "family_recall_table", "honest_split", "ratio_table", "recall_by_group",
           "recall_table"]

#: The two criteria, as the tables name them.
OURS = "ours (every test string, adversarial pair and short word)"
PAPERS = "papers' (max test accuracy 100 %)"

#: Columns of `recall_table` (all counts are cells with completed runs).
RECALL_COLUMNS: dict[str, str] = {
    "layout": "string",
    "group": "string",  # a class group of `schema.GROUPS`, or "all"
    "yes_cells": "Int64",
    "yes_learned": "Int64",  # ours
    "yes_learned_papers": "Int64",
    "yes_untested": "Int64",  # perfect on test + adversarial, not tested on short words
    "no_cells": "Int64",
    "no_held": "Int64",  # ours: no run passed (untested cells excluded)
    "no_held_papers": "Int64",
    "no_untested": "Int64",
    "no_a_only_cells": "Int64",  # of no_cells: certified relative to reading model A only
    "no_a_only_held": "Int64",  # ours
    "unknown_cells": "Int64",
    "unknown_learned": "Int64",
    "unknown_learned_papers": "Int64",
}


def _counts(cells: pd.DataFrame) -> dict[str, int]:
    def of(status: str) -> pd.DataFrame:
        return cells[cells["predicted"] == status]

    yes, no, unknown = of("yes"), of("no"), cells[~cells["predicted"].isin(["yes", "no"])]
    reasons = (no["reason"].fillna("") if "reason" in no.columns  # `sweeps.report` has none
               else pd.Series("", index=no.index, dtype="string"))
    a_only = no[reasons.str.contains(ONLY_A, regex=False)]

    def n(frame: pd.DataFrame, column: str, value: bool = True) -> int:
        return int((frame[column].astype(bool) == value).sum())

    def untested(frame: pd.DataFrame) -> int:
        return int((frame["untested_short"].astype(bool) & ~frame["observed"].astype(bool)).sum())

    return {
        "yes_cells": len(yes), "yes_learned": n(yes, "observed"),
        "yes_learned_papers": n(yes, "papers_observed"), "yes_untested": untested(yes),
        "no_cells": len(no), "no_held": len(no) - n(no, "observed") - untested(no),
        "no_held_papers": n(no, "papers_observed", False), "no_untested": untested(no),
        "unknown_cells": len(unknown), "unknown_learned": n(unknown, "observed"),
        "unknown_learned_papers": n(unknown, "papers_observed"),
        "no_a_only_cells": len(a_only),
        "no_a_only_held": len(a_only) - n(a_only, "observed") - untested(a_only),
    }


def _judged(comparison: pd.DataFrame) -> pd.DataFrame:
    frame = comparison[comparison["completed"].fillna(0).astype(int) > 0]
    return frame.assign(**{c: frame[c].fillna(False) for c in
                           ("observed", "papers_observed", "untested_short")})


#: The architecture families of `cell_family`, in table order.
FAMILIES = ("causal attention", "encoder", "state space")


def cell_family(label: str) -> str:
    """The architecture family of a cell label: "state space" when a layer has an SSM mixer
    (Samba- and Jamba-style hybrids included), "encoder" when a head has an encoder atom
    (docs/theory.md §13; the Sparse Transformer's causal heads included), else "causal
    attention"; "other" for a spelling that no longer parses."""
    base = Cell.parse(label).layout
    try:
        if has_mixers(base):
            return FAMILIES[2]
        atoms = [a for pattern in parse_spelling(base).patterns for a in pattern]
    except ExpressivityError:
        return "other"
    return FAMILIES[1] if is_encoder(atoms) else FAMILIES[0]


def _depth_aware(comparison: pd.DataFrame) -> pd.DataFrame:
    """The frame with each cell's prediction at the model's own depth as ``predicted`` (and
    its reason as ``reason``)."""
    at = comparison.get("predicted_at_depth")
    if at is None:
        return comparison.assign(predicted="unknown", reason=pd.NA)
    return comparison.assign(predicted=at.fillna("unknown"),
                             reason=comparison.get("reason_at_depth", pd.NA))


def family_recall_table(comparison: pd.DataFrame, *, at_depth: bool = False) -> pd.DataFrame:
    """`recall_table`'s counts per architecture family (`cell_family`) × class group, then per
    family, then over all (the ``layout`` column holds the family); ``at_depth`` judges each
    cell by its prediction at the model's own number of layers (docs/theory.md §8)."""
    frame = _judged(_depth_aware(comparison) if at_depth else comparison)
    frame = frame.assign(layout=[cell_family(str(x)) for x in frame["layout"]])
    rows = []
    for family in [*FAMILIES, "other"]:
        cells = frame[frame["layout"] == family]
        if not len(cells):
            continue
        for group in GROUPS:
            part = cells[cells["group"] == group]
            if len(part):
                rows.append({"layout": family, "group": group, **_counts(part)})
        rows.append({"layout": family, "group": "all", **_counts(cells)})
    if len(frame):
        rows.append({"layout": "all", "group": "all", **_counts(frame)})
    table = pd.DataFrame(rows, columns=list(RECALL_COLUMNS))
    return table.astype(RECALL_COLUMNS).reset_index(drop=True)


def recall_table(comparison: pd.DataFrame) -> pd.DataFrame:
    """Per layout × class group, then per layout over all groups (`RECALL_COLUMNS`), of a
    `comparison.predicted_vs_observed` table; cells without completed runs are left out."""
    frame = _judged(comparison)
    rows = []
    for layout in layout_order(frame["layout"].astype(str)):
        cells = frame[frame["layout"] == layout]
        for group in GROUPS:
            part = cells[cells["group"] == group]
            if len(part):
                rows.append({"layout": layout, "group": group, **_counts(part)})
        rows.append({"layout": layout, "group": "all", **_counts(cells)})
    if len(frame):
        rows.append({"layout": "all", "group": "all", **_counts(frame)})
    table = pd.DataFrame(rows, columns=list(RECALL_COLUMNS))
    return table.astype(RECALL_COLUMNS).reset_index(drop=True)


def ratio_table(rows: pd.DataFrame, keys: dict[str, list[str]]) -> pd.DataFrame:
    """Rows of `RECALL_COLUMNS` counts as "learned / total" texts, after the ``keys`` columns
    (both criteria, and the cells not tested on short words)."""

    def ratio(a: str, b: str) -> list[str]:
        return [f"{int(x)}/{int(y)}" for x, y in zip(rows[a], rows[b], strict=True)]

    return pd.DataFrame({
        **keys,
        "proven-yes learned (ours)": ratio("yes_learned", "yes_cells"),
        "(papers')": ratio("yes_learned_papers", "yes_cells"),
        "certified-no held (ours)": ratio("no_held", "no_cells"),
        "(papers') ": ratio("no_held_papers", "no_cells"),
        "of them A only, held (ours)": ratio("no_a_only_held", "no_a_only_cells"),
        "unknown learned (ours)": ratio("unknown_learned", "unknown_cells"),
        "(papers')  ": ratio("unknown_learned_papers", "unknown_cells"),
        "not tested on short words": [int(a) + int(b) for a, b in
                                      zip(rows["yes_untested"], rows["no_untested"], strict=True)],
    })


def recall_by_group(comparison: pd.DataFrame) -> pd.DataFrame:
    """Per class group over every layout (layout "all"), then the total row ("all" × "all"):
    the per-class statement of the honest split (`RECALL_COLUMNS`)."""
    frame = _judged(comparison)
    rows = [{"layout": "all", "group": group, **_counts(frame[frame["group"] == group])}
            for group in GROUPS if (frame["group"] == group).any()]
    if len(frame):
        rows.append({"layout": "all", "group": "all", **_counts(frame)})
    table = pd.DataFrame(rows, columns=list(RECALL_COLUMNS))
    return table.astype(RECALL_COLUMNS).reset_index(drop=True)


@dataclass(frozen=True)
class HonestSplit:
    """The counts of `recall_table`'s total row, and their one-line statement."""

    counts: tuple[tuple[str, int], ...]

    def __getitem__(self, name: str) -> int:
        return dict(self.counts)[name]

    def __str__(self) -> str:
        c = dict(self.counts)
        if not c:
            return "no cell with completed runs"

        def part(learned: int, total: int) -> str:
            return f"{learned}/{total}" + (f" ({100 * learned / total:.0f} %)" if total else "")

        a_only = (f" (of them relative to reading model A only: {c['no_a_only_held']}/"
                  f"{c['no_a_only_cells']})" if c.get("no_a_only_cells") else "")
        untested = (f"; {c['yes_untested']} proven-yes and {c['no_untested']} certified-no "
                    "cells not tested on short words (counted as neither)"
                    if c["yes_untested"] or c["no_untested"] else "")
        return (
            f"proven-yes cells learned {part(c['yes_learned'], c['yes_cells'])} by our "
            f"criterion, {part(c['yes_learned_papers'], c['yes_cells'])} by the papers'; "
            f"certified-no cells held {part(c['no_held'], c['no_cells'])} by ours{a_only}, "
            f"{part(c['no_held_papers'], c['no_cells'])} by the papers'; unknown cells learned "
            f"{c['unknown_learned']}/{c['unknown_cells']} by ours, "
            f"{c['unknown_learned_papers']}/{c['unknown_cells']} by the papers'{untested}"
        )


def honest_split(comparison: pd.DataFrame, *, at_depth: bool = False) -> HonestSplit:
    """The whole table's `HonestSplit` (the "all × all" row of `recall_table`); ``at_depth``
    judges each cell by its prediction at the model's own number of layers."""
    frame = _judged(_depth_aware(comparison) if at_depth else comparison)
    if not len(frame):
        return HonestSplit(())
    return HonestSplit(tuple(_counts(frame).items()))
