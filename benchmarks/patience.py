"""What a patience rule would have saved a stored sweep's runs that trained their whole budget.

A run trained without the patience rule (``train.patience`` = 0) stores every validation
(``extra["history"]``). `training.stopping.patience_stop` replays a rule (``--patience``
consecutive perfect validations after step ``--start``) on that history; under a constant
learning rate nothing else depends on the rule, so the stopped run is the prefix of the stored
one and its training costs ``train_seconds`` × stop / steps. What the replay cannot say is the
stopped run's verdict (its final evaluation was made at the end of the budget): a pilot with
the rule decides that (experiments/ssm-patience-late.toml). Printed per layout: the runs
priced, their run-hours, how many the rule stops (and how many of those the store says were
recognized at the end of their budget), the training run-hours saved and the ratio.

    python benchmarks/patience.py paper_figures/table-v8/table-v8.db --start 1000
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from expressivity.sweeps.store import ResultsStore
from expressivity.training.spec import RunSpec
from expressivity.training.stopping import patience_stop

#: The report's columns (one row per layout, then "all").
COLUMNS = ("layout", "runs", "run-hours", "stopped", "stopped and recognized",
           "run-hours saved", "ratio")


def price(runs: pd.DataFrame, patience: int, start: int) -> pd.DataFrame:
    """The report of a `ResultsStore.runs` frame: every completed run that trained its whole
    budget under a constant learning rate, priced under the patience rule (``patience``,
    ``start``)."""
    rows: dict[str, list[float]] = {}
    for run in runs[runs["status"] == "completed"].itertuples(index=False):
        spec = RunSpec.from_dict(json.loads(str(run.spec)))
        if spec.train.patience or spec.train.schedule != "constant":
            continue
        extra = json.loads(str(run.extra) or "{}")
        steps = int(run.steps)
        cfg = replace(spec.train, patience=patience, patience_start=start)
        stop = patience_stop(cfg, extra.get("history", [])) or steps
        row = rows.setdefault(str(run.layout), [0, 0.0, 0, 0, 0.0])
        row[0] += 1
        row[1] += float(run.wall_time)
        row[2] += stop < steps
        row[3] += stop < steps and bool(run.recognized)
        row[4] += float(extra["train_seconds"]) * (steps - stop) / steps
    table = [[layout, *values] for layout, values in sorted(rows.items())]
    if table:
        table.append(["all", *(sum(r[i] for r in table) for i in range(1, 6))])
    frame = pd.DataFrame(table, columns=list(COLUMNS[:-1]))
    frame["run-hours"] /= 3600
    frame["run-hours saved"] /= 3600
    frame["ratio"] = frame["run-hours"] / (frame["run-hours"] - frame["run-hours saved"])
    return frame


def report(db: Path, patience: int, start: int) -> str:
    """The Markdown report for the store ``db``."""
    with ResultsStore(db, create=False) as store:
        frame = price(store.runs(), patience, start)
    if frame.empty:
        return f"{db}: no completed run trained its whole budget under a constant rate"
    lines = [f"{db}: patience {patience} after step {start}, replayed on the runs that trained "
             "their whole budget", "| " + " | ".join(COLUMNS) + " |",
             "|---|" + "---:|" * (len(COLUMNS) - 1)]
    for r in frame.itertuples(index=False):
        lines.append(f"| {r[0]} | {r[1]} | {r[2]:.2f} | {r[3]} | {r[4]} | {r[5]:.2f} | "
                     f"{r[6]:.2f}× |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path, help="a results store")
    parser.add_argument("--patience", type=int, default=2,
                        help="consecutive perfect validations that stop a run (default 2)")
    parser.add_argument("--start", type=int, default=0,
                        help="validations at or before this step do not count (default 0)")
    args = parser.parse_args(argv)
    if args.patience < 1 or args.start < 0:
        parser.error("--patience must be at least 1 and --start at least 0")
    print(report(args.db, args.patience, args.start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
