"""Recall per lever of an ablation sweep (``[[lever]]`` tables, `sweeps.spec.lever_runs`).

For each lever, the store's runs of that lever's grid are summarized like a store of their own
(cells by `sweeps.cells`, predictions by `classes.predictions`) and counted as in
`recall.recall_table`'s total row: proven-yes cells learned by our criterion and by the papers',
certified-no cells held, unknown cells learned, plus the runs' wall time (seconds, summed over
runs: CPU-seconds on one thread each).
"""

from __future__ import annotations

import pandas as pd

from expressivity.analysis.classes import predictions
from expressivity.analysis.comparison import predicted_vs_observed
from expressivity.analysis.recall import honest_split
from expressivity.analysis.tables import language_keys, summarize
from expressivity.errors import ExpressivityError
from expressivity.sweeps.cells import with_cells
from expressivity.sweeps.spec import SweepSpec, lever_runs, parse_sweep

__all__ = ["LEVER_COLUMNS", "lever_table", "sweep_lever_tables"]

#: Columns of `lever_table`.
LEVER_COLUMNS = ("lever", "runs", "completed", "yes_cells", "yes_learned", "yes_learned_papers",
                 "no_cells", "no_held", "unknown_cells", "unknown_learned", "run_seconds")


def lever_table(runs: pd.DataFrame, spec: SweepSpec) -> pd.DataFrame:
    """One row per lever of ``spec`` (`LEVER_COLUMNS`) over the ``runs`` of a results store
    (a `ResultsStore.runs` frame); levers with no stored run have zero counts."""
    rows = []
    for lever, specs in lever_runs(spec).items():
        ids = {r.run_id for r in specs}
        mine = runs[runs["run_id"].isin(ids)]
        row: dict[str, object] = {"lever": lever or "(grid)", "runs": len(specs),
                                  "completed": int((mine["status"] == "completed").sum()),
                                  "run_seconds": float(mine["wall_time"].fillna(0).sum())}
        if len(mine):
            (cells,) = with_cells(mine)
            keys = language_keys(cells)
            summary = summarize(cells, keys)
            theory = predictions(keys, list(dict.fromkeys(cells["layout"])))
            split = honest_split(predicted_vs_observed(summary, theory))
            row.update({k: split[k] for k in LEVER_COLUMNS if k in dict(split.counts)})
        rows.append(row)
    frame = pd.DataFrame(rows, columns=list(LEVER_COLUMNS))
    counts = [c for c in LEVER_COLUMNS if c not in ("lever", "run_seconds")]
    return frame.fillna(dict.fromkeys(counts, 0)).astype(dict.fromkeys(counts, "Int64"))


def sweep_lever_tables(sweeps: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """`lever_table` of every registered sweep with ``[[lever]]`` tables (``sweeps``: a
    `ResultsStore.sweeps` frame in registration order; ``runs``: the store's runs as stored,
    not relabelled by `with_cells`), with a ``sweep`` column first. A sweep registered under
    several specs (its levers were edited between sessions, or a part of it was run alone)
    counts by the spec the store's completed runs cover most (the latest of equals); a sweep
    whose runs are all runs of another listed sweep (a first slice that the full ablation
    resumed) is left out, as is one whose spec no longer parses (the catalogue or profiles
    changed). Empty when no sweep has levers."""
    done = set(runs.loc[runs["status"] == "completed", "run_id"])
    latest: dict[str, SweepSpec] = {}
    ids: dict[str, set[str]] = {}
    for name, source, path in zip(sweeps["name"], sweeps["source"], sweeps["path"],
                                  strict=True):
        try:
            spec = parse_sweep(str(source), str(path))
        except ExpressivityError:
            continue
        if not spec.levers:
            continue
        mine = {r.run_id for rs in lever_runs(spec).values() for r in rs}
        if str(name) not in latest or len(mine & done) >= len(ids[str(name)] & done):
            latest.pop(str(name), None)  # re-inserted last: keeps the registration order
            latest[str(name)], ids[str(name)] = spec, mine
    kept = [name for name in latest
            if not any(other != name and ids[name] < ids[other] for other in latest)]
    if not kept:
        return pd.DataFrame(columns=["sweep", *LEVER_COLUMNS])
    table = pd.concat([lever_table(runs, latest[n]).assign(sweep=n) for n in kept],
                      ignore_index=True)
    return table[["sweep", *LEVER_COLUMNS]]
