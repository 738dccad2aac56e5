"""The sweep driver: plan against the store, run what is missing on an executor, record each result.

Resumable by construction: the plan skips run ids already completed in the store (and failed
ones unless ``retry_failed``); each finished run is committed in its own transaction the
moment it returns, so an interrupted driver (Ctrl-C, SIGKILL) loses only runs in flight. On
Ctrl-C the driver records every run that already finished, cancels the rest and returns.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import signal
import socket
import sqlite3
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from expressivity.errors import StoreError
from expressivity.sweeps.executors import Executor, ExecutorConfig, make_executor
from expressivity.sweeps.spec import SweepSpec, load_sweep
from expressivity.sweeps.store import (
    ResultsStore,
    check_store_path,
    save_side_record,
    side_records,
)
from expressivity.training.spec import RunRecord, RunSpec

__all__ = ["SweepOutcome", "SweepPlan", "TrainFn", "execute_run", "plan_sweep", "run_sweep"]

TrainFn = Callable[..., RunRecord]


@dataclass(frozen=True)
class SweepPlan:
    """A sweep's runs split by what the store already holds."""

    sweep: SweepSpec
    runs: tuple[RunSpec, ...]  # every distinct run of the sweep, in axis order
    completed: tuple[str, ...]  # run ids already completed (skipped)
    failed: tuple[str, ...]  # run ids that failed before (skipped unless retrying)
    todo: tuple[RunSpec, ...]  # runs to execute now


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
    sweep: SweepSpec, store: ResultsStore | None, *, retry_failed: bool = False
) -> SweepPlan:
    """Expand ``sweep`` and split its runs into done, failed and to do (``store`` may be None)."""
    runs = tuple(sweep.expand())
    status = store.statuses([r.run_id for r in runs]) if store is not None else {}
    completed = tuple(r.run_id for r in runs if status.get(r.run_id) == "completed")
    failed = tuple(r.run_id for r in runs if status.get(r.run_id) == "failed")
    skip = set(completed) | (set() if retry_failed else set(failed))
    return SweepPlan(sweep, runs, completed, failed, tuple(r for r in runs if r.run_id not in skip))


def execute_run(train_fn: TrainFn, spec: RunSpec, threads: int, out_dir: str | None) -> RunRecord:
    """Worker side of one run: train with ``threads`` threads; any exception → a failed record.

    The returned record carries the sweep's spec (threads are an execution detail, not part
    of the run id) and notes the threads and host in ``extra``.
    """
    start = time.perf_counter()
    try:
        record = train_fn(spec.with_train(threads=threads), out_dir=out_dir, quiet=True)
    except Exception as err:  # train never raises by contract; a bug must not stop the sweep
        record = failed_record(spec, f"{type(err).__name__}: {err}\n{traceback.format_exc()}")
        record = dataclasses.replace(record, wall_time=time.perf_counter() - start)
    extra = {**record.extra, "threads": threads, "host": socket.gethostname()}
    return dataclasses.replace(record, run_id=spec.run_id, spec=spec, extra=extra)


def failed_record(spec: RunSpec, error: str) -> RunRecord:
    """A failed `RunRecord` for ``spec`` with ``error``."""
    return RunRecord(spec.run_id, spec, "failed", error=error)


def _default_train() -> TrainFn:
    from expressivity.training import train

    return train


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
) -> SweepOutcome:
    """Run every run of ``sweep`` missing from the results store ``db``; see the module doc.

    ``executor`` is a kind ("local", "dask", "slurm"; options via an `ExecutorConfig`) or a
    started `Executor`. ``train_fn`` defaults to `expressivity.training.train`; it must be
    picklable (a module-level function) for process and cluster executors; a script that
    uses the local executor needs the usual ``if __name__ == "__main__":`` guard. Every run
    gets ``out_dir=runs_dir`` (default: ``<db stem>.runs`` beside the store) for its
    checkpoint and the shared data-split cache, so a rerun continues interrupted runs. A dry run
    prints the plan and a compute estimate and touches nothing.
    """
    from expressivity.sweeps.estimate import estimate_compute

    out = out or sys.stdout
    spec = sweep if isinstance(sweep, SweepSpec) else load_sweep(sweep)
    db = check_store_path(db)
    if dry_run:
        store = ResultsStore(db, create=False) if db.exists() else None
        plan = plan_sweep(spec, store, retry_failed=retry_failed)
        print(_plan_text(plan), file=out)
        print(estimate_compute(plan.todo, store).text(), file=out)
        if store is not None:
            store.close()
        return SweepOutcome(plan)
    train_fn = train_fn or _default_train()
    runs_root = Path(runs_dir) if runs_dir else db.with_suffix(".runs")
    with ResultsStore(db) as store:
        store.lock()
        _import_side_records(store, out)
        plan = plan_sweep(spec, store, retry_failed=retry_failed)
        store.register_sweep(
            spec.name, spec.spec_hash, spec.path, spec.source, [r.run_id for r in plan.runs]
        )
        print(_plan_text(plan), file=out)
        if not plan.todo:
            return SweepOutcome(plan)
        if isinstance(executor, Executor):
            return _drive(plan, store, executor, train_fn, runs_root, progress)
        config = (
            executor if isinstance(executor, ExecutorConfig) else ExecutorConfig(executor, jobs)
        )
        folder = db.with_suffix(".submitit")
        with make_executor(config, folder=folder) as ex:
            return _drive(plan, store, ex, train_fn, runs_root, progress)


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
        side = save_side_record(store.path, record)
        say(f"could not write run {record.run_id} to {store.path} ({type(err).__name__}: "
            f"{err}); kept it in {side}: the next sweep on this store records it")


def _plan_text(plan: SweepPlan) -> str:
    s = plan.sweep
    retry = len(set(plan.failed) & {r.run_id for r in plan.todo})
    return (
        f"sweep {s.name!r} ({s.path or 'in memory'}): {len(plan.runs)} runs "
        f"({' × '.join(f'{len(v)} {_plural(k, len(v))}' for k, v in s.axes) or 'no axes'}); "
        f"{len(plan.completed)} completed, {len(plan.failed)} failed before"
        f"{f' (retrying {retry})' if retry else ''}; {len(plan.todo)} to run"
    )


def _plural(axis: str, n: int) -> str:
    return axis if "." in axis or n == 1 else axis + "s"


def _drive(
    plan: SweepPlan,
    store: ResultsStore,
    ex: Executor,
    train_fn: TrainFn,
    runs_root: Path,
    progress: bool,
) -> SweepOutcome:
    from tqdm import tqdm

    start = time.perf_counter()
    queue = list(reversed(plan.todo))
    pending: dict[cf.Future[Any], RunSpec] = {}
    done = failed = 0
    bar = tqdm(
        total=len(plan.todo), unit="run", disable=not progress, dynamic_ncols=True, file=sys.stderr
    )

    out_dir = str(runs_root.resolve())

    def fill() -> None:
        while queue and (ex.capacity is None or len(pending) < ex.capacity):
            spec = queue.pop()
            pending[ex.submit(execute_run, train_fn, spec, ex.threads, out_dir)] = spec

    def collect(futures: set[cf.Future[Any]]) -> None:
        nonlocal done, failed
        for fut in futures:
            spec = pending.pop(fut)
            if fut.cancelled():
                continue
            try:
                record = fut.result()
            except Exception as err:  # an executor failure of one run
                record = failed_record(spec, f"executor: {type(err).__name__}: {err}")
            with _deferred_interrupt():
                _record_or_keep(store, record, bar.write)
            if record.status == "completed":
                done += 1
            else:
                failed += 1
                bar.write(
                    f"failed: {spec.language} {spec.layout} seed={spec.seed} lr={spec.train.lr:g}: "
                    f"{record.error.strip().splitlines()[-1] if record.error.strip() else '?'}"
                )
            bar.update(1)
            bar.set_postfix_str(
                f"done={done} failed={failed} remaining={len(plan.todo) - done - failed}"
            )

    try:
        fill()
        while pending:
            finished, _ = cf.wait(set(pending), return_when=cf.FIRST_COMPLETED)
            collect(finished)
            fill()
    except KeyboardInterrupt:
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


@contextlib.contextmanager
def _deferred_interrupt() -> Iterator[None]:
    """Hold a Ctrl-C until the block ends (a result being committed is not lost)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[Any] = []
    previous = signal.signal(signal.SIGINT, lambda *a: caught.append(a))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt
