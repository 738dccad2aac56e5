"""Fixtures for the sweep tests: small spec texts, a spec file, an in-process executor."""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from expressivity.sweeps.executors import Executor

SMALL = """\
[sweep]
name = "small"
profile = "tiny"

[base]
"train.steps" = 7

[axes]
languages = ["SUFFIX-a", "PREFIX-a"]
layouts = ["global", "local-1"]
seeds = [0, 1]

[[override]]
where = { layout = "local-1" }
set = { "train.steps" = 5 }
"""


class InlineExecutor(Executor):
    """Runs each task inside ``submit`` (deterministic, no processes): for driver tests."""

    name = "inline"

    def __init__(self, interrupt_after: int | None = None) -> None:
        self.calls = 0
        self.interrupt_after = interrupt_after
        self.shut = False

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> cf.Future[Any]:
        if self.interrupt_after is not None and self.calls >= self.interrupt_after:
            raise KeyboardInterrupt
        self.calls += 1
        fut: cf.Future[Any] = cf.Future()
        try:
            fut.set_result(fn(*args))
        except Exception as err:
            fut.set_exception(err)
        return fut

    def shutdown(self, *, cancel: bool = False) -> None:
        self.shut = True


@pytest.fixture
def small_spec(tmp_path: Path) -> Path:
    """The `SMALL` sweep (2 languages × 2 layouts × 2 seeds) written to a file."""
    path = tmp_path / "small.toml"
    path.write_text(SMALL, encoding="utf-8")
    return path
