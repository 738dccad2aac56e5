"""Functions the sweep tests run in worker processes (kept free of heavy imports)."""

from __future__ import annotations

import os
import signal
from pathlib import Path


def crash_once(flag: str) -> str:
    """Kill the worker process the first time (as an out-of-memory kill would)."""
    if not os.path.exists(flag):
        Path(flag).touch()
        os._exit(1)
    return f"ok {os.environ['OMP_NUM_THREADS']}"


def sigkill_once(flag: str) -> str:
    """SIGKILL this process the first time (as the kernel's out-of-memory killer would)."""
    if not os.path.exists(flag):
        Path(flag).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return "ok"
