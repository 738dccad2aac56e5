"""The pilot's training seconds per layout and lever, read from a store, with each lever's hosts.

    python paper_figures/ssm-bucketed/cost.py > paper_figures/ssm-bucketed/cost.md
    python paper_figures/ssm-bucketed/cost.py paper_figures/ssm-bucketed-here/ssm-bucketed-here.db \
        > paper_figures/ssm-bucketed-here/cost.md
    python paper_figures/ssm-bucketed/cost.py \
        paper_figures/ssm-deep-batching/ssm-deep-batching.db experiments/ssm-deep-batching.toml \
        > paper_figures/ssm-deep-batching/cost.md

The optional second argument is the sweep spec whose two levers are compared (default
experiments/ssm-bucketed.toml); runs are paired by layout, language and seed.

A run's `train_seconds` is its optimisation loop's wall time (validations included, data and
the final evaluation not). In the pilot's store the `v10` runs ran on another host, on other
days under other loads than the `bucketed` ones, so their ratio is the stores', not the
lever's alone; in the control's store both levers ran on one host in one session. The step's
own speed-up is `python benchmarks/ssm.py --batching`, interleaved in one process.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from expressivity.sweeps.grid import lever_runs
from expressivity.sweeps.spec import load_sweep

STORE = Path(__file__).with_name("ssm-bucketed.db")
SPEC = Path(__file__).resolve().parents[2] / "experiments" / "ssm-bucketed.toml"


def main() -> None:
    store = Path(sys.argv[1]) if len(sys.argv) > 1 else STORE
    spec = Path(sys.argv[2]) if len(sys.argv) > 2 else SPEC
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    levers = lever_runs(load_sweep(spec))
    base, new = list(levers)[:2]
    lever_of = {r.run_id: lever for lever, runs in levers.items() for r in runs}
    seconds: dict[tuple[str, str, int], dict[str, float]] = defaultdict(dict)
    hosts: dict[str, set[str]] = defaultdict(set)
    for run_id, layout, language, seed, extra in db.execute(
            "select run_id, layout, language, seed, extra from runs "
            "where status = 'completed'"):
        lever = lever_of[run_id]
        info = json.loads(extra)
        seconds[(layout, language, seed)][lever] = info["train_seconds"]
        hosts[lever].add(info.get("machine", {}).get("cpu_signature", "not recorded"))
    out = sys.stdout
    out.write(f"| layout | runs per lever | {base} (s) | {new} (s) | {base} / {new}, summed "
              "| median of the runs' ratios |\n|---|---:|---:|---:|---:|---:|\n")
    layouts = [*sorted({layout for layout, _, _ in seconds}), "all"]
    for layout in layouts:
        pairs = [s for (lay, _, _), s in sorted(seconds.items())
                 if (layout in ("all", lay)) and len(s) == 2]
        a, b = sum(s[base] for s in pairs), sum(s[new] for s in pairs)
        median = statistics.median(s[base] / s[new] for s in pairs)
        out.write(f"| {layout} | {len(pairs)} | {a:,.0f} | {b:,.0f} | {a / b:.2f} "
                  f"| {median:.2f} |\n")
    named = (f"`{lever}`: {', '.join(sorted(h))}" for lever, h in sorted(hosts.items()))
    out.write(f"\nHosts (`extra.machine.cpu_signature`): {'; '.join(named)}\n")


if __name__ == "__main__":
    main()
