"""The table v12 beside the table v11, run by run: what one machine changed, and its cost.

    python paper_figures/table-v12/compare.py > paper_figures/table-v12/compare.md

Reads both stores (read-only) and pairs the runs by run id. Per code that made the v11's run
(`runs.code_fingerprint`) and the host it records (`extra.machine.cpu_signature`; older runs
record none): the runs in both stores, those whose metrics are the same (test, adversarial and
train accuracy, N*, steps), the verdicts (our criterion, `runs.recognized`) that differ, and
the runs of either store that the other does not hold (the seed policy made other runs where
an earlier seed's verdict changed). Then the v12's cost: its summed wall time per family, every
run's host, and the v11's beside it.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
V11 = HERE.parent / "table-v11/table-v11.db"
V12 = HERE / "table-v12.db"
MIXERS = ("mamba", "mamba-signed", "s4d", "samba-1", "jamba-2")
QUERY = ("SELECT run_id, layout, recognized, wall_time, code_fingerprint, extra, test_accuracy, "
         "adversarial_accuracy, train_accuracy, n_star, steps FROM runs "
         "WHERE status = 'completed'")


def _runs(store: Path) -> dict[str, dict[str, object]]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    out = {}
    for run_id, layout, recognized, wall, code, extra, *metrics in db.execute(QUERY):
        host = json.loads(extra).get("machine", {}).get("cpu_signature", "not recorded")
        out[run_id] = {"layout": layout, "recognized": int(recognized), "wall": float(wall),
                       "code": code, "host": host, "metrics": tuple(metrics)}
    return out


def _family(layout: object) -> str:
    return "state space" if layout in MIXERS else "attention and encoders"


def main() -> None:
    v11, v12 = _runs(V11), _runs(V12)
    both = sorted(set(v11) & set(v12))
    out = sys.stdout
    out.write(f"The v11 holds {len(v11)} runs, the v12 {len(v12)}; {len(both)} run ids in both, "
              f"{len(set(v11) - set(v12))} in the v11 only, {len(set(v12) - set(v11))} in the "
              "v12 only.\n\n"
              "| the v11's run: code, host | runs in both | same metrics "
              "| verdicts changed (lost in the v12 / gained) |\n|---|---:|---:|---|\n")
    groups: dict[tuple[object, object], list[str]] = defaultdict(list)
    for run_id in both:
        groups[(v11[run_id]["code"], v11[run_id]["host"])].append(run_id)
    for (code, host), ids in sorted(groups.items(), key=lambda kv: str(kv[0])):
        same = sum(v11[r]["metrics"] == v12[r]["metrics"] for r in ids)
        lost = sum(v11[r]["recognized"] > v12[r]["recognized"] for r in ids)
        gained = sum(v11[r]["recognized"] < v12[r]["recognized"] for r in ids)
        out.write(f"| {code}, {host} | {len(ids)} | {same} | {lost + gained} ({lost} / "
                  f"{gained}) |\n")
    out.write("\n| family | v11 run-hours | v12 run-hours | v12 runs | v12 hosts |\n"
              "|---|---:|---:|---:|---|\n")
    totals = Counter()
    for family in ("attention and encoders", "state space", "all"):
        def hours(runs: dict[str, dict[str, object]], fam: str = family) -> float:
            return sum(float(r["wall"]) for r in runs.values()  # type: ignore[arg-type]
                       if fam == "all" or _family(r["layout"]) == fam) / 3600
        mine = [r for r in v12.values() if family == "all" or _family(r["layout"]) == family]
        hosts = Counter(str(r["host"]) for r in mine)
        totals[family] = hours(v12)
        out.write(f"| {family} | {hours(v11):.2f} | {hours(v12):.2f} | {len(mine)} | "
                  + ", ".join(f"{h} ({n})" for h, n in hosts.items()) + " |\n")
    out.write(f"\nThe table v12: {totals['all']:.2f} run-hours, every wall time measured on the "
              "host above.\n")


if __name__ == "__main__":
    main()
