"""`expressivity sweep`: run a sweep spec into a results store (resumably) and print its table."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from expressivity.sweeps.grid import SweepSpec


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sweep`` subcommand."""
    p = sub.add_parser(
        "sweep",
        help="run a sweep spec (experiments/*.toml) into a results store",
        description="Run every run of a sweep spec that the results store lacks (rerunning "
        "resumes), on a local process pool, a Dask cluster or Slurm, then print the "
        "recognition table (language × layout).",
    )
    p.add_argument("spec", help="sweep spec, e.g. experiments/quick.toml")
    p.add_argument("--db", default="results.db", help="results store (default: results.db)")
    p.add_argument("--jobs", "-j", type=int, default=1,
                   help="runs at once: local workers (1 = in this process) or Slurm jobs "
                   "in flight (default: 1)")
    p.add_argument("--executor", choices=("local", "dask", "slurm"), default="local",
                   help="where runs execute (default: local)")
    p.add_argument("--threads", type=int, default=None,
                   help="threads per run (default: cores // jobs locally, else 1)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the number of runs and a compute estimate; run nothing")
    p.add_argument("--theory", action="store_true",
                   help="with --dry-run: also print what theory predicts in every language × "
                   "layout cell (yes: proved, no: certified, ?: unknown; `classify` explains)")
    p.add_argument("--rate", type=float, default=None, metavar="R",
                   help="with --dry-run: runs·steps per second of the machine that will run "
                   "the sweep (benchmarks/ensemble.py prints it); adds the hours at that rate")
    p.add_argument("--time-from", action="append", default=None, metavar="STORE",
                   help="with --dry-run: also time the runs to do by the median wall time of "
                   "matching completed runs in STORE (repeatable; sweeps.reference_time)")
    p.add_argument("--retry-failed", action="store_true", help="rerun runs that failed before")
    p.add_argument("--reuse", action="append", default=[], metavar="STORE",
                   help="copy the completed runs of this sweep (same run id) that another "
                   "results store holds into DB instead of training them; the first STORE "
                   "named that holds a run provides it (repeatable; sweeps.reuse)")
    code = p.add_mutually_exclusive_group()
    code.add_argument("--rerun-other-code", action="store_const", dest="other_code",
                      const="rerun", default="refuse",
                      help="train again, with this code, the completed runs that other code "
                      "made (their code fingerprint differs; they are replaced)")
    code.add_argument("--mix-code", action="store_const", dest="other_code", const="mix",
                      help="keep completed runs of other code and add this code's runs to the "
                      "same cells (refused by default: a cell's runs then come from two codes)")
    p.add_argument("--group", default=None, metavar="N|auto|off",
                   help="most runs per ensemble (trained as one batched model); 'auto' "
                   "trains runs one by one on a CPU (faster there) and, on a GPU, batches as "
                   "many as a quarter of its memory per job holds (at most 32); 'off' trains "
                   "runs one by one (default: the spec's, else auto)")
    p.add_argument("--group-by", choices=("shape", "language"), default=None,
                   help="ensembles share the model shape, or also the language "
                   "(default: the spec's, else shape)")
    p.add_argument("--runs-dir", default=None,
                   help="checkpoints and data-split cache (default: DB stem + .runs)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    dask = p.add_argument_group("dask")
    dask.add_argument("--address", default=None, help="Dask scheduler, e.g. tcp://HOST:8786")
    slurm = p.add_argument_group("slurm (through submitit)")
    slurm.add_argument("--partition", default=None)
    slurm.add_argument("--time", default=None, help="time limit per run, e.g. 2:00:00")
    slurm.add_argument("--mem", default=None, help="memory per run, e.g. 16G")
    slurm.add_argument("--cpus-per-task", type=int, default=None)
    slurm.add_argument("--gpus", type=int, default=0, help="GPUs per run")
    slurm.add_argument("--slurm-folder", default=None,
                       help="submitit logs (default: DB stem + .submitit)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the sweep; print the recognition table. Exit 130 when interrupted."""
    from expressivity.analysis.rule import judge_rule
    from expressivity.sweeps.cells import with_cells
    from expressivity.sweeps.executors import ExecutorConfig
    from expressivity.sweeps.reference_time import reference_time
    from expressivity.sweeps.report import format_table, recognition_matrix, summarize
    from expressivity.sweeps.runner import run_sweep
    from expressivity.sweeps.spec import load_sweep
    from expressivity.sweeps.store import ResultsStore, check_store_path

    spec = load_sweep(args.spec)
    config = ExecutorConfig(
        kind=args.executor, jobs=args.jobs, threads=args.threads, address=args.address,
        partition=args.partition, time=args.time, mem=args.mem,
        cpus_per_task=args.cpus_per_task, gpus=args.gpus, folder=args.slurm_folder,
    )
    outcome = run_sweep(
        spec, args.db, executor=config, retry_failed=args.retry_failed, dry_run=args.dry_run,
        runs_dir=args.runs_dir, progress=not args.no_progress, group=args.group,
        group_by=args.group_by, rate=args.rate, other_code=args.other_code,
        reuse=args.reuse,
    )
    if args.dry_run:
        if args.time_from:
            stores = [check_store_path(x) for x in args.time_from]
            print(reference_time(outcome.plan.todo, stores).text(jobs=args.jobs))
            if outcome.plan.waiting:  # "until-recognized": the bound, every waiting run made
                print("if no waiting run is skipped:\n" + reference_time(
                    outcome.plan.todo + outcome.plan.waiting, stores).text(jobs=args.jobs))
        if args.theory:
            _print_theory(spec)
        if spec.rule is not None:
            print(f"rule: {spec.rule.text}; judged (`expressivity figures`, `results`) once "
                  "every run of its two levers is stored")
        return 0
    if outcome.interrupted:  # the runner said how many runs are done; `results DB` shows them
        return 130
    with ResultsStore(args.db, create=False) as store:
        runs = store.runs(sweep=spec.name)
    ruling = (f"rule ({spec.rule.text}): {judge_rule(runs, spec)['verdict']}"
              if spec.rule is not None else None)
    (runs,) = with_cells(runs[runs["run_id"].isin({r.run_id for r in outcome.plan.runs})])
    axes = dict(spec.axes)
    summary = summarize(runs, axes.get("language"), axes.get("layout"))
    print()
    print(format_table(summary))
    print()
    print(format_table(recognition_matrix(summary), index=True))
    print(
        f"\n{outcome.completed} completed and {outcome.failed} failed now in "
        f"{outcome.wall_time:.0f} s; results in {args.db}"
    )
    if ruling is not None:
        print(ruling)
    return 0


def _print_theory(spec: SweepSpec) -> None:
    """The predicted verdict of every language × layout cell of ``spec``, with the counts."""
    from expressivity.analysis.prediction_table import predictions, theory_matrix
    from expressivity.sweeps.cell_labels import cell_order
    from expressivity.sweeps.cells import run_cell
    from expressivity.sweeps.report import format_table

    axes = dict(spec.axes)
    runs = spec.expand()
    languages = list(dict.fromkeys((r.language, r.alphabet or "") for r in runs))
    cells = cell_order([run_cell(r) for r in runs], axes.get("layout"))
    predicted = predictions(languages, cells or axes.get("layout", ["global"]),
                            _cell_sizes(spec, "n_layers"), _cell_sizes(spec, "n_heads"))
    print("\ntheory (yes: proved, no: certified, ?: unknown; `expressivity classify` explains):")
    print(format_table(theory_matrix(predicted), index=True))
    counts = predicted["predicted"].value_counts()
    print(f"{len(predicted)} cells: {counts.get('yes', 0)} yes, {counts.get('no', 0)} no, "
          f"{counts.get('unknown', 0)} unknown")
    deep = predicted.assign(predicted=predicted["predicted_at_depth"].fillna("unknown"))
    depths = sorted({int(n) for n in predicted["n_layers"].dropna()})
    print(f"\ntheory at each model's own number of layers ({', '.join(map(str, depths))}; "
          "docs/theory.md §8; `expressivity classify --depth L` explains):")
    print(format_table(theory_matrix(deep), index=True))
    counts = deep["predicted"].value_counts()
    print(f"{len(deep)} cells: {counts.get('yes', 0)} yes, {counts.get('no', 0)} no, "
          f"{counts.get('unknown', 0)} unknown")


def _cell_sizes(spec: SweepSpec, field: str) -> dict[str, int]:
    """Cell label → its runs' number of layers or heads (``field``: "n_layers", "n_heads"),
    from each run's resolved model config."""
    from expressivity.errors import ExpressivityError
    from expressivity.sweeps.cells import run_cell
    from expressivity.training.profiles import get_profile

    found: dict[str, set[int]] = {}
    for run in spec.expand():
        try:
            config = get_profile(run.profile).model_config(run.layout, dict(run.model or {}))
        except (ExpressivityError, KeyError):
            continue
        found.setdefault(run_cell(run), set()).add(int(getattr(config, field)))
    return {cell: next(iter(v)) for cell, v in found.items() if len(v) == 1}
