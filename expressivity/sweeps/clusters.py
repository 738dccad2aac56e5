"""Cluster executors: a Dask cluster (``distributed``) and Slurm (``submitit``).

Both wrap their native futures or jobs into `concurrent.futures.Future` objects (see
`expressivity.sweeps.executors`); the Slurm executor polls its jobs from one thread and
cancels queued and running jobs when the driver is interrupted.
"""

from __future__ import annotations

import concurrent.futures as cf
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from expressivity.errors import ConfigError
from expressivity.sweeps.executors import Executor, ExecutorConfig, LocalExecutor, SerialExecutor

__all__ = [
    "DaskExecutor", "SlurmExecutor", "make_executor", "parse_memory_gb", "parse_time_minutes",
]


def _require(module: str, executor: str) -> Any:
    """Import an optional cluster package, or say which extra installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(
            f"the {executor} executor needs the {module!r} package, which is in the 'cluster' "
            "extra: pip install 'expressivity[cluster]' (or run with --executor local)"
        ) from None


class DaskExecutor(Executor):
    """Runs tasks on a Dask cluster through ``distributed.Client(address)``."""

    name = "dask"

    def __init__(self, address: str, threads: int = 1) -> None:
        Client = _require("distributed", "dask").Client

        self.threads = threads
        self._client = Client(address, set_as_default=False)
        self._futures: set[Any] = set()

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> cf.Future[Any]:
        outer: cf.Future[Any] = cf.Future()
        remote = self._client.submit(fn, *args, pure=False)
        self._futures.add(remote)  # a released Dask future would be cancelled

        def done(f: Any) -> None:
            self._futures.discard(f)
            try:
                if f.cancelled():
                    outer.cancel()
                else:
                    outer.set_result(f.result())
            except BaseException as err:  # passed on to the driver
                if not outer.done():
                    outer.set_exception(err)

        remote.add_done_callback(done)
        return outer

    def shutdown(self, *, cancel: bool = False) -> None:
        if cancel and self._futures:
            self._client.cancel(list(self._futures))
        self._client.close()


class SlurmExecutor(Executor):
    """One submitit job per task (Slurm, or submitit's ``local`` cluster for testing).

    A job that ends without a result — its process killed (SIGKILL, out of memory), preempted
    or timed out: submitit's ``UncompletedJobError`` — is submitted again, up to
    `max_resubmits` times, as Dask reschedules a task whose worker died (its
    ``allowed-failures``, 3 by default); only then does the driver record the run as failed.
    A task that raised (``FailedJobError``) is not retried: the sweep's tasks turn every
    training failure into a failed record themselves, so that is a bug to see.
    """

    name = "slurm"
    poll_s = 0.5
    max_resubmits = 3  # as Dask's default distributed.scheduler.allowed-failures

    def __init__(self, config: ExecutorConfig, folder: str | Path) -> None:
        submitit = _require("submitit", "slurm")
        self.threads = config.threads or config.cpus_per_task or 1
        self.capacity = config.jobs
        self._executor = submitit.AutoExecutor(folder=str(folder), cluster=config.cluster)
        params: dict[str, Any] = {
            "name": "expressivity",
            "cpus_per_task": config.cpus_per_task or self.threads,
            "slurm_partition": config.partition,
            "gpus_per_node": config.gpus or None,
        }
        if config.time:
            params["timeout_min"] = parse_time_minutes(config.time)
        if config.mem:
            params["mem_gb"] = parse_memory_gb(config.mem)
        self._executor.update_parameters(**{k: v for k, v in params.items() if v is not None})
        self._uncompleted = submitit.core.utils.UncompletedJobError
        # job -> (the driver's future, the task, its resubmits so far)
        self._jobs: dict[Any, tuple[cf.Future[Any], Callable[..., Any], tuple[Any, ...], int]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._poller = threading.Thread(target=self._poll, name="submitit-poller", daemon=True)
        self._poller.start()

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> cf.Future[Any]:
        outer: cf.Future[Any] = cf.Future()
        job = self._executor.submit(fn, *args)
        with self._lock:
            self._jobs[job] = (outer, fn, args, 0)
        return outer

    def _poll(self) -> None:
        while not self._stop.wait(self.poll_s):
            with self._lock:
                finished = [(j, t) for j, t in self._jobs.items() if j.done()]
                for job, _ in finished:
                    del self._jobs[job]
            for job, (outer, fn, args, resubmits) in finished:
                try:
                    outer.set_result(job.result())
                except self._uncompleted as err:  # the job's process died: run it again
                    if resubmits >= self.max_resubmits or self._stop.is_set():
                        outer.set_exception(err)
                        continue
                    again = self._executor.submit(fn, *args)
                    with self._lock:
                        self._jobs[again] = (outer, fn, args, resubmits + 1)
                except Exception as err:  # job failures go to the driver
                    outer.set_exception(err)

    def shutdown(self, *, cancel: bool = False) -> None:
        if cancel:
            self._stop.set()  # first: the poller resubmits nothing from now on
            with self._lock:
                pending = list(self._jobs.items())
                self._jobs.clear()
            for job, (outer, *_) in pending:
                job.cancel(check=False)
                outer.cancel()
        else:
            while True:
                with self._lock:
                    if not self._jobs:
                        break
                time.sleep(self.poll_s)
        self._stop.set()
        self._poller.join(timeout=5)


def parse_time_minutes(text: str) -> int:
    """Slurm time ("MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM[:SS]") in whole minutes (≥ 1)."""
    m = re.fullmatch(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?", text.strip())
    if not m:
        raise ConfigError(f"time: {text!r} is not a Slurm time such as 90, 2:00:00 or 1-12:00:00")
    days, a, b, c = (int(x) if x else None for x in m.groups())
    if days is not None:  # D-HH[:MM[:SS]]
        minutes = days * 1440 + (a or 0) * 60 + (b or 0) + ((c or 0) > 0)
    elif c is not None:  # HH:MM:SS
        minutes = (a or 0) * 60 + (b or 0) + (c > 0)
    elif b is not None:  # MM:SS
        minutes = (a or 0) + (b > 0)
    else:  # MM
        minutes = a or 0
    return max(1, minutes)


def parse_memory_gb(text: str) -> float:
    """Slurm memory ("16G", "512M", "1T", plain number = megabytes) in gigabytes."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)B?", text.strip().upper())
    if not m:
        raise ConfigError(f"mem: {text!r} is not a memory size such as 16G or 4000M")
    scale = {"K": 1 / 1024**2, "M": 1 / 1024, "": 1 / 1024, "G": 1.0, "T": 1024.0}[m.group(2)]
    return float(m.group(1)) * scale


def make_executor(config: ExecutorConfig, *, folder: str | Path = "submitit") -> Executor:
    """Start the executor that ``config`` describes (``folder``: submitit's working folder)."""
    if config.kind == "local":
        if config.jobs == 1:
            return SerialExecutor(config.threads)
        return LocalExecutor(config.jobs, config.threads)
    if config.kind == "dask":
        assert config.address is not None
        return DaskExecutor(config.address, config.threads or 1)
    return SlurmExecutor(config, config.folder or folder)
