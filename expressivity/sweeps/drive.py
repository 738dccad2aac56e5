"""The sweep driver's loop: hand the groups of runs to an executor, record each result the
moment it returns, and stop cleanly on Ctrl-C or a store that cannot be written.

Each finished run is committed in its own transaction (`record_or_keep`; a failed write keeps
it in a side file, `import_side_records` takes it in on the next sweep); a Ctrl-C is held
until the run being recorded is counted, then every finished run is recorded and the rest
cancelled. An ensemble whose worker dies is halved and resubmitted. With a data phase the
distinct data splits are built first, in parallel (`build_data`).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import json
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from expressivity.disk import disk_space
from expressivity.errors import StoreError
from expressivity.interrupts import stop_requested
from expressivity.sweeps.ensembles import (
    EnsembleFn,
    build_splits,
    execute_group,
    execute_run,
    failed_record,
    split_group,
)
from expressivity.sweeps.executors import Executor
from expressivity.sweeps.outcome import SweepOutcome, SweepPlan
from expressivity.sweeps.progress import MemberSteps, StepReport
from expressivity.sweeps.store import ResultsStore, save_side_record, side_records
from expressivity.training.spec import RunRecord, RunSpec

__all__ = ["POLL_EVERY", "TrainFn", "Work", "build_data", "drive", "import_side_records",
           "record_or_keep"]

TrainFn = Callable[..., RunRecord]


@dataclass(frozen=True)
class Work:
    """What the driver hands out: trainers and the groups of runs (ensembles)."""

    train_fn: TrainFn
    ensemble_fn: EnsembleFn | None
    groups: list[tuple[RunSpec, ...]]
    data_phase: bool = False  # build the distinct splits first, in parallel (`build_data`)


def import_side_records(store: ResultsStore, out: TextIO) -> None:
    """Record the runs an earlier driver could not write (`save_side_record`), then drop them."""
    found = side_records(store.path)
    for path, record in found:
        store.record(record)
        path.unlink()
    if found:
        print(f"recorded {len(found)} finished runs kept in side files of {store.path}", file=out)


def record_or_keep(store: ResultsStore, record: RunRecord, say: Callable[[str], None]) -> None:
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


def drive(
    plan: SweepPlan,
    store: ResultsStore,
    ex: Executor,
    work: Work,
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
            if not group:  # a data-phase task (`build_data`)
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
            record_or_keep(store, record, bar.write)
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
            build_data([s for g in work.groups for s in g], ex, out_dir, pending)
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


def build_data(specs: list[RunSpec], ex: Executor, out_dir: str,
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
