"""Recall per lever of an ablation sweep (``[[lever]]`` tables, `sweeps.grid.lever_runs`).

`lever_lengths` shows where in length each lever's runs go wrong: test accuracy per cell and
lever in bins of `LENGTH_BIN` lengths (a lever that fits short words but decays at length is
visible there, where a recall count only says "not learned").

For each lever, the store's runs of that lever's grid are summarized like a store of their own
(cells by `sweeps.cells`, predictions by `prediction_table.predictions`) and counted as in
`recall.recall_table`'s total row: proven-yes cells learned by our criterion and by the papers',
certified-no cells held, unknown cells learned, plus the completed runs of the proven-yes
cells and how many of them are recognized by our criterion (a lever that swaps cells between
seeds moves the cell count and not this one), and the runs' wall time (seconds, summed over
runs: CPU-seconds on one thread each).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from expressivity.analysis.comparison import predicted_vs_observed
from expressivity.analysis.prediction_table import predictions
from expressivity.analysis.recall import honest_split
from expressivity.analysis.tables import language_keys, summarize
from expressivity.errors import ConfigError, ExpressivityError, StoreError
from expressivity.sweeps.cells import with_cells
from expressivity.sweeps.grid import SweepSpec, lever_runs
from expressivity.sweeps.spec import parse_sweep

__all__ = ["LENGTH_BIN", "LEVER_COLUMNS", "chosen_specs", "lever_comparison", "lever_lengths",
           "lever_run_ids", "lever_selection", "lever_table", "sweep_lever_lengths",
           "sweep_lever_tables"]

#: Columns of `lever_table`.
LEVER_COLUMNS = ("lever", "runs", "completed", "yes_cells", "yes_learned", "yes_learned_papers",
                 "yes_runs", "yes_runs_recognized", "no_cells", "no_held", "unknown_cells",
                 "unknown_learned", "run_seconds")


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
            labelled = _comparison(cells)
            split = honest_split(_by_spec_layout(labelled, cells, mine))
            row.update({k: split[k] for k in LEVER_COLUMNS if k in dict(split.counts)})
            row.update(_yes_runs(cells, labelled))
        rows.append(row)
    frame = pd.DataFrame(rows, columns=list(LEVER_COLUMNS))
    counts = [c for c in LEVER_COLUMNS if c not in ("lever", "run_seconds")]
    return frame.fillna(dict.fromkeys(counts, 0)).astype(dict.fromkeys(counts, "Int64"))


def _yes_runs(cells: pd.DataFrame, labelled: pd.DataFrame) -> dict[str, int]:
    """The completed runs of ``cells`` (one lever's runs, each labelled with its own cell:
    layout with readout and scale) in the proven-yes cells of ``labelled`` (their comparison by
    cell label), and how many of them are recognized (ours)."""
    done = cells[cells["status"] == "completed"]
    proven = labelled[labelled["predicted"] == "yes"]
    yes = set(zip(proven["language"], _alphabets(proven), proven["layout"], strict=True))
    in_yes = [k in yes for k in zip(done["language"], _alphabets(done), done["layout"],
                                    strict=True)]
    recognized = done["recognized"].fillna(False).astype(bool)
    return {"yes_runs": int(sum(in_yes)), "yes_runs_recognized": int(recognized[in_yes].sum())}


def _alphabets(frame: pd.DataFrame) -> list[str]:
    """The alphabet override of each row as a plain string ("" = the catalogue's)."""
    return frame["alphabet"].fillna("").astype(str).tolist()


def lever_comparison(mine: pd.DataFrame, *, labels: bool = False) -> pd.DataFrame:
    """`comparison.predicted_vs_observed` of one lever's stored runs ``mine`` (a non-empty
    `ResultsStore.runs` frame as stored), its ``layout`` the spec's layout rather than the cell
    label (``global`` for ``global+ssmax``), so that the cells of two levers pair; with
    ``labels`` the cell label stays (``window-1 @cls`` and ``window-1 @eos`` are two cells of
    one spec layout), for comparing runs of one protocol."""
    (cells,) = with_cells(mine)
    labelled = _comparison(cells)
    return labelled if labels else _by_spec_layout(labelled, cells, mine)


def _comparison(cells: pd.DataFrame) -> pd.DataFrame:
    """`comparison.predicted_vs_observed` of runs labelled by `with_cells`, by cell label."""
    keys = language_keys(cells)
    theory = predictions(keys, list(dict.fromkeys(cells["layout"])))
    return predicted_vs_observed(summarize(cells, keys), theory)


def _by_spec_layout(frame: pd.DataFrame, cells: pd.DataFrame, mine: pd.DataFrame
                    ) -> pd.DataFrame:
    """``frame`` with each cell label replaced by the spec layout of its runs (``cells``: the
    runs ``mine`` as `with_cells` labels them)."""
    base = dict(zip(cells["layout"], mine["layout"], strict=True))  # cell label → spec layout
    return frame.assign(layout=frame["layout"].map(base).fillna(frame["layout"]))


def sweep_lever_tables(sweeps: pd.DataFrame, runs: pd.DataFrame, *,
                       specs: dict[str, SweepSpec] | None = None) -> pd.DataFrame:
    """`lever_table` of every registered sweep with ``[[lever]]`` tables (``sweeps``: a
    `ResultsStore.sweeps` frame in registration order; ``runs``: the store's runs as stored,
    not relabelled by `with_cells`), with a ``sweep`` column first. A sweep registered under
    several specs (its levers were edited between sessions, or a part of it was run alone)
    counts by the spec the store's completed runs cover most (the latest of equals); a sweep
    whose runs are all runs of another listed sweep (a first slice that the full ablation
    resumed) is left out, as is one whose spec no longer parses (the catalogue or profiles
    changed). Empty when no sweep has levers. ``specs``: `chosen_specs` of the same frames,
    when the caller has it already (the specs are then not parsed again)."""
    latest = chosen_specs(sweeps, runs) if specs is None else specs
    if not latest:
        return pd.DataFrame(columns=["sweep", *LEVER_COLUMNS])
    table = pd.concat([lever_table(runs, spec).assign(sweep=n) for n, spec in latest.items()],
                      ignore_index=True)
    return table[["sweep", *LEVER_COLUMNS]]


#: Width of the length bins of `lever_lengths` (test lengths 41-500: 41-100, 101-200, ...).
LENGTH_BIN = 100


def lever_lengths(runs: pd.DataFrame, lengths: pd.DataFrame, spec: SweepSpec) -> pd.DataFrame:
    """Per lever of ``spec`` and cell (language, layout as stored), its completed runs, how
    many are recognized (ours), and the pooled test accuracy in each bin of `LENGTH_BIN`
    lengths (columns "41-100", "101-200", ...: correct / tested strings over the runs) and
    the mean adversarial accuracy of its runs (random test words of length >= 40 rarely miss
    a letter: LT-1's memory shows only there), from
    ``runs`` (`ResultsStore.runs`) and ``lengths`` (`ResultsStore.lengths`)."""
    done = runs[runs["status"] == "completed"]
    bins = sorted({(int(n) - 1) // LENGTH_BIN for n in lengths["length"]})
    spans = {b: lengths.loc[(lengths["length"] - 1) // LENGTH_BIN == b, "length"] for b in bins}
    names = {b: f"{int(spans[b].min())}-{int(spans[b].max())}" for b in bins}
    rows = []
    for lever, specs in lever_runs(spec).items():
        mine = done[done["run_id"].isin({r.run_id for r in specs})]
        for (language, layout), cell in mine.groupby(["language", "layout"], sort=False):
            row: dict[str, object] = {
                "lever": lever or "(grid)", "language": language, "layout": layout,
                "runs": len(cell), "recognized": int(cell["recognized"].fillna(False)
                                                     .astype(bool).sum())}
            at = lengths[lengths["run_id"].isin(set(cell["run_id"]))]
            for b in bins:
                part = at[(at["length"] - 1) // LENGTH_BIN == b]
                tested = int(part["n"].sum())
                row[names[b]] = round(int(part["correct"].sum()) / tested, 3) if tested else None
            adversarial = pd.to_numeric(cell["adversarial_accuracy"], errors="coerce").mean()
            row["adversarial"] = None if pd.isna(adversarial) else round(float(adversarial), 3)
            rows.append(row)
    columns = ["lever", "language", "layout", "runs", "recognized", *names.values(),
               "adversarial"]
    return pd.DataFrame(rows, columns=columns)


def sweep_lever_lengths(sweeps: pd.DataFrame, runs: pd.DataFrame, lengths: pd.DataFrame, *,
                        specs: dict[str, SweepSpec] | None = None) -> pd.DataFrame:
    """`lever_lengths` of every sweep `sweep_lever_tables` counts, with a ``sweep`` column
    first; empty when no sweep has levers. ``specs`` as in `sweep_lever_tables`."""
    latest = chosen_specs(sweeps, runs) if specs is None else specs
    if not latest:
        return pd.DataFrame()
    parts = [lever_lengths(runs, lengths, spec).assign(sweep=n) for n, spec in latest.items()]
    table = pd.concat(parts, ignore_index=True)
    return table[["sweep", *[c for c in table.columns if c != "sweep"]]]


def chosen_specs(sweeps: pd.DataFrame, runs: pd.DataFrame) -> dict[str, SweepSpec]:
    """The spec each sweep with levers counts by (`sweep_lever_tables`), by sweep name."""
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
    return {name: latest[name] for name in kept}


def lever_run_ids(sweeps: pd.DataFrame, runs: pd.DataFrame, lever: str) -> set[str]:
    """The run ids of ``lever`` in the store's sweeps with levers (each by its `chosen_specs`
    spec); a `StoreError` naming the store's levers when none is called so."""
    found: set[str] = set()
    names: list[str] = []
    for spec in chosen_specs(sweeps, runs).values():
        for name, specs in lever_runs(spec).items():
            names.append(name or "(grid)")
            if (name or "(grid)") == lever:
                found |= {r.run_id for r in specs}
    if not found:
        have = ", ".join(dict.fromkeys(names)) or "none: its sweeps have no [[lever]] tables"
        raise StoreError(f"lever {lever!r}: no such lever in the store's sweeps; its levers: "
                         f"{have}")
    return found


def lever_selection(db: str, lever: str | None, layouts: Sequence[str] | None = None
                    ) -> tuple[pd.DataFrame, set[str] | None]:
    """The runs of the store ``db`` as stored and the run ids of ``lever`` (`lever_run_ids`)
    whose layout is one of ``layouts`` (None for either: no restriction; both None: every run,
    None): what an analysis script's ``--lever`` and ``--layout`` select. A `ConfigError` names
    a layout the store has no run of."""
    from expressivity.sweeps.store import ResultsStore

    with ResultsStore(db, create=False) as store:
        runs = store.runs()
        ids = None if lever is None else lever_run_ids(store.sweeps(), runs, lever)
    if layouts:
        known = set(runs["layout"])
        missing = [layout for layout in layouts if layout not in known]
        if missing:
            raise ConfigError(
                f"--layout: the store {db} has no run of {', '.join(map(repr, missing))}; its "
                f"layouts are {', '.join(sorted(known))}")
        chosen = set(runs.loc[runs["layout"].isin(list(layouts)), "run_id"])
        ids = chosen if ids is None else ids & chosen
    return runs, ids
