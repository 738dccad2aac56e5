"""What a seed policy would have cost a stored sweep: its run-hours with every seed, and with
each cell's seeds in order until one recognizes it (`expressivity.sweeps.seeds`).

The replay reads the sweep registered in the store (its TOML source, so the seeds keep the
spec's order), takes each stored run's verdict as what the run gives (runs are deterministic
for a seed on a CPU), makes the runner's rounds with `taken_in_rounds` (every stored run on
offer) and sums the stored wall times of the runs made, by family of layouts. The cell
verdicts of both policies are compared and must be equal; the script says so.

    python benchmarks/seed_policy.py paper_figures/table-v8/table-v8.db
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from expressivity.sweeps.seeds import cell_key, taken_in_rounds
from expressivity.sweeps.spec import parse_sweep
from expressivity.sweeps.store import ResultsStore
from expressivity.training.spec import RunSpec

#: The state-space mixers and hybrids (experiments/ssm.toml); every other layout is attention.
MIXERS = ("mamba", "mamba-signed", "s4d", "samba-1", "jamba-2")


def replay(db: Path, sweep: str | None = None) -> str:
    """The report for the sweep ``sweep`` (default: the only one) of the store ``db``."""
    with ResultsStore(db, create=False) as store:
        sweeps = store.sweeps()
        runs_frame = store.runs()
    if sweep is None and len(sweeps) != 1:
        raise SystemExit(f"{db} holds {len(sweeps)} sweeps; name one with --sweep")
    row = sweeps.iloc[-1] if sweep is None else sweeps[sweeps["name"] == sweep].iloc[-1]
    runs = parse_sweep(row["source"], row["path"]).expand()
    stored = runs_frame.set_index("run_id")
    missing = [r.run_id for r in runs if r.run_id not in stored.index
               or stored.at[r.run_id, "status"] != "completed"]
    if missing:
        raise SystemExit(f"{db}: {len(missing)} runs of {row['name']!r} are not completed; "
                         "replay a complete sweep")
    recognized = {r.run_id: bool(stored.at[r.run_id, "recognized"]) for r in runs}
    made = set(taken_in_rounds(runs, {}, recognized))  # every stored run on offer
    cells: dict[str, list[RunSpec]] = {}
    for r in runs:
        cells.setdefault(cell_key(r), []).append(r)
    same = all(any(recognized[r.run_id] for r in c) == any(recognized[r.run_id] for r in c
                                                          if r.run_id in made)
               for c in cells.values())
    lines = [f"sweep {row['name']!r} of {db}: {len(runs)} runs, {len(cells)} cells",
             "| layouts | runs (all) | run-hours (all) | runs (until-recognized) | "
             "run-hours (until-recognized) | ratio |", "|---|---:|---:|---:|---:|---:|"]
    for family, test in (("attention", lambda r: r.layout not in MIXERS),
                         ("state-space", lambda r: r.layout in MIXERS), ("all", lambda r: True)):
        every = [r.run_id for r in runs if test(r)]
        hours = float(stored.loc[every, "wall_time"].sum()) / 3600
        kept = [i for i in every if i in made]
        hours_kept = float(stored.loc[kept, "wall_time"].sum()) / 3600
        ratio = hours / hours_kept if hours_kept else float("nan")
        lines.append(f"| {family} | {len(every)} | {hours:.2f} | {len(kept)} | "
                     f"{hours_kept:.2f} | {ratio:.2f}× |")
    lines.append("every cell's verdict (some run recognizes it) is the same under both: "
                 f"{'yes' if same else 'NO'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path, help="a results store holding one complete sweep")
    parser.add_argument("--sweep", default=None, help="the sweep's name, if it holds several")
    args = parser.parse_args(argv)
    print(replay(args.db, args.sweep))
    return 0


if __name__ == "__main__":
    sys.exit(main())
