"""The pilot's training seconds per layout and lever, read from a store, with each lever's hosts.

    python paper_figures/ssm-bucketed/cost.py > paper_figures/ssm-bucketed/cost.md
    python paper_figures/ssm-bucketed/cost.py paper_figures/ssm-bucketed-here/ssm-bucketed-here.db \
        > paper_figures/ssm-bucketed-here/cost.md

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
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    lever_of = {r.run_id: lever for lever, runs in lever_runs(load_sweep(SPEC)).items()
                for r in runs}
    seconds: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    hosts: dict[str, set[str]] = defaultdict(set)
    for run_id, layout, language, extra in db.execute(
            "select run_id, layout, language, extra from runs where status = 'completed'"):
        lever = lever_of[run_id]
        info = json.loads(extra)
        seconds[(layout, language)][lever] = info["train_seconds"]
        hosts[lever].add(info.get("machine", {}).get("cpu_signature", "not recorded"))
    out = sys.stdout
    out.write("| layout | runs per lever | v10 (s) | bucketed (s) | v10 / bucketed, summed "
              "| median of the runs' ratios |\n|---|---:|---:|---:|---:|---:|\n")
    layouts = [*sorted({layout for layout, _ in seconds}), "all"]
    for layout in layouts:
        pairs = [s for (lay, _), s in sorted(seconds.items())
                 if (layout in ("all", lay)) and len(s) == 2]
        v10, new = sum(s["v10"] for s in pairs), sum(s["bucketed"] for s in pairs)
        median = statistics.median(s["v10"] / s["bucketed"] for s in pairs)
        out.write(f"| {layout} | {len(pairs)} | {v10:,.0f} | {new:,.0f} | {v10 / new:.2f} "
                  f"| {median:.2f} |\n")
    named = (f"`{lever}`: {', '.join(sorted(h))}" for lever, h in sorted(hosts.items()))
    out.write(f"\nHosts (`extra.machine.cpu_signature`): {'; '.join(named)}\n")


if __name__ == "__main__":
    main()
