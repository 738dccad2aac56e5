"""Two levers of an ablation sweep, cell by cell: discordant proven-yes cells, exact McNemar.

`levers.lever_table` counts each lever's proven-yes cells learned; two counts can tie while
the levers learn different cells, and a difference of a few cells may be the seeds' noise.
`lever_pairs` pairs the levers' cells (same language, same layout of the spec's grid) and, for
every pair of levers, counts the proven-yes cells (proven under both levers' cells, unbounded
depth) learned by both, by the first only, by the second only and by neither, by our criterion
and by the papers'. The two-sided exact McNemar test asks whether the discordant cells split
more unevenly than a fair coin would: under the null hypothesis that the levers are
exchangeable on every cell, each of the ``b + c`` discordant cells goes either way with
probability 1/2, and ``p = min(1, 2 · P[Bin(b + c, 1/2) ≤ min(b, c)])``. Cells are not
independent draws (they share languages and layouts), so the p-value is a guide to the noise
of one table, not a test over a population of tables.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import pandas as pd

from expressivity.analysis.levers import lever_comparison
from expressivity.sweeps.grid import SweepSpec, lever_runs

__all__ = ["ALL_PAIRS_UP_TO", "PAIR_COLUMNS", "lever_cells", "lever_pairs", "mcnemar_exact",
           "sweep_lever_pairs"]

#: Up to this many levers `lever_pairs` compares every pair (a 2 × 2 design's 6); beyond it,
#: every lever against the spec's first (its baseline), so a 11-lever pilot gives 10 rows, not 55.
ALL_PAIRS_UP_TO = 4

#: Columns of `lever_pairs` (``only_a_cells``: the cells the first lever alone learned, by ours).
PAIR_COLUMNS = ("lever_a", "lever_b", "yes_cells", "both", "only_a", "only_b", "neither",
                "p_value", "only_a_papers", "only_b_papers", "only_a_cells", "only_b_cells")


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value of ``b`` and ``c`` discordant pairs (1.0 when none)."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, not {b} and {c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**n)


def lever_cells(runs: pd.DataFrame, spec: SweepSpec) -> dict[str, pd.DataFrame]:
    """Per lever of ``spec`` with stored runs, one row per cell of its grid: ``language``,
    ``layout`` (the spec's, not the cell label, so levers that change the model still pair),
    ``predicted`` (unbounded depth), ``observed`` (ours) and ``papers_observed``; ``runs`` is a
    `ResultsStore.runs` frame as stored."""
    out: dict[str, pd.DataFrame] = {}
    for lever, specs in lever_runs(spec).items():
        mine = runs[runs["run_id"].isin({r.run_id for r in specs})]
        if not mine.empty:
            out[lever or "(grid)"] = lever_comparison(mine)[
                ["language", "layout", "predicted", "observed", "papers_observed"]
            ].reset_index(drop=True)
    return out


def _names(frame: pd.DataFrame) -> str:
    return "; ".join(f"{lang} × {layout}" for lang, layout in zip(frame["language"],
                                                                   frame["layout"], strict=True))


def lever_pairs(cells: dict[str, pd.DataFrame], *, all_pairs: bool | None = None
                ) -> pd.DataFrame:
    """Pairs of levers of `lever_cells`, in the spec's order (`PAIR_COLUMNS`): every pair when
    ``all_pairs`` (default: at most `ALL_PAIRS_UP_TO` levers), else each lever against the
    first."""
    names = list(cells)
    if all_pairs is None:
        all_pairs = len(names) <= ALL_PAIRS_UP_TO
    pairs = (list(combinations(names, 2)) if all_pairs
             else [(names[0], other) for other in names[1:]])
    rows = []
    for a, b in pairs:
        both = cells[a].merge(cells[b], on=["language", "layout"], suffixes=("_a", "_b"))
        yes = both[(both["predicted_a"] == "yes") & (both["predicted_b"] == "yes")]
        ours_a, ours_b = yes["observed_a"].astype(bool), yes["observed_b"].astype(bool)
        pap_a, pap_b = yes["papers_observed_a"].astype(bool), yes["papers_observed_b"].astype(bool)
        only_a, only_b = int((ours_a & ~ours_b).sum()), int((ours_b & ~ours_a).sum())
        rows.append({
            "lever_a": a, "lever_b": b, "yes_cells": len(yes),
            "both": int((ours_a & ours_b).sum()), "only_a": only_a, "only_b": only_b,
            "neither": int((~ours_a & ~ours_b).sum()),
            # two significant digits, as text: a table shows floats with 3 decimals (9.5e-07: 0.001)
            "p_value": f"{mcnemar_exact(only_a, only_b):.2g}",
            "only_a_papers": int((pap_a & ~pap_b).sum()),
            "only_b_papers": int((pap_b & ~pap_a).sum()),
            "only_a_cells": _names(yes[ours_a & ~ours_b]),
            "only_b_cells": _names(yes[ours_b & ~ours_a]),
        })
    return pd.DataFrame(rows, columns=list(PAIR_COLUMNS))


def sweep_lever_pairs(runs: pd.DataFrame, specs: dict[str, SweepSpec]) -> pd.DataFrame:
    """`lever_pairs` of every sweep of ``specs`` (`levers.chosen_specs`) with two or more
    levers, with a ``sweep`` column first; empty when there is none."""
    parts = []
    for name, spec in specs.items():
        cells = lever_cells(runs, spec)
        if len(cells) >= 2:
            parts.append(lever_pairs(cells).assign(sweep=name))
    if not parts:
        return pd.DataFrame(columns=["sweep", *PAIR_COLUMNS])
    table = pd.concat(parts, ignore_index=True)
    return table[["sweep", *PAIR_COLUMNS]]
