"""The sweep driver: plan against the store, run what is missing on an executor, record each result.

Resumable by construction: the plan skips run ids already completed in the store (and failed
ones unless ``retry_failed``); each finished run is committed in its own transaction the
moment it returns, so an interrupted driver (Ctrl-C, SIGKILL) loses only runs in flight. On
Ctrl-C the driver records every run that already finished, cancels the rest and returns.

Runs are grouped into ensembles (`sweeps.ensembles`) trained as one batched model; an
ensemble is the unit of work an executor receives, and each of its members' records is
committed in its own transaction. An ensemble whose worker dies is halved and resubmitted.

Data phase: with the default trainer, the distinct data splits of the runs to do (one per
language, alphabet, profile, data overrides and seed) are first built in parallel on the
executor into the cache ``<runs dir>/splits`` (`training.prepare.load_splits`: verified on
every load), so every layout and learning rate then loads them instead of building them, and
two workers never wait on one build.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import json
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from expressivity.disk import disk_space
from expressivity.errors import ConfigError, StoreError
from expressivity.fingerprint import code_fingerprint
from expressivity.interrupts import stop_requested
from expressivity.sweeps.clusters import make_executor
from expressivity.sweeps.codes import check_plan_code
from expressivity.sweeps.ensembles import (
    EnsembleFn,
    auto_group_size,
    build_splits,
    execute_group,
    execute_run,
    failed_record,
    group_runs,
    split_group,
)
from expressivity.sweeps.executors import Executor, ExecutorConfig
from expressivity.sweeps.progress import MemberSteps, StepReport
from expressivity.sweeps.reuse import reusable, reuse_runs
from expressivity.sweeps.spec import SweepSpec, load_sweep
from expressivity.sweeps.store import (
    ResultsStore,
    check_store_path,
    save_side_record,
    side_records,
)
from expressivity.training.spec import RunRecord, RunSpec

__all__ = [
    "SweepOutcome", "SweepPlan", "TrainFn", "execute_run", "group_plan", "plan_sweep", "run_sweep",
]

TrainFn = Callable[..., RunRecord]


@dataclass(frozen=True)
class SweepPlan:
    """A sweep's runs split by what the store already holds."""

    sweep: SweepSpec
    runs: tuple[RunSpec, ...]  # every distinct run of the sweep, in axis order
    completed: tuple[str, ...]  # run ids already completed (skipped)
    failed: tuple[str, ...]  # run ids that failed before (skipped unless retrying)
    todo: tuple[RunSpec, ...]  # runs to execute now
    #: the note on completed runs of other code (`sweeps.codes.check_plan_code`), if any
    code_note: str | None = None


@dataclass(frozen=True)
class SweepOutcome:
    """What one invocation of `run_sweep` did."""

    plan: SweepPlan
    completed: int = 0  # runs completed now
    failed: int = 0  # runs failed now
    interrupted: bool = False
    wall_time: float = 0.0

    @property
    def remaining(self) -> int:
        """Runs of the plan still to do (after an interruption)."""
        return len(self.plan.todo) - self.completed - self.failed


def plan_sweep(
    sweep: SweepSpec, store: ResultsStore | None, *, retry_failed: bool = False,
    other_code: str = "refuse",
) -> SweepPlan:
    """Expand ``sweep`` and split its runs into done, failed and to do (``store`` may be None).

    Completed runs made by other code (`expressivity.fingerprint`) are kept, or with
    ``other_code="rerun"`` run again; with "refuse" (the default) a plan whose runs to do would
    share a cell with them raises `ConfigError` (`sweeps.codes.check_plan_code`), "mix" allows it.
    """
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
    note = check_plan_code(runs, todo, {r: codes[r] for r in completed}, other_code)
    return SweepPlan(sweep, runs, completed, failed, todo, note)


def _default_train() -> TrainFn:
    from expressivity.training import train

    return train


def _default_ensemble() -> EnsembleFn:
    from expressivity.training.ensemble import train_ensemble

    return train_ensemble


def group_plan(
    plan: SweepPlan, group: int | str | None, group_by: str | None, workers: int
) -> list[tuple[RunSpec, ...]]:
    """The plan's runs to do as ensembles: ``group`` is a size, "auto" (`auto_group_size`;
    None: the spec's setting, else auto) or "off" (= 1); ``group_by`` "shape" or "language"."""
    setting = plan.sweep.group if group is None else group
    if not plan.todo:
        return []
    size = _group_size(setting, plan.todo[0], workers)
    return group_runs(plan.todo, size, by=group_by or plan.sweep.group_by, workers=workers)


def _group_size(setting: int | str | None, first: RunSpec, workers: int) -> int:
    if setting is None or setting == "auto":
        return auto_group_size(first, workers)
    if setting == "off":
        return 1
    if isinstance(setting, str):
        if not setting.isdigit():
            raise ConfigError(f"group: {setting!r} is not a number, 'auto' or 'off'")
        setting = int(setting)
    if isinstance(setting, bool) or setting < 1:
        raise ConfigError(f"group: must be >= 1, 'auto' or 'off', got {setting!r}")
    return int(setting)


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
        plan = plan_sweep(spec, store, retry_failed=retry_failed, other_code=other_code)
        if reuse:  # what the real run would copy: every run the store has not completed
            held = set(plan.completed)
            found = reusable([r for r in plan.runs if r.run_id not in held], reuse, target=db)
            for r in found:
                print(r.text(dry_run=True), file=out)
            taken = {i for r in found for i in r.run_ids}
            plan = dataclasses.replace(
                plan, completed=plan.completed + tuple(sorted(taken)),
                failed=tuple(i for i in plan.failed if i not in taken),
                todo=tuple(r for r in plan.todo if r.run_id not in taken))
        groups = group_plan(plan, group, group_by, workers)
        print(_plan_text(plan), file=out)
        print(_groups_text(groups), file=out)
        print(estimate_compute(plan.todo, store, groups=[len(g) for g in groups],
                               rate=rate).text(), file=out)
        if store is not None:
            store.close()
        return SweepOutcome(plan)
    train_fn = train_fn or _default_train()
    runs_root = Path(runs_dir) if runs_dir else db.with_suffix(".runs")
    with ResultsStore(db) as store:
        store.lock()
        _import_side_records(store, out)
        if reuse:
            for r in reuse_runs(store, spec.expand(), reuse):
                print(r.text(), file=out)
        plan = plan_sweep(spec, store, retry_failed=retry_failed, other_code=other_code)
        try:
            store.register_sweep(
                spec.name, spec.spec_hash, spec.path, spec.source, [r.run_id for r in plan.runs]
            )
        except sqlite3.OperationalError as err:  # e.g. "database or disk is full"
            raise StoreError(f"{db}: the results store cannot be written ({err}); "
                             f"{disk_space(db.parent)}. Nothing was run") from None
        print(_plan_text(plan), file=out)
        if not plan.todo:
            return SweepOutcome(plan)
        groups = group_plan(plan, group, group_by, workers)
        print(_groups_text(groups), file=out)
        work = _Work(train_fn, ensemble_fn, groups, data_phase)
        if isinstance(executor, Executor):
            return _drive(plan, store, executor, work, runs_root, progress)
        folder = db.with_suffix(".submitit")
        with make_executor(config, folder=folder) as ex:
            return _drive(plan, store, ex, work, runs_root, progress)


@dataclass(frozen=True)
class _Work:
    """What the driver hands out: trainers and the groups of runs (ensembles)."""

    train_fn: TrainFn
    ensemble_fn: EnsembleFn | None
    groups: list[tuple[RunSpec, ...]]
    data_phase: bool = False  # build the distinct splits first, in parallel (`_build_data`)


def _groups_text(groups: list[tuple[RunSpec, ...]]) -> str:
    if not groups:
        return "ensembles: none to run"
    sizes = sorted((len(g) for g in groups), reverse=True)
    if sizes[0] == 1:
        return f"ensembles: off ({len(groups)} runs one by one)"
    shown = ", ".join(map(str, sizes[:12])) + (", ..." if len(sizes) > 12 else "")
    device = groups[0][0].train.device
    how = ("one batched model" if device.startswith("cuda")
           else "one model, member by member (bitwise the single runs)")
    return f"ensembles: {len(groups)} (members: {shown}); each trains as {how}"


def _import_side_records(store: ResultsStore, out: TextIO) -> None:
    """Record the runs an earlier driver could not write (`save_side_record`), then drop them."""
    found = side_records(store.path)
    for path, record in found:
        store.record(record)
        path.unlink()
    if found:
        print(f"recorded {len(found)} finished runs kept in side files of {store.path}", file=out)


def _record_or_keep(store: ResultsStore, record: RunRecord, say: Callable[[str], None]) -> None:
    """Write ``record``; if that fails, keep it in a side file and say where (nothing is lost)."""
    try:
        store.record(record)
    except (StoreError, sqlite3.Error, OSError) as err:
        try:
            side = save_side_record(store.path, record)
        except OSError as side_err:  # the store's disk is full (or gone): stop cleanly
            raise StoreError(
                f"{store.path}: run {record.run_id} finished, but neither the store nor its "
                f"side file could be written ({type(err).__name__}: {err}; "
                f"{side_err.strerror}); {disk_space(store.path.parent)}. The sweep stopped; "
                "the runs recorded before are intact. Free some space and rerun the same "
                "command (runs whose final checkpoint was written are re-evaluated, not "
                "retrained)"
            ) from None
        say(f"could not write run {record.run_id} to {store.path} ({type(err).__name__}: "
            f"{err}); kept it in {side}: the next sweep on this store records it")


def _plan_text(plan: SweepPlan) -> str:
    s = plan.sweep
    retry = len(set(plan.failed) & {r.run_id for r in plan.todo})
    return (
        f"sweep {s.name!r} ({s.path or 'in memory'}): {len(plan.runs)} runs "
        f"({' × '.join(_axis_texts(s)) or 'no axes'}); "
        f"{len(plan.completed)} completed, {len(plan.failed)} failed before"
        f"{f' (retrying {retry})' if retry else ''}; {len(plan.todo)} to run"
        + (f"\nnote: {plan.code_note}" if plan.code_note else "")
    )


def _plural(axis: str, n: int) -> str:
    return axis if "." in axis or n == 1 or axis.endswith("s") else axis + "s"


def _axis_texts(s: SweepSpec) -> list[str]:
    """"35 cells", "3 seeds", ... and "10 levers" (the ``[[lever]]`` tables), for the plan."""
    texts = [f"{len(v)} {_plural(k.removesuffix('s'), len(v))}" for k, v in s.axes]
    return [f"{len(s.levers)} {_plural('lever', len(s.levers))}"] * bool(s.levers) + texts


def _drive(
    plan: SweepPlan,
    store: ResultsStore,
    ex: Executor,
    work: _Work,
    runs_root: Path,
    progress: bool,
) -> SweepOutcome:
    from tqdm import tqdm

    start = time.perf_counter()
    queue = list(reversed(work.groups))
    pending: dict[cf.Future[Any], tuple[tuple[RunSpec, ...], StepReport]] = {}
    done = failed = 0
    bar = tqdm(  # counts member-steps (sweeps.progress): the ETA comes from finished steps
        total=sum(r.train.steps for r in plan.todo), unit="step", disable=not progress,
        dynamic_ncols=True, file=sys.stderr, desc="member-steps", mininterval=1.0,
    )

    def show(steps_done: int) -> None:
        bar.n = steps_done
        bar.refresh()

    steps = MemberSteps(runs_root / "progress", plan.todo, show)
    out_dir = str(runs_root.resolve())

    def fill() -> None:
        while queue and (ex.capacity is None or len(pending) < ex.capacity):
            group = queue.pop()
            report = steps.start(group)
            if len(group) == 1:
                fut = ex.submit(execute_run, work.train_fn, group[0], ex.threads, out_dir,
                                report)
            else:
                fut = ex.submit(execute_group, work.train_fn, work.ensemble_fn, group,
                                ex.threads, out_dir, report)
            pending[fut] = (group, report)

    def collect(futures: set[cf.Future[Any]]) -> None:
        for fut in futures:
            group, report = pending.pop(fut)
            if not group:  # a data-phase task (`_build_data`)
                continue
            if fut.cancelled():
                steps.finish(report, ())
                continue
            try:
                result = fut.result()
                records = [result] if len(group) == 1 else list(result)
            except Exception as err:  # an executor failure (e.g. a worker killed for memory)
                steps.finish(report, ())
                if len(group) > 1:
                    bar.write(f"an ensemble of {len(group)} failed in the executor "
                              f"({type(err).__name__}: {err}); retrying it as two halves")
                    queue.extend(reversed(split_group(group)))
                    continue
                records = [failed_record(group[0], f"executor: {type(err).__name__}: {err}")]
            halved = {r.extra.get("halved_from") for r in records} - {None}
            if halved:
                bar.write(f"an ensemble of {max(halved)} ran out of memory and was halved "
                          "(set [sweep] group or --group lower to plan smaller ones)")
            for record in records:
                note(record)
            steps.finish(report, group)
        show(steps.poll())

    def note(record: RunRecord) -> None:
        nonlocal done, failed
        with _deferred_interrupt():  # a Ctrl-C waits until the run is recorded and counted
            spec = record.spec
            _record_or_keep(store, record, bar.write)
            if record.extra.get("checkpoint_error"):
                bar.write(f"warning: run {record.run_id} ({spec.language} {spec.layout} "
                          f"seed={spec.seed}) completed and is recorded, but its "
                          f"{record.extra['checkpoint_error']}")
            run = f"run {record.run_id}: {spec.language} {spec.layout} seed={spec.seed} " \
                  f"lr={spec.train.lr:g}"
            if record.status == "completed":
                done += 1
                verdict = "recognized" if record.recognized else "not recognized"
                bar.write(f"{run}: {verdict} (test {100 * record.test_accuracy:.1f}%)")
            else:
                failed += 1
                bar.write(
                    f"failed: {run}: "
                    f"{record.error.strip().splitlines()[-1] if record.error.strip() else '?'}"
                )
            bar.set_postfix_str(
                f"runs done={done} failed={failed} remaining={len(plan.todo) - done - failed}"
            )

    try:
        if work.data_phase:
            _build_data([s for g in work.groups for s in g], ex, out_dir, pending)
        fill()
        while pending:
            if stop_requested():  # a Ctrl-C whose KeyboardInterrupt Python lost: stop now
                raise KeyboardInterrupt
            finished, _ = cf.wait(set(pending), timeout=POLL_EVERY,
                                  return_when=cf.FIRST_COMPLETED)
            collect(finished)
            fill()
    except StoreError:  # the store cannot be written: cancel the rest and stop
        with _ignored_interrupts():
            ex.shutdown(cancel=True)
        bar.close()
        raise
    except KeyboardInterrupt:
        with _ignored_interrupts():  # a second Ctrl-C must not break the clean stop
            collect({f for f in pending if f.done()})
            ex.shutdown(cancel=True)
        bar.close()
        print(
            f"interrupted: {len(plan.completed) + done} runs done, rerun the same command to "
            f"resume ({len(plan.runs)} in the sweep; {done + failed} recorded this time)",
            file=sys.stderr,
        )
        return SweepOutcome(plan, done, failed, True, time.perf_counter() - start)
    bar.close()
    return SweepOutcome(plan, done, failed, False, time.perf_counter() - start)


#: Seconds between two reads of the workers' progress reports while the driver waits.
POLL_EVERY = 1.0


def _build_data(specs: list[RunSpec], ex: Executor, out_dir: str,
                pending: dict[cf.Future[Any], Any]) -> None:
    """Build each distinct data split of ``specs`` once, in parallel, into the runs' cache
    (nothing to overlap with one split or one worker: the first run builds it then)."""
    firsts: dict[str, RunSpec] = {}
    for spec in specs:
        key = json.dumps([spec.language, spec.alphabet, spec.profile, spec.data, spec.seed],
                         sort_keys=True, default=str)
        firsts.setdefault(key, spec)
    if len(firsts) < 2 or ex.capacity == 1:
        return
    queue = list(firsts.values())
    while queue or pending:
        while queue and (ex.capacity is None or len(pending) < ex.capacity):
            spec = queue.pop(0)
            pending[ex.submit(build_splits, spec, out_dir)] = ((), None)
        finished, _ = cf.wait(set(pending), return_when=cf.FIRST_COMPLETED)
        for fut in finished:
            del pending[fut]


@contextlib.contextmanager
def _ignored_interrupts() -> Iterator[None]:
    """Ignore Ctrl-C inside the block (the sweep is already stopping)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _deferred_interrupt() -> Iterator[None]:
    """Hold a Ctrl-C until the block ends (a result being committed is not lost), then hand it
    to the handler it was meant for (the command line's ignores every later Ctrl-C); while
    Ctrl-C is ignored (the sweep is already stopping) it stays ignored."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) == signal.SIG_IGN or stop_requested()):
        yield
        return
    caught: list[Any] = []
    previous = signal.signal(signal.SIGINT, lambda *a: caught.append(a))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            if callable(previous):
                previous(*caught[0])
            raise KeyboardInterrupt
