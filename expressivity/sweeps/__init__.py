"""Sweeps: declarative TOML grids of runs, a resumable SQLite results store, and executors.

Names are imported on first use, so that a worker process unpickling one function does not
pay for pandas or the whole package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from expressivity.lazy import lazy_getattr

if TYPE_CHECKING:
    from expressivity.sweeps.clusters import make_executor
    from expressivity.sweeps.executors import ExecutorConfig
    from expressivity.sweeps.grid import SweepSpec, expand
    from expressivity.sweeps.report import recognition_matrix, summarize
    from expressivity.sweeps.runner import SweepOutcome, SweepPlan, plan_sweep, run_sweep
    from expressivity.sweeps.spec import load_sweep, parse_sweep
    from expressivity.sweeps.store import ResultsStore

_HOMES = {
    "ExecutorConfig": "executors",
    "make_executor": "clusters",
    "recognition_matrix": "report",
    "summarize": "report",
    "SweepOutcome": "runner",
    "SweepPlan": "runner",
    "plan_sweep": "runner",
    "run_sweep": "runner",
    "SweepSpec": "grid",
    "expand": "grid",
    "load_sweep": "spec",
    "parse_sweep": "spec",
    "ResultsStore": "store",
}
__all__ = [
    "ExecutorConfig",
    "ResultsStore",
    "SweepOutcome",
    "SweepPlan",
    "SweepSpec",
    "expand",
    "load_sweep",
    "make_executor",
    "parse_sweep",
    "plan_sweep",
    "recognition_matrix",
    "run_sweep",
    "summarize",
]


__getattr__ = lazy_getattr(__name__, _HOMES)
