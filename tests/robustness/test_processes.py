"""Issue 15 item 10: pool workers die with a SIGKILLed driver; Ctrl-C says "interrupted" once."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.robustness.procfs import alive, children
from tests.sweeps.conftest import SMALL

ROOT = Path(__file__).resolve().parents[2]

_DRIVER = """
import functools, sys
from tests.sweeps.fake import fake_train
from expressivity.sweeps.runner import run_sweep
run_sweep(sys.argv[1], sys.argv[2], jobs=2, progress=False,
          train_fn=functools.partial(fake_train, sleep=120.0))
"""


def test_pool_workers_exit_when_the_driver_is_killed(tmp_path: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(SMALL, "utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    driver = subprocess.Popen(
        [sys.executable, "-c", _DRIVER, str(spec), str(tmp_path / "s.db")], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 90
        while len(workers) < 3 and time.monotonic() < deadline:  # 2 workers + resource tracker
            workers = children(driver.pid)
            time.sleep(0.2)
        assert len(workers) >= 2, "the pool did not start"
        time.sleep(3)  # the workers are inside their (120 s) runs
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=30)
        deadline = time.monotonic() + 30
        while any(alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [p for p in workers if alive(p)]
        assert not left, f"still running after the driver died: {left}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(driver.pid, signal.SIGKILL)
        driver.wait(timeout=30)


def _long_sweep(tmp_path: Path, jobs: int) -> subprocess.Popen[str]:
    """`expressivity sweep` of a long-running spec, in its own session."""
    spec = tmp_path / "s.toml"
    # checkpoints every 10 steps: the first .pt file shows that training has begun (runs go
    # one by one on a CPU, and the first one would write its checkpoint only at the end)
    spec.write_text(SMALL.replace('"train.steps" = 7',
                                  '"train.steps" = 100000\n"train.checkpoint_every" = 10'), "utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "expressivity.cli", "sweep", str(spec), "--db",
         str(tmp_path / "s.db"), "--jobs", str(jobs), "--no-progress"],
        cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _wait_for(cli: subprocess.Popen[str], ready: Callable[[], bool], what: str) -> None:
    hang_guard = time.monotonic() + 600
    while not ready():
        assert cli.poll() is None, cli.communicate()
        assert time.monotonic() < hang_guard, what
        time.sleep(0.1)


def test_ctrl_c_says_it_once(tmp_path: Path) -> None:
    cli = _long_sweep(tmp_path, jobs=1)
    try:
        # event-driven: signal once training has begun (--jobs 1 trains in this process, so
        # there is no pool worker to wait for: the first checkpoint file is the event)
        _wait_for(cli, lambda: any((tmp_path / "s.runs").glob("*.pt")),
                  "the sweep never started its first run")
        cli.send_signal(signal.SIGINT)
        _, err = cli.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(cli.pid, signal.SIGKILL)
    assert cli.returncode == 130, err
    assert sum("interrupted" in line for line in err.splitlines()) == 1, err
    assert "rerun the same command to resume" in err


def test_a_second_ctrl_c_while_stopping_still_stops_cleanly(tmp_path: Path) -> None:
    """Two SIGINTs (Ctrl-C twice, or `timeout` forwarding one): no traceback, one message,
    and the pool workers leave no semaphore behind."""
    cli = _long_sweep(tmp_path, jobs=2)
    try:  # 2 pool workers + the resource tracker
        _wait_for(cli, lambda: len(children(cli.pid)) >= 3, "the pool never started")
        time.sleep(1)
        cli.send_signal(signal.SIGINT)
        time.sleep(0.05)
        cli.send_signal(signal.SIGINT)
        _, err = cli.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(cli.pid, signal.SIGKILL)
    assert cli.returncode == 130, err
    assert "Traceback" not in err, err
    assert "leaked semaphore" not in err, err  # issue 15 item 10: no semaphore leaks
    assert sum("interrupted" in line for line in err.splitlines()) == 1, err
