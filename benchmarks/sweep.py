"""A slice of the full table through the sweep runner: the new paths vs the former ones.

The slice is languages of ``experiments/catalogue.toml`` (``LAST``; with ``--full`` the
issue's 22 runs: ``LAST``, ``PARITY``) × its 11 layouts, seed 0, standard profile. Each path
runs the slice into a fresh store and runs directory (so both build their data splits), with
``--jobs`` workers:

- *new*: the defaults: evaluation batches of 64, linear-memory kernels from 256 tokens, a
  data phase that builds each distinct split once in parallel, runs one by one on a CPU
  (``group = "auto"``);
- *new+bucketed*: the same with ``train.batching = "bucketed"`` (other batches: other
  weights, so other metrics);
- *former*: ``train.eval_batch_size = 256``, ``model.banded_min_len = 1024``, no data
  phase, and ensembles of a language's 11 layouts (the former ``auto`` with ``group_by =
  "language"``).

Rounds rotate the order of the paths and the median wall time of each path is compared; the
phase breakdown sums the records' data, training and evaluation seconds (the rest of a run's
wall time is validation and set-up). The new paths' data phase runs before their first run
and is part of no record: it shows in the wall time only.

    python benchmarks/sweep.py                 # short: LAST × 11 layouts, 60 steps, 1 round
    python benchmarks/sweep.py --full          # 22 runs, the profile's step budget, 3 rounds
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import tempfile
from pathlib import Path

from expressivity.sweeps.runner import run_sweep
from expressivity.sweeps.spec import parse_sweep
from expressivity.sweeps.store import ResultsStore
from expressivity.training import train
from expressivity.training.ensemble import train_ensemble

LAYOUTS = ["global", "local-1", "local-2", "local-4", "hybrid-1", "hybrid-2", "hybrid-4",
           "longformer-2-1", "bigbird-2-2-1", "dilated-2-2", "block-4"]
PATHS: dict[str, dict[str, object]] = {
    "former": {"train.eval_batch_size": 256, "model.banded_min_len": 1024},
    "new": {},
    "new+bucketed": {"train.batching": "bucketed"},
}


def sweep_text(steps: int | None, path: str, languages: list[str]) -> str:
    """The slice as a sweep file (``steps``: a step budget for every run, or the profile's)."""
    base = dict(PATHS[path])
    if steps is not None:
        base["train.steps"] = steps
    lines = ["[sweep]", f'name = "slice-{path}"',
             'profile = "standard"', 'group_by = "language"', "", "[base]"]
    lines += [f'"{k}" = {json.dumps(v)}' for k, v in base.items()]
    lines += ["", "[axes]", f"languages = {json.dumps(languages)}",
              f"layouts = {json.dumps(LAYOUTS)}",
              "seeds = [0]", ""]
    return "\n".join(lines)


def run_path(path: str, steps: int | None, jobs: int, languages: list[str]
             ) -> dict[str, float]:
    """Wall time and phase sums (seconds) of one path in a fresh directory."""
    with tempfile.TemporaryDirectory(prefix="sweep-bench-") as tmp:
        spec = parse_sweep(sweep_text(steps, path, languages))
        db = Path(tmp) / "slice.db"
        if path == "former":  # an explicit trainer: no data phase; ensembles of 11, as before
            outcome = run_sweep(spec, db, jobs=jobs, progress=False, out=io.StringIO(),
                                train_fn=train, ensemble_fn=train_ensemble, group=11)
        else:
            outcome = run_sweep(spec, db, jobs=jobs, progress=False, out=io.StringIO())
        with ResultsStore(db) as store:
            runs = store.runs()
        extras = [json.loads(e) for e in runs["extra"]]
        out = {"wall": outcome.wall_time, "runs": float(len(runs)),
               "recognized": float(runs["recognized"].sum())}
        for phase in ("data", "train", "eval"):
            out[phase] = sum(float(e.get(f"{phase}_seconds", 0.0)) for e in extras)
        out["other"] = float(runs["wall_time"].sum()) - out["data"] - out["train"] - out["eval"]
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="the profile's steps, 3 rounds")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--steps", type=int, default=None, help="step budget of every run")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--languages", default=None,
                        help="comma list (default LAST; --full: LAST,PARITY)")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.full else 1)
    steps = args.steps if args.steps is not None else (None if args.full else 60)
    languages = (args.languages or ("LAST,PARITY" if args.full else "LAST")).split(",")
    results: dict[str, list[dict[str, float]]] = {name: [] for name in PATHS}
    names = list(PATHS)
    for r in range(rounds):
        for name in names[r % 3 :] + names[: r % 3]:
            results[name].append(run_path(name, steps, args.jobs, languages))
    print(f"{11 * len(languages)} runs ({', '.join(languages)} × 11 layouts, seed 0, "
          f"standard profile, "
          f"{'profile' if steps is None else steps} steps), --jobs {args.jobs}, "
          f"median of {rounds} round(s)")
    print("| path | wall s | data s | training s | evaluation s | validation + other s "
          "| recognized |\n|---|---|---|---|---|---|---|")
    med = {name: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
           for name, rs in results.items()}
    for name, m in med.items():
        print(f"| {name} | {m['wall']:.1f} | {m['data']:.1f} | {m['train']:.1f} | "
              f"{m['eval']:.1f} | {m['other']:.1f} | {m['recognized']:.0f}/{m['runs']:.0f} |")
    for name in ("new", "new+bucketed"):
        print(f"{name} vs former: wall time {med['former']['wall'] / med[name]['wall']:.2f}x, "
              f"evaluation {med['former']['eval'] / max(med[name]['eval'], 1e-9):.2f}x, "
              f"training {med['former']['train'] / max(med[name]['train'], 1e-9):.2f}x")


if __name__ == "__main__":
    main()
