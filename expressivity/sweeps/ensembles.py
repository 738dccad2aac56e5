"""Grouping a sweep's runs into ensembles, and the worker side of one ensemble.

Runs that can share an `EnsembleRecognizer` (`training.ensemble.ensemble_key`: model shape
apart from the layout, alphabet size, batch size, device, checkpointing; with
``by="language"`` also the language) are cut into groups of at most ``size`` members, of even
sizes; with several workers no group is larger than the runs per worker, and the largest
groups are halved until every worker has one. ``size = 1`` turns grouping off. The default
size (`auto_group_size`) is 1 on a CPU (runs one by one: faster there) and on a GPU the number
of members whose training memory fits a quarter of the device's memory per job, at most
`MAX_AUTO_GROUP`: the *total* memory, not what happens to be free, so that ``sweep --dry-run``
and the sweep itself plan the same ensembles (a group that still runs out of memory is halved
at run time, and the sweep says so).

`build_splits` builds one run's data splits into the shared cache on a worker (the data
phase of a sweep: each distinct split once, in parallel); `execute_run` trains one run on a
worker (any exception becomes a failed record);
`execute_group` trains a group on a worker: an out-of-memory error halves the group and
retries each half; a group that cannot form an ensemble runs its members one by one.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import os
import socket
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from expressivity.disk import disk_space
from expressivity.errors import ConfigError
from expressivity.fingerprint import code_fingerprint
from expressivity.machine import float_environment
from expressivity.sweeps.progress import StepReport
from expressivity.training.prepare import prepare
from expressivity.training.spec import RunRecord, RunSpec

if TYPE_CHECKING:
    from expressivity.sweeps.outcome import SweepPlan

__all__ = [
    "GROUP_BY",
    "MAX_AUTO_GROUP",
    "EnsembleFn",
    "auto_group_size",
    "build_splits",
    "checked_checkpoint",
    "execute_group",
    "group_plan",
    "group_runs",
    "is_out_of_memory",
    "split_group",
]

EnsembleFn = Callable[..., list[RunRecord]]
GroupBy = Literal["shape", "language"]
GROUP_BY = ("shape", "language")
#: Largest automatic group (the benchmark's largest ensemble on 2 CPU cores).
MAX_AUTO_GROUP = 32


def group_runs(
    runs: Sequence[RunSpec], size: int, *, by: str = "shape", workers: int = 1
) -> list[tuple[RunSpec, ...]]:
    """``runs`` cut into ensembles of at most ``size`` compatible runs (see the module doc)."""
    from expressivity.training.ensemble import ensemble_key

    if size < 1:
        raise ConfigError(f"group: must be >= 1, got {size}")
    if by not in GROUP_BY:
        raise ConfigError(f"group_by: {by!r} is not one of {', '.join(GROUP_BY)}")
    if workers > 1 and runs:  # every worker gets an ensemble, of similar sizes
        size = min(size, -(-len(runs) // workers))
    buckets: dict[str, list[RunSpec]] = {}
    keys: dict[str, str] = {}  # ensemble_key validates the run: once per distinct shape
    for run in runs:
        shape = json.dumps([run.profile, run.language, run.alphabet, run.model, run.data,
                            run.train], sort_keys=True, default=str)
        if shape not in keys:
            keys[shape] = ensemble_key(run)
        key = keys[shape] + (run.language if by == "language" else "")
        buckets.setdefault(key, []).append(run)
    groups: list[tuple[RunSpec, ...]] = []
    for members in buckets.values():
        n = -(-len(members) // size)  # groups of this bucket, sizes as even as possible
        cuts = [-(-len(members) * k // n) for k in range(n + 1)]
        groups.extend(tuple(members[a:b]) for a, b in itertools.pairwise(cuts))
    while size > 1 and len(groups) < workers and any(len(g) > 1 for g in groups):
        largest = max(range(len(groups)), key=lambda k: len(groups[k]))
        groups[largest : largest + 1] = split_group(groups[largest])
    return groups


def split_group(group: Sequence[RunSpec]) -> list[tuple[RunSpec, ...]]:
    """Two halves of a group (the first one larger by at most one)."""
    half = (len(group) + 1) // 2
    return [tuple(group[:half]), tuple(group[half:])]


def auto_group_size(spec: RunSpec, jobs: int = 1) -> int:
    """1 on a CPU; on a GPU the members whose training memory fits a quarter of the memory
    per job (≤ MAX_AUTO_GROUP), a function of the machine, not of the moment (see the module
    doc).

    On a CPU an ensemble trains member by member (bitwise its single runs), so it saves no
    computation, and a worker holding one ensemble cannot pass its idle time to another: the
    quick sweep took 176 s as ensembles and 115 s one by one under load, 123 s and 118 s
    idle (issue 30), with bitwise the same metrics. A GPU batches the members' steps.
    """
    from expressivity.sweeps.estimate import member_memory_bytes

    if not spec.train.device.startswith("cuda"):
        return 1
    memory = machine_memory(spec.train.device) / max(1, jobs)
    return max(1, min(MAX_AUTO_GROUP, int(memory / 4 / member_memory_bytes(spec))))


def machine_memory(device: str) -> float:
    """Total memory of the device (GPU) or of the machine (CPU), in bytes."""
    if device.startswith("cuda"):
        import torch

        if torch.cuda.is_available():
            return float(torch.cuda.mem_get_info(torch.device(device))[1])
    try:
        return float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not on Linux
        return 4e9


def is_out_of_memory(err: BaseException) -> bool:
    """Whether ``err`` reports exhausted (device or host) memory."""
    text = str(err)
    return (isinstance(err, MemoryError) or type(err).__name__ == "OutOfMemoryError"
            or "out of memory" in text or "can't allocate memory" in text)


def execute_run(
    train_fn: Callable[..., RunRecord], spec: RunSpec, threads: int, out_dir: str | None,
    report: StepReport | None = None,
) -> RunRecord:
    """Worker side of one run: train with ``threads`` threads; any exception → a failed record.

    The returned record carries the sweep's spec (threads are an execution detail, not part
    of the run id) and notes the threads, host, the worker's processor and kernels
    (`machine.float_environment`) and its `code_fingerprint` in
    ``extra`` (the store keeps the fingerprint in its own column).
    """
    start = time.perf_counter()
    try:
        record = train_fn(spec.with_train(threads=threads), out_dir=out_dir, quiet=True,
                          **_reporting(train_fn, report))
    except Exception as err:  # train never raises by contract; a bug must not stop the sweep
        record = failed_record(spec, f"{type(err).__name__}: {err}\n{traceback.format_exc()}")
        record = dataclasses.replace(record, wall_time=time.perf_counter() - start)
    return _tagged(record, spec, threads, socket.gethostname())


def checked_checkpoint(record: RunRecord) -> RunRecord:
    """``record``, or when it completed but its checkpoint file is missing (the write failed,
    `checkpoint.keep_checkpoint`), the record with no checkpoint and the disk's state in
    ``extra["checkpoint_error"]``: a trained run is never failed for its checkpoint."""
    if record.status != "completed" or not record.checkpoint or Path(record.checkpoint).exists():
        return record
    note = (f"checkpoint {record.checkpoint} was not written: "
            f"{disk_space(Path(record.checkpoint).parent)}")
    return dataclasses.replace(record, checkpoint="",
                               extra={**record.extra, "checkpoint_error": note})


def build_splits(spec: RunSpec, out_dir: str | None) -> bool:
    """Worker side of a sweep's data phase: build (or verify) the data splits of ``spec`` in
    the shared cache ``<out_dir>/splits``; False when they cannot be built (the run itself
    then fails with the reason in its record)."""

    try:
        prepare(spec, cache_dir=Path(out_dir) / "splits" if out_dir is not None else None)
    except Exception:  # reported by the run
        return False
    return True


def failed_record(spec: RunSpec, error: str) -> RunRecord:
    """A failed `RunRecord` for ``spec`` with ``error``."""
    return RunRecord(spec.run_id, spec, "failed", error=error)


def execute_group(
    train_fn: Callable[..., RunRecord], ensemble_fn: EnsembleFn | None,
    group: Sequence[RunSpec], threads: int, out_dir: str | None,
    report: StepReport | None = None,
) -> list[RunRecord]:
    """Worker side of one ensemble: its members' records, in order (never raises for a run).
    ``report`` receives the member-steps done (`sweeps.progress`)."""
    group = list(group)
    if len(group) == 1 or ensemble_fn is None:
        return _one_by_one(train_fn, group, threads, out_dir, report)
    start = time.perf_counter()
    try:
        records = ensemble_fn([s.with_train(threads=threads) for s in group],
                              out_dir=out_dir, quiet=True, **_reporting(ensemble_fn, report))
    except ConfigError:  # cannot share an ensemble after all: one by one
        return _one_by_one(train_fn, group, threads, out_dir, report)
    except Exception as err:
        if is_out_of_memory(err):  # halved; the records say so (extra.halved_from)
            halves, out, offset = split_group(group), [], 0
            for half in halves:
                part = None if report is None else replace(report, members=len(half),
                                                          offset=report.offset + offset)
                out += [dataclasses.replace(r, extra={**r.extra, "halved_from": len(group)})
                        for r in execute_group(train_fn, ensemble_fn, half, threads, out_dir,
                                               part)]
                offset += sum(s.train.steps for s in half)
            return out
        error = f"{type(err).__name__}: {err}\n{traceback.format_exc()}"
        elapsed = time.perf_counter() - start
        records = [dataclasses.replace(failed_record(s, error), wall_time=elapsed / len(group))
                   for s in group]
    host = socket.gethostname()
    return [_tagged(r, s, threads, host) for r, s in zip(records, group, strict=True)]


def _one_by_one(
    train_fn: Callable[..., RunRecord], group: Sequence[RunSpec], threads: int,
    out_dir: str | None, report: StepReport | None,
) -> list[RunRecord]:
    records, offset = [], 0 if report is None else report.offset
    for spec in group:
        records.append(execute_run(train_fn, spec, threads, out_dir,
                                   None if report is None else report.alone(offset)))
        offset += spec.train.steps
    return records


def _reporting(fn: Callable[..., Any], report: StepReport | None) -> dict[str, Any]:
    """``{"on_step": report}`` when there is one and ``fn`` takes it (custom trainers may not)."""
    if report is None:
        return {}
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return {}
    takes = "on_step" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    return {"on_step": report} if takes else {}


def _tagged(record: RunRecord, spec: RunSpec, threads: int, host: str) -> RunRecord:
    extra: dict[str, Any] = {**record.extra, "threads": threads, "host": host,
                             "machine": float_environment(),
                             "code_fingerprint": code_fingerprint()}
    return checked_checkpoint(dataclasses.replace(record, run_id=spec.run_id, spec=spec,
                                                  extra=extra))


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
