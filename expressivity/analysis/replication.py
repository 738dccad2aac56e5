"""The same runs on another machine: a replica store's runs beside the originals of one run id.

A replica store holds runs trained again under the run ids of an original store: the same spec
and seed, so the same data, initial weights and batch order (docs/guide/training.md, "The same
seed on another machine"). What can still differ is the float rounding of the processor and
its kernels, and the code when a fingerprint differs. `replication_runs` pairs the two stores'
completed runs by run id and gives, per pair: both codes and the replica's machine
(`extra["machine"]`, "unknown" for runs stored before that tag), whether the pair is the
*same in metrics* (every stored metric of `METRICS` and the short-word count equal) and
*identical* (the whole validation curve too, the losses to the last digit), the test and
adversarial accuracy and N* of both, and both verdicts by our criterion (every test string,
adversarial pair and short word) and by the papers' (100 % test accuracy).
`replication_cells` asks what the original store's cells would read if every replicated run
replaced its original (`levers.lever_comparison` before and after, so the theory and the cell
verdicts are the tables' own). `replication_summary` counts both.

``python -m expressivity.analysis.replication ORIGINAL REPLICA --out FILE`` writes all three as
Markdown with both stores' runs digests (the committed file is generated, never typed).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from expressivity.errors import StoreError
from expressivity.sweeps.cells import row_cell
from expressivity.sweeps.report import SHORT_PASSED, short_word_status

__all__ = ["CELL_COLUMNS", "METRICS", "RUN_COLUMNS", "main", "replication_cells",
           "replication_runs", "replication_summary"]

#: Stored numbers a replicated run must repeat exactly to count as the same in metrics (beside
#: the short-word count; *identical* asks the validation curve in ``extra`` too).
METRICS = ("test_accuracy", "adversarial_accuracy", "train_accuracy", "val_accuracy", "n_star",
           "steps")

#: Columns of `replication_runs`.
RUN_COLUMNS = ("run_id", "language", "layout", "cell", "seed", "code", "replica_code", "same_code",
               "machine", "same_metrics", "identical", "test", "replica_test", "adversarial",
               "replica_adversarial", "n_star", "replica_n_star", "ours", "replica_ours",
               "papers", "replica_papers")

#: Columns of `replication_cells`.
CELL_COLUMNS = ("language", "cell", "predicted", "observed", "replica_observed",
                "papers_observed", "replica_papers_observed")


def _equal(a: Any, b: Any) -> bool:
    """Exact equality of two stored numbers, NaN equal to NaN (a metric neither run has)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _trace(extra: str) -> tuple[Any, Any]:
    """The short-word count and the validation curve a run stored in ``extra``."""
    doc = json.loads(extra)
    short = doc.get("short_words") or {}
    return (short.get("n"), short.get("correct")), doc.get("history")


def _machine(extra: str) -> str:
    machine = json.loads(extra).get("machine")
    if not machine:
        return "unknown"
    named = ("cpu_model", "cpu_signature", "cpu_capability")
    rest = [f"{k}={v}" for k, v in machine.items() if k not in named]
    return ", ".join([*(str(machine[k]) for k in named if machine.get(k)), *rest])


def _ours(row: dict[str, Any]) -> bool:
    """Our criterion for one stored run, as `sweeps.report.cell_statistics` counts it."""
    return bool(row["recognized"]) and short_word_status(row["extra"]) == SHORT_PASSED


def replication_runs(original: pd.DataFrame, replica: pd.DataFrame) -> pd.DataFrame:
    """One row per completed run of ``replica`` whose run id has a completed run in
    ``original`` (both `ResultsStore.runs` frames as stored), in the replica's order: see
    `RUN_COLUMNS` and the module docstring. ``same_metrics`` compares `METRICS` and the
    short-word count exactly, ``identical`` also the validation curve; ``same_code`` compares
    the code fingerprints."""
    done = original[original["status"] == "completed"].set_index("run_id", drop=False)
    rows = []
    for new in replica[replica["status"] == "completed"].to_dict("records"):
        if new["run_id"] not in done.index:
            continue
        old = done.loc[new["run_id"]].to_dict()
        (short_old, curve_old), (short_new, curve_new) = _trace(old["extra"]), _trace(new["extra"])
        same = all(_equal(old[m], new[m]) for m in METRICS) and short_old == short_new
        rows.append({
            "run_id": new["run_id"], "language": new["language"], "layout": new["layout"],
            "cell": row_cell(new).label, "seed": int(new["seed"]),
            "code": old.get("code_fingerprint"), "replica_code": new.get("code_fingerprint"),
            "same_code": old.get("code_fingerprint") == new.get("code_fingerprint"),
            "machine": _machine(new["extra"]),
            "same_metrics": same, "identical": same and curve_old == curve_new,
            "test": old["test_accuracy"], "replica_test": new["test_accuracy"],
            "adversarial": old["adversarial_accuracy"],
            "replica_adversarial": new["adversarial_accuracy"],
            "n_star": old["n_star"], "replica_n_star": new["n_star"],
            "ours": _ours(old), "replica_ours": _ours(new),
            "papers": old["test_accuracy"] >= 1.0, "replica_papers": new["test_accuracy"] >= 1.0,
        })
    return pd.DataFrame(rows, columns=list(RUN_COLUMNS))


def replication_cells(original: pd.DataFrame, replica: pd.DataFrame,
                      pairs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per cell of ``original`` with a replicated run (its language and cell label: layout,
    readout and the rest, `sweeps.cells`): its theory verdict (unbounded depth), and whether it
    is learned by ours and by the papers' from the original's runs and from the same runs with
    every replicated run (same code only) in place of its original. ``pairs``: the two
    stores' `replication_runs`, when the caller has it already."""
    from expressivity.analysis.levers import lever_comparison

    pairs = replication_runs(original, replica) if pairs is None else pairs
    pairs = pairs[pairs["same_code"]]
    if pairs.empty:
        return pd.DataFrame(columns=list(CELL_COLUMNS))
    cells = set(zip(pairs["language"], pairs["layout"], strict=True))
    keep = pd.Series([(lang, lay) in cells for lang, lay in
                      zip(original["language"], original["layout"], strict=True)],
                     index=original.index)
    before = original[keep & (original["status"] == "completed")]
    swapped = replica[replica["run_id"].isin(set(pairs["run_id"]))]
    after = pd.concat([before[~before["run_id"].isin(set(pairs["run_id"]))], swapped],
                      ignore_index=True)
    columns = ["language", "layout", "predicted", "observed", "papers_observed"]
    table = lever_comparison(before, labels=True)[columns].merge(
        lever_comparison(after, labels=True)[["language", "layout", "observed",
                                              "papers_observed"]],
        on=["language", "layout"], suffixes=("", "_replica"))
    table = table.rename(columns={"layout": "cell", "observed_replica": "replica_observed",
                                  "papers_observed_replica": "replica_papers_observed"})
    mine = set(zip(pairs["language"], pairs["cell"], strict=True))
    table = table[[(lang, c) in mine for lang, c in
                   zip(table["language"], table["cell"], strict=True)]]
    return table[list(CELL_COLUMNS)].reset_index(drop=True)


def replication_summary(runs: pd.DataFrame, cells: pd.DataFrame) -> dict[str, float]:
    """Counts of `replication_runs` (same code only, beside ``different_code``) and of
    `replication_cells`: runs identical and the same in metrics, verdicts gained and lost by
    ours and by the papers', and the proven-yes cells learned and certified-no cells held
    before and after. The ``yes_runs_…`` entries pair the runs of proven-yes cells as
    `analysis.lever_pairing` pairs two levers' cells (learned by both, by the original only,
    by the replica only, by neither; ``yes_runs_p``: the exact McNemar p of the discordant
    runs): two machines under one protocol are the null comparison of two levers, the noise
    a lever's discordant cells must exceed."""
    from expressivity.analysis.lever_pairing import mcnemar_exact

    same = runs[runs["same_code"]]
    yes = cells[cells["predicted"] == "yes"]
    no = cells[cells["predicted"] == "no"]
    proven = set(zip(yes["language"], yes["cell"], strict=True))
    in_yes = same[pd.Series([(lang, c) in proven for lang, c in
                             zip(same["language"], same["cell"], strict=True)],
                            index=same.index, dtype=bool)]
    a, b = in_yes["ours"].astype(bool), in_yes["replica_ours"].astype(bool)
    only_original, only_replica = int((a & ~b).sum()), int((~a & b).sum())
    return {
        "runs": len(same), "different_code": int((~runs["same_code"]).sum()),
        "identical": int(same["identical"].sum()),
        "same_metrics": int(same["same_metrics"].sum()),
        "ours_gained": int((~same["ours"] & same["replica_ours"]).sum()),
        "ours_lost": int((same["ours"] & ~same["replica_ours"]).sum()),
        "papers_gained": int((~same["papers"] & same["replica_papers"]).sum()),
        "papers_lost": int((same["papers"] & ~same["replica_papers"]).sum()),
        "cells": len(cells), "yes_cells": len(yes), "no_cells": len(no),
        "yes_learned": int(yes["observed"].astype(bool).sum()),
        "replica_yes_learned": int(yes["replica_observed"].astype(bool).sum()),
        "yes_papers": int(yes["papers_observed"].astype(bool).sum()),
        "replica_yes_papers": int(yes["replica_papers_observed"].astype(bool).sum()),
        "no_held": int((~no["observed"].astype(bool)).sum()),
        "replica_no_held": int((~no["replica_observed"].astype(bool)).sum()),
        "yes_runs": len(in_yes), "yes_runs_both": int((a & b).sum()),
        "yes_runs_only_original": only_original, "yes_runs_only_replica": only_replica,
        "yes_runs_neither": int((~a & ~b).sum()),
        "yes_runs_p": mcnemar_exact(only_original, only_replica),
    }


def _flips(cells: pd.DataFrame) -> str:
    changed = cells[(cells["observed"].astype(bool) != cells["replica_observed"].astype(bool))]
    return ", ".join(
        f"{r.language} × {r.cell} ({r.predicted}: "
        f"{'learned → not' if r.observed else 'not → learned'})"
        for r in changed.itertuples()) or "none"


def main(argv: Sequence[str] | None = None) -> int:
    """Write `replication_runs`, `replication_cells` and their summary as Markdown."""
    from expressivity.analysis.provenance import runs_digest, write_page
    from expressivity.analysis.rerun import stored_runs
    from expressivity.sweeps.report import to_markdown

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("original")
    parser.add_argument("replica")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    original, replica = stored_runs(args.original), stored_runs(args.replica)
    runs = replication_runs(original, replica)
    if runs.empty:
        raise StoreError(f"{args.replica}: no completed run shares a run id with "
                         f"{args.original}; train the replica with the original's spec")
    cells = replication_cells(original, replica, runs)
    s = replication_summary(runs, cells)
    machines = ", ".join(sorted(set(runs["machine"]))) or "unknown"
    command = (f"python -m expressivity.analysis.replication {args.original} {args.replica} "
               f"--out {args.out}")
    write_page(args.out, "The same runs on another machine", command,
               f"the runs digests `{runs_digest(original)}` (original) and "
               f"`{runs_digest(replica)}` (replica)", [
        f"**{s['runs']} runs trained again under their run ids by the same code "
        f"({s['different_code']} more by another code, left out): {s['same_metrics']} with "
        f"the same metrics (test, adversarial, train and validation accuracy, N*, steps, "
        f"short words), "
        f"{s['identical']} identical (every validation loss too); by our criterion "
        f"{s['ours_gained']} gained and {s['ours_lost']} lost, by the papers' "
        f"{s['papers_gained']} gained and {s['papers_lost']} lost.** Replica machine: "
        f"{machines}.", "",
        f"Over the original store's {s['cells']} cells with a replicated run, the replicated "
        f"runs in place of their originals: proven-yes cells learned {s['yes_learned']}/"
        f"{s['yes_cells']} → {s['replica_yes_learned']}/{s['yes_cells']} by ours, "
        f"{s['yes_papers']} → {s['replica_yes_papers']} by the papers'; certified-no cells "
        f"held {s['no_held']}/{s['no_cells']} → {s['replica_no_held']}/{s['no_cells']}. "
        f"Cells that change (ours): {_flips(cells)}.", "",
        f"Run by run over the proven-yes cells ({s['yes_runs']} runs), as "
        f"`analysis.lever_pairing` pairs two levers: learned (ours) by both "
        f"{s['yes_runs_both']}, by the original only {s['yes_runs_only_original']}, by the "
        f"replica only {s['yes_runs_only_replica']}, by neither {s['yes_runs_neither']} "
        f"(exact McNemar p = {s['yes_runs_p']:.3g}). One protocol on two machines is the null "
        "comparison of two levers: a lever's discordant cells on one seed are evidence only "
        "beyond this split.", "",
        "## Runs", "",
        "`ours` and `papers`: the run's verdict by our criterion and by the papers' (100 % "
        "test accuracy); `replica_…`: the same run trained again.", "",
        to_markdown(runs.drop(columns=["code", "replica_code"])), "",
        "## Cells", "",
        "`observed`: learned by ours from the original runs; `replica_observed`: with the "
        "replicated runs in their place (`predicted`: the theory, unbounded depth).", "",
        to_markdown(cells), "",
    ])
    print(f"{s['runs']} runs: {s['same_metrics']} same metrics, {s['identical']} identical, "
          f"ours {s['ours_gained']} gained {s['ours_lost']} lost; proven-yes cells "
          f"{s['yes_learned']} → {s['replica_yes_learned']} of {s['yes_cells']}; "
          f"written to {args.out}")
    return 0


if __name__ == "__main__":
    from expressivity.errors import script_status

    raise SystemExit(script_status(main))
