"""The sweep driver: plan against the store, run what is missing on an executor, record each result.

Resumable by construction: the plan skips run ids already completed in the store (and failed
ones unless ``retry_failed``); each finished run is committed in its own transaction the
moment it returns, so an interrupted driver (Ctrl-C, SIGKILL) loses only runs in flight. On
Ctrl-C the driver records every run that already finished, cancels the rest and returns.

Runs are grouped into ensembles (`sweeps.ensembles`) trained as one batched model; an
ensemble is the unit of work an executor receives, and each of its members' records is
committed in its own transaction. An ensemble whose worker dies is halved and resubmitted.

The loop that hands the groups out and records what returns is `sweeps.drive`; the plan and
outcome, and how they read, are `sweeps.outcome`.

Data phase: with the default trainer, the distinct data splits of the runs to do (one per
language, alphabet, profile, data overrides and seed) are first built in parallel on the
executor into the cache ``<runs dir>/splits`` (`training.prepare.load_splits`: verified on
every load), so every layout and learning rate then loads them instead of building them, and
two workers never wait on one build.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from expressivity.disk import disk_space
from expressivity.errors import StoreError
from expressivity.fingerprint import code_fingerprint
from expressivity.sweeps.clusters import make_executor
from expressivity.sweeps.codes import check_plan_code
from expressivity.sweeps.drive import TrainFn, Work, drive, import_side_records
from expressivity.sweeps.ensembles import EnsembleFn, execute_run, group_plan
from expressivity.sweeps.executors import Executor, ExecutorConfig
from expressivity.sweeps.grid import SweepSpec
from expressivity.sweeps.outcome import SweepOutcome, SweepPlan, groups_text, plan_text
from expressivity.sweeps.reuse import (
    Reused,
    fingerprints,
    in_rounds,
    reusable,
    reuse_runs,
    verdicts,
)
from expressivity.sweeps.seeds import plan_outcomes, seed_rounds
from expressivity.sweeps.spec import load_sweep
from expressivity.sweeps.store import ResultsStore, check_store_path
from expressivity.training.spec import RunSpec

__all__ = [
    "SweepOutcome", "SweepPlan", "TrainFn", "execute_run", "group_plan", "plan_sweep", "run_sweep",
    "seed_rounds",
]

def plan_sweep(
    sweep: SweepSpec, store: ResultsStore | None, *, retry_failed: bool = False,
    other_code: str = "refuse",
) -> SweepPlan:
    """Expand ``sweep`` and split its runs into done, failed and to do (``store`` may be None).

    Completed runs made by other code (`expressivity.fingerprint`) are kept, or with
    ``other_code="rerun"`` run again; with "refuse" (the default) a plan whose runs to do would
    share a cell with them raises `ConfigError` (`sweeps.codes.check_plan_code`), "mix" allows it.
    Under the seed policy "until-recognized" the runs to do are those ready now, the others
    waiting or skipped (`sweeps.seeds`).
    """
    plan, codes = _plan_all(sweep, store, retry_failed, other_code)
    plan = seed_rounds(plan, store.recognized(plan.completed) if store is not None else {})
    return _code_checked(plan, codes, other_code)


def _code_checked(plan: SweepPlan, codes: Mapping[str, str | None], other_code: str
                  ) -> SweepPlan:
    """``plan`` with its note on runs of other code (`sweeps.codes.check_plan_code`, which
    refuses a mix under "refuse"); the runs to do are those ready or waiting, not skipped."""
    kept = {r: codes[r] for r in plan.completed if r in codes}
    note = check_plan_code(plan.runs, plan.todo + plan.waiting, kept, other_code)
    return dataclasses.replace(plan, code_note=note)


def _plan_all(
    sweep: SweepSpec, store: ResultsStore | None, retry_failed: bool, other_code: str,
) -> tuple[SweepPlan, dict[str, str | None]]:
    """The plan with every run not completed (nor failed, unless retrying) to do, and the code
    fingerprints of the completed runs it keeps."""
    runs = tuple(sweep.expand())
    status = store.statuses([r.run_id for r in runs]) if store is not None else {}
    completed = tuple(r.run_id for r in runs if status.get(r.run_id) == "completed")
    codes = store.code_fingerprints(completed) if store is not None else {}
    if other_code == "rerun":
        now = code_fingerprint()
        completed = tuple(r for r in completed if codes[r] == now)
    failed = tuple(r.run_id for r in runs if status.get(r.run_id) == "failed")
    skip = set(completed) | (set() if retry_failed else set(failed))
    todo = tuple(r for r in runs if r.run_id not in skip)
    return SweepPlan(sweep, runs, completed, failed, todo), {r: codes[r] for r in completed}


def _default_train() -> TrainFn:
    from expressivity.training import train

    return train


def _default_ensemble() -> EnsembleFn:
    from expressivity.training.ensemble import train_ensemble

    return train_ensemble


def run_sweep(
    sweep: SweepSpec | str | Path,
    db: str | Path,
    *,
    executor: str | ExecutorConfig | Executor = "local",
    jobs: int = 1,
    retry_failed: bool = False,
    dry_run: bool = False,
    train_fn: TrainFn | None = None,
    runs_dir: str | Path | None = None,
    progress: bool = True,
    out: TextIO | None = None,
    group: int | str | None = None,
    group_by: str | None = None,
    ensemble_fn: EnsembleFn | None = None,
    rate: float | None = None,
    other_code: str = "refuse",
    reuse: Sequence[str | Path] = (),
) -> SweepOutcome:
    """Run every run of ``sweep`` missing from the results store ``db``; see the module doc.

    ``executor`` is a kind ("local", "dask", "slurm"; options via an `ExecutorConfig`) or a
    started `Executor`. ``train_fn`` defaults to `expressivity.training.train`; it must be
    picklable (a module-level function) for process and cluster executors; a script that
    uses the local executor needs the usual ``if __name__ == "__main__":`` guard. Every run
    gets ``out_dir=runs_dir`` (default: ``<db stem>.runs`` beside the store) for its
    checkpoint and the shared data-split cache, so a rerun continues interrupted runs. A dry run
    prints the plan, the ensembles and a compute estimate (with the hours at ``rate`` runs·steps
    per second when given) and touches nothing.

    ``other_code`` ("refuse", "mix" or "rerun") decides what happens to completed runs that
    other code made (`plan_sweep`).

    ``reuse`` names other results stores whose completed runs of this sweep (same run id) are
    copied into ``db`` before planning instead of being trained (`sweeps.reuse`); a dry run
    says how many each would provide and estimates only the rest.

    ``group`` (default: the spec's ``group``, else "auto") and ``group_by`` (default: the
    spec's, else "shape") set how runs are grouped into ensembles (`group_plan`), trained by
    ``ensemble_fn`` (default `training.ensemble.train_ensemble`). With a custom ``train_fn``
    and no ``ensemble_fn`` every run is trained alone.
    """
    from expressivity.sweeps.estimate import estimate_compute

    out = out or sys.stdout
    spec = sweep if isinstance(sweep, SweepSpec) else load_sweep(sweep)
    db = check_store_path(db)
    config = executor if isinstance(executor, ExecutorConfig) else ExecutorConfig(
        executor if isinstance(executor, str) else "local", jobs)
    workers = (executor.capacity or 1) if isinstance(executor, Executor) else config.jobs
    data_phase = train_fn is None  # custom trainers may not use the split cache
    if ensemble_fn is None and train_fn is None:
        ensemble_fn = _default_ensemble()
    if ensemble_fn is None and group is None:
        group = "off"
    if dry_run:
        store = ResultsStore(db, create=False) if db.exists() else None
        plan, codes = _plan_all(spec, store, retry_failed, other_code)
        recognized = store.recognized(plan.completed) if store is not None else {}
        if reuse:  # what the real run would copy: every run the store has not completed
            found, offered = _found(plan, recognized, reuse, db)
            for r in found:
                print(r.text(dry_run=True), file=out)
            recognized.update(offered)
            codes.update(fingerprints(found))  # checked as the real run checks its copies
            taken = {i for r in found for i in r.run_ids}
            plan = dataclasses.replace(
                plan, completed=plan.completed + tuple(sorted(taken)),
                failed=tuple(i for i in plan.failed if i not in taken),
                todo=tuple(r for r in plan.todo if r.run_id not in taken))
        plan = _code_checked(seed_rounds(plan, recognized), codes, other_code)
        groups = group_plan(plan, group, group_by, workers)
        print(plan_text(plan), file=out)
        print(groups_text(groups), file=out)
        print(estimate_compute(plan.todo, store, groups=[len(g) for g in groups],
                               rate=rate).text(), file=out)
        if plan.waiting:
            print("if no waiting run is skipped: "
                  + estimate_compute(plan.todo + plan.waiting, store, rate=rate).text(), file=out)
        if store is not None:
            store.close()
        return SweepOutcome(plan)
    train_fn = train_fn or _default_train()
    runs_root = Path(runs_dir) if runs_dir else db.with_suffix(".runs")
    with ResultsStore(db) as store:
        store.lock()
        import_side_records(store, out)
        if reuse:
            for r in reuse_runs(store, _to_reuse(spec, store, reuse, retry_failed), reuse):
                print(r.text(), file=out)
        plan = plan_sweep(spec, store, retry_failed=retry_failed, other_code=other_code)
        try:
            store.register_sweep(
                spec.name, spec.spec_hash, spec.path, spec.source, [r.run_id for r in plan.runs]
            )
        except sqlite3.OperationalError as err:  # e.g. "database or disk is full"
            raise StoreError(f"{db}: the results store cannot be written ({err}); "
                             f"{disk_space(db.parent)}. Nothing was run") from None
        if not plan.todo:
            print(plan_text(plan), file=out)
            return SweepOutcome(plan)
        folder = db.with_suffix(".submitit")
        with contextlib.ExitStack() as stack:
            ex = executor if isinstance(executor, Executor) else stack.enter_context(
                make_executor(config, folder=folder))
            return _rounds(plan, store, ex, train_fn, ensemble_fn, runs_root, progress,
                           (group, group_by, workers, data_phase, retry_failed, other_code), out)


def _to_reuse(spec: SweepSpec, store: ResultsStore, reuse: Sequence[str | Path],
              retry_failed: bool) -> list[RunSpec]:
    """The sweep's runs a reusing sweep may copy: all, or those its seed policy makes."""
    runs = spec.expand()
    if spec.seed_policy == "all":
        return runs
    plan, _ = _plan_all(spec, store, retry_failed, other_code="mix")
    found, _ = _found(plan, store.recognized(plan.completed), reuse, store.path)
    kept = {i for r in found for i in r.run_ids}
    return [r for r in runs if r.run_id in kept]


def _found(plan: SweepPlan, recognized: Mapping[str, bool], reuse: Sequence[str | Path],
           target: Path) -> tuple[list[Reused], dict[str, bool]]:
    """What the stores ``reuse`` would provide of the runs ``plan`` has not completed (under
    "until-recognized", only the runs that policy makes), and the verdicts of all they hold."""
    held = set(plan.completed)
    found = reusable([r for r in plan.runs if r.run_id not in held], reuse, target=target)
    offered = verdicts(found)
    if plan.sweep.seed_policy != "all":
        found = in_rounds(found, plan.runs, plan_outcomes(plan, recognized, offered), offered)
    return found, offered


def _rounds(
    plan: SweepPlan, store: ResultsStore, ex: Executor, train_fn: TrainFn,
    ensemble_fn: EnsembleFn | None, runs_root: Path, progress: bool,
    settings: tuple[int | str | None, str | None, int, bool, bool, str], out: TextIO,
) -> SweepOutcome:
    """Run the plan's runs to do; under "until-recognized", plan again after each round and
    run the runs now ready, until none is (one `SweepOutcome` over all rounds)."""
    group, group_by, workers, data_phase, retry_failed, other_code = settings
    done = failed = 0
    wall = 0.0
    made: tuple[RunSpec, ...] = ()
    while True:
        print(plan_text(plan), file=out)
        if not plan.todo:
            break
        groups = group_plan(plan, group, group_by, workers)
        print(groups_text(groups), file=out)
        result = drive(plan, store, ex, Work(train_fn, ensemble_fn, groups, data_phase),
                       runs_root, progress)
        done, failed = done + result.completed, failed + result.failed
        wall += result.wall_time
        made += plan.todo
        if result.interrupted or not plan.waiting:
            return SweepOutcome(dataclasses.replace(plan, todo=made), done, failed,
                                result.interrupted, wall)
        again, codes = _plan_all(plan.sweep, store, retry_failed, other_code)
        tried = {r.run_id for r in made}  # a run that failed this time is not retried now
        again = dataclasses.replace(again, todo=tuple(r for r in again.todo
                                                      if r.run_id not in tried))
        again = seed_rounds(again, store.recognized(again.completed))
        plan = _code_checked(again, codes, other_code)
    return SweepOutcome(dataclasses.replace(plan, todo=made), done, failed, False, wall)
