"""Executors: run sweep runs on a local process pool, a Dask cluster or Slurm, behind one interface.

Every executor hands out `concurrent.futures.Future` objects, so the driver waits on all of
them with `concurrent.futures.wait` whatever runs the work. Workers only compute and return
values; the driver alone writes results.

- ``local``: with ``jobs = 1`` the runs execute one by one in the driver process (no
  start-up cost; Ctrl-C reaches the trainer, which checkpoints); otherwise a spawn-context
  process pool of ``jobs`` workers, each limited to
  ``threads = max(1, cores // jobs)`` torch/OpenMP threads so the cores are not
  oversubscribed. If a worker dies (e.g. killed for memory) the pool is rebuilt and the
  unfinished tasks are resubmitted, up to `LocalExecutor.max_crashes` times per task;
  workers exit soon after their driver dies, even by SIGKILL (`PARENT_POLL` states the bound).
- ``dask``: ``distributed.Client(address)`` on any Dask cluster (LocalCluster, dask-jobqueue,
  Kubernetes, cloud); ``threads`` per run (default 1).
- ``slurm``: ``submitit.AutoExecutor`` (partition, time, memory, cpus per task, GPUs); one
  job per run, at most ``jobs`` in flight; ``cluster="local"`` runs the same path on this
  machine (used by the tests).

A task whose process is killed (SIGKILL, out of memory, preemption) is run again by every
executor before its run is recorded as failed: the local pool up to ``max_crashes`` (2)
times, Dask up to its ``allowed-failures`` (3), submitit up to ``max_resubmits`` (3).

The two cluster executors live in `expressivity.sweeps.clusters`, with `make_executor`,
which picks one.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from expressivity.errors import ConfigError

__all__ = [
    "EXECUTORS",
    "Executor",
    "ExecutorConfig",
    "LocalExecutor",
    "SerialExecutor",
    "available_cores",
    "threads_per_job",
]

EXECUTORS = ("local", "dask", "slurm")


@dataclass(frozen=True)
class ExecutorConfig:
    """Which executor to start and its options (the ``expressivity sweep`` flags)."""

    kind: str = "local"  # "local", "dask" or "slurm"
    jobs: int = 1  # runs at once (local workers; Slurm jobs in flight)
    threads: int | None = None  # threads per run (default: cores // jobs locally, else 1)
    address: str | None = None  # dask scheduler, e.g. "tcp://10.0.0.1:8786"
    partition: str | None = None  # slurm partition
    time: str | None = None  # slurm time limit: "MM", "HH:MM:SS" or "D-HH:MM:SS"
    mem: str | None = None  # slurm memory: "16G", "16000M"
    cpus_per_task: int | None = None  # slurm cpus per task (default: threads)
    gpus: int = 0  # slurm GPUs per node
    folder: str | None = None  # submitit logs and pickles (default: beside the results store)
    cluster: str | None = None  # submitit cluster ("slurm"; "local"/"debug" for testing)

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ConfigError(f"executor: {self.kind!r} is not one of {', '.join(EXECUTORS)}")
        if self.jobs < 1:
            raise ConfigError(f"jobs: must be >= 1, got {self.jobs}")
        if self.threads is not None and self.threads < 1:
            raise ConfigError(f"threads: must be >= 1, got {self.threads}")
        if self.kind == "dask" and not self.address:
            raise ConfigError("executor dask needs --address tcp://HOST:PORT (a Dask scheduler)")


def available_cores() -> int:
    """CPU cores this process may use (its affinity mask, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def threads_per_job(jobs: int, cores: int | None = None) -> int:
    """Threads for each of ``jobs`` parallel runs: ``max(1, cores // jobs)``."""
    return max(1, (cores if cores is not None else available_cores()) // max(1, jobs))


class Executor(ABC):
    """A pool that runs ``fn(*args)`` somewhere and returns a `concurrent.futures.Future`."""

    name = "executor"
    threads = 1  # threads each run should use
    capacity: int | None = None  # most tasks worth keeping submitted at once (None: no limit)

    @abstractmethod
    def submit(self, fn: Callable[..., Any], /, *args: Any) -> cf.Future[Any]:
        """Schedule ``fn(*args)``; the future holds its return value or exception."""

    @abstractmethod
    def shutdown(self, *, cancel: bool = False) -> None:
        """Release workers; with ``cancel``, drop queued tasks and stop running ones."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.shutdown(cancel=exc_type is not None)


def _init_local_worker(threads: int, driver: int | None = None) -> None:
    """Process-pool initializer: thread limits before torch loads; Ctrl-C is the driver's;
    the worker exits when the driver ``driver`` (a pid) dies (`_exit_with`)."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # tqdm's default lock is a multiprocessing (named semaphore) lock; a worker terminated on
    # Ctrl-C never unlinks it and the resource tracker reports a leak: a thread lock suffices
    from tqdm import tqdm

    tqdm.set_lock(threading.RLock())
    if driver is not None:
        _exit_with(driver)


#: Seconds between a worker's checks that its driver is alive. A worker exits within
#: PARENT_POLL plus the time the OS takes to run its watchdog thread after the driver dies:
#: 0.08-0.15 s in 8 trials (2 busy torch workers, 2 cores at load 3-6; 0.5 s polling gave
#: 0.10-0.44 s); on a machine loaded far beyond its cores, seconds (issue 28 saw 1.5-2.8 s
#: with 0.5 s polling). Measured by benchmarks/worker_exit.py.
PARENT_POLL = 0.1


def _exit_with(driver: int) -> None:
    """Exit this worker as soon as its parent is no longer ``driver`` (it died: SIGKILL, OOM).

    A watchdog thread polls ``os.getppid()`` (a dead parent's children are re-parented). Linux's
    ``prctl(PR_SET_PDEATHSIG)`` is not used: it fires when the *thread* that spawned the worker
    exits, and a replacement pool is spawned from a pool thread that exits soon after.
    """
    if os.getppid() != driver:  # died before we got here
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL)
            if os.getppid() != driver:
                os._exit(1)

    threading.Thread(target=watch, name="driver-watchdog", daemon=True).start()


class SerialExecutor(Executor):
    """``--jobs 1``: each task runs in this process when submitted (all cores, no pickling).

    A Ctrl-C then reaches the running task itself, so a trainer can checkpoint before the
    driver stops.
    """

    name = "serial"
    capacity = 1

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads or threads_per_job(1)

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> cf.Future[Any]:
        fut: cf.Future[Any] = cf.Future()
        try:
            fut.set_result(fn(*args))
        except Exception as err:  # the driver records it as a failed run
            fut.set_exception(err)
        return fut

    def shutdown(self, *, cancel: bool = False) -> None:
        return None


class LocalExecutor(Executor):
    """A process pool of ``jobs`` workers with ``threads`` threads each."""

    name = "local"
    max_crashes = 2  # pool rebuilds a task survives before its future fails

    def __init__(self, jobs: int = 1, threads: int | None = None) -> None:
        self.jobs = jobs
        self.threads = threads or threads_per_job(jobs)
        self.capacity = 2 * jobs
        self._lock = threading.Lock()
        self._closed = False
        self._pool = self._new_pool()

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(
            max_workers=self.jobs,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_local_worker,
            initargs=(self.threads, os.getpid()),
        )

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> cf.Future[Any]:
        outer: cf.Future[Any] = cf.Future()
        self._dispatch(outer, fn, args, 0)
        return outer

    def _dispatch(
        self, outer: cf.Future[Any], fn: Callable[..., Any], args: tuple[Any, ...], crashes: int
    ) -> None:
        with self._lock:
            if self._closed:
                outer.cancel()
                return
            pool = self._pool
        try:
            inner = pool.submit(fn, *args)
        except BrokenProcessPool as err:
            if crashes >= self.max_crashes:
                outer.set_exception(err)
                return None
            self._replace(pool)
            return self._dispatch(outer, fn, args, crashes + 1)
        except RuntimeError as err:  # shut down meanwhile
            outer.set_exception(err)
            return None

        def done(f: cf.Future[Any]) -> None:
            if f.cancelled():
                outer.cancel()
            elif isinstance(f.exception(), BrokenProcessPool) and crashes < self.max_crashes:
                self._replace(pool)
                self._dispatch(outer, fn, args, crashes + 1)
            elif f.exception() is not None:
                outer.set_exception(f.exception())
            else:
                outer.set_result(f.result())

        inner.add_done_callback(done)
        return None

    def _replace(self, broken: cf.ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is broken and not self._closed:
                self._pool = self._new_pool()
                broken.shutdown(wait=False, cancel_futures=True)

    def shutdown(self, *, cancel: bool = False) -> None:
        with self._lock:
            self._closed = True
            pool = self._pool
        if cancel:
            # Stop running tasks now: the pool's own shutdown would wait for them. `_processes`
            # is private, but these are processes this executor started.
            processes = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for p in processes:
                p.terminate()
            for p in processes:
                p.join(timeout=5)
            if pool is not None:  # the workers are gone: let the pool release its queues
                pool.shutdown(wait=True, cancel_futures=True)
        else:
            pool.shutdown(wait=True)
