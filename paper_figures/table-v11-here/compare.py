"""The table v11's seed-0 attention and encoder runs beside the same run ids trained again here.

    python paper_figures/table-v11-here/compare.py > paper_figures/table-v11-here/compare.md

Reads both stores (read-only) and pairs runs by run id: per layout, the runs, those whose
metrics are the same (test, adversarial and train accuracy, N*, steps), the verdicts (our
criterion, `runs.recognized`) that differ, the runs whose step count differs (early stopping
saw other numbers), each store's summed wall time and their ratio, and the host each
store's runs record (`extra.machine.cpu_signature`; older runs record none). The last line
prices the v11 on this machine: its state-space block as stored (trained here) plus its
attention and encoder block times this machine's wall-time ratio (an estimate from seed 0).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "paper_figures/table-v11/table-v11.db"
HERE = Path(__file__).with_name("table-v11-here.db")
MIXERS = ("mamba", "mamba-signed", "s4d", "samba-1", "jamba-2")
Row = tuple[str, int, int, float, str, tuple[object, ...]]
# layout, recognized, steps, wall time, host, metrics


def _runs(store: Path, query: str) -> dict[str, Row]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    out = {}
    for run_id, layout, recognized, steps, wall, extra, *metrics in db.execute(query):
        host = json.loads(extra).get("machine", {}).get("cpu_signature", "not recorded")
        out[run_id] = (layout, int(recognized), int(steps or 0), float(wall or 0.0), host,
                       (*metrics, steps))
    return out


def main() -> None:
    select = ("SELECT r.run_id, r.layout, r.recognized, r.steps, r.wall_time, r.extra, "
              "r.test_accuracy, r.adversarial_accuracy, r.train_accuracy, r.n_star "
              "FROM runs r JOIN sweep_runs s USING (run_id) WHERE r.status = 'completed'")
    base = _runs(BASE, select)
    here = _runs(HERE, select.replace(" JOIN sweep_runs s USING (run_id)", ""))
    paired = sorted(set(base) & set(here))
    layouts: dict[str, list[str]] = defaultdict(list)
    for run_id in paired:
        layouts[base[run_id][0]].append(run_id)
    out = sys.stdout
    out.write(f"{len(paired)} runs in both stores ({len(here)} here).\n\n"
              "| layout | runs | same metrics | verdicts changed (lost here / gained here) "
              "| steps differ | wall, v11 (s) | wall, here (s) | v11 / here |\n"
              "|---|---:|---:|---|---:|---:|---:|---:|\n")
    total = Counter()
    for layout in [*sorted(layouts), "all"]:
        ids = paired if layout == "all" else layouts[layout]
        lost = sum(base[r][1] > here[r][1] for r in ids)
        gained = sum(base[r][1] < here[r][1] for r in ids)
        steps = sum(base[r][2] != here[r][2] for r in ids)
        same = sum(base[r][5] == here[r][5] for r in ids)
        a, b = sum(base[r][3] for r in ids), sum(here[r][3] for r in ids)
        if layout == "all":
            total.update(a=a, b=b)
        out.write(f"| {layout} | {len(ids)} | {same} | {lost + gained} ({lost} / {gained}) "
                  f"| {steps} "
                  f"| {a:,.0f} | {b:,.0f} | {a / b:.2f} |\n")
    hosts = {name: Counter(runs[r][4] for r in paired) for name, runs in
             (("v11", base), ("here", here))}
    out.write("\nHosts: " + "; ".join(f"{name}: " + ", ".join(f"{h} ({n})" for h, n in c.items())
                                      for name, c in hosts.items()) + "\n")
    ratio = total["a"] / total["b"]
    mixers = sum(row[3] for row in base.values() if row[0] in MIXERS) / 3600
    others = sum(row[3] for row in base.values() if row[0] not in MIXERS) / 3600
    out.write(f"\nThe table v11 as stored: {mixers + others:.2f} run-hours (state-space "
              f"{mixers:.2f}, attention and encoders {others:.2f}). On this machine, at the "
              f"seed-0 ratio {ratio:.2f}: {mixers + others / ratio:.2f} run-hours "
              f"(attention and encoders {others / ratio:.2f}, an estimate).\n")


if __name__ == "__main__":
    main()
