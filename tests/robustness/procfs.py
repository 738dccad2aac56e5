"""Processes as Linux's /proc shows them: a process's children and whether one is still alive.

Shared by the process tests (`test_processes`) and `benchmarks/worker_exit.py`, which time how
fast pool workers follow their driver's death.
"""

from __future__ import annotations

import contextlib
from pathlib import Path


def children(pid: int) -> set[int]:
    """The pids whose parent is ``pid``."""
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.add(int(entry.name))
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    with contextlib.suppress(OSError):
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    return False
