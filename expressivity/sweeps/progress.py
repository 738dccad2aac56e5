"""Sweep progress in member-steps: each worker reports its ensemble's step, the driver adds them up.

A sweep's work is the sum of its runs' step budgets. An ensemble of m members at step s has done
m·s member-steps; a finished run counts its whole budget (early stopping only ends it sooner).
The progress bar counts member-steps, so its rate and ETA come from finished steps, not from
finished runs (which arrive in bursts, an ensemble at a time, and left the bar at 0 % for
minutes, issue 29).

Workers report through a `StepReport`, a picklable ``on_step`` callback for
`training.train` / `training.train_ensemble`: in the driver's own process (the serial executor)
it calls the driver's listener directly; in a worker process it writes the count, at most
every `WRITE_EVERY` seconds, to a small file ``<runs dir>/progress/<id>`` that the driver
reads while it waits. A worker the driver cannot see (a remote Dask node without the shared
folder) just reports nothing until its runs finish.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from expressivity.training.spec import RunSpec

__all__ = ["WRITE_EVERY", "MemberSteps", "StepReport"]

#: Seconds between two progress writes of one worker.
WRITE_EVERY = 0.5
#: Listeners of the driver process, by report path (the serial executor trains in-process).
_LISTENERS: dict[str, Callable[[int], None]] = {}
_LAST_WRITE: dict[str, float] = {}


@dataclass(frozen=True)
class StepReport:
    """``on_step`` callback: member-steps done = ``offset + members · step``, sent to ``path``."""

    path: str
    members: int = 1
    offset: int = 0

    def __call__(self, step: int) -> None:
        done = self.offset + self.members * int(step)
        listener = _LISTENERS.get(self.path)
        if listener is not None:
            listener(done)
            return
        now = time.monotonic()
        if now - _LAST_WRITE.get(self.path, 0.0) < WRITE_EVERY:
            return
        _LAST_WRITE[self.path] = now
        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            Path(tmp).write_text(str(done), encoding="ascii")
            os.replace(tmp, self.path)
        except OSError:  # progress is a courtesy: never fail a run for it
            pass

    def alone(self, offset: int) -> StepReport:
        """The report of one member trained alone, after ``offset`` member-steps of its group."""
        return replace(self, members=1, offset=offset)


class MemberSteps:
    """The driver's side: member-steps of finished runs plus those reported by running groups."""

    def __init__(self, folder: Path, todo: Sequence[RunSpec],
                 show: Callable[[int], None] | None = None) -> None:
        self.folder = folder
        self.total = sum(run.train.steps for run in todo)
        self.finished = 0
        self.show = show  # called with the member-steps done as in-process groups report
        self._running: dict[str, int] = {}  # report path -> member-steps reported
        self._shown = 0.0

    def start(self, group: Sequence[RunSpec]) -> StepReport:
        """A report for ``group`` (listened to in this process, read from its file otherwise)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = str(self.folder / group[0].run_id)
        self._running[path] = 0
        _LISTENERS[path] = lambda done: self._heard(path, done)
        return StepReport(path, len(group))

    def _heard(self, path: str, done: int) -> None:
        self._running[path] = done
        now = time.monotonic()
        if self.show is not None and now - self._shown >= WRITE_EVERY:
            self._shown = now
            self.show(self.done())

    def done(self) -> int:
        """Member-steps done as last known (finished runs plus running groups' reports)."""
        return min(self.total, self.finished + sum(self._running.values()))

    def finish(self, report: StepReport, runs: Sequence[RunSpec]) -> None:
        """``runs`` of the report's group are done: their budgets count whole."""
        self.finished += sum(run.train.steps for run in runs)
        self._running.pop(report.path, None)
        _LISTENERS.pop(report.path, None)
        Path(report.path).unlink(missing_ok=True)

    def poll(self) -> int:
        """`done` after reading the reports that worker processes wrote."""
        for path in self._running:
            with contextlib.suppress(OSError, ValueError):  # not written yet, or in-process
                self._running[path] = int(Path(path).read_text(encoding="ascii") or 0)
        return self.done()
