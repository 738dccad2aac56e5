"""Seconds from a SIGKILL of the driver to the exit of its last local pool worker (Linux).

The driver starts a `LocalExecutor` of 2 workers, each busy with torch matrix products; the
script kills the driver and polls ``/proc`` until both workers are gone. The bound it checks is
`expressivity.sweeps.executors.PARENT_POLL` plus the time the OS takes to run a worker's
watchdog thread, so it reports the load average beside the times.

    python benchmarks/worker_exit.py          # 8 trials
    python benchmarks/worker_exit.py -n 3
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from expressivity.sweeps.executors import PARENT_POLL

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: tests' helpers
from tests.robustness.procfs import alive, children

ROOT = Path(__file__).resolve().parents[1]
DRIVER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from benchmarks.worker_exit import busy
from expressivity.sweeps.executors import LocalExecutor
ex = LocalExecutor(jobs=2, threads=1)
futures = [ex.submit(busy, 120.0) for _ in range(2)]
time.sleep(600)
"""


def busy(seconds: float) -> int:
    """Matrix products for ``seconds`` (a worker under load)."""
    import torch

    end, x, n = time.monotonic() + seconds, torch.randn(256, 256), 0
    while time.monotonic() < end:
        x, n = torch.tanh(x @ x), n + 1
    return n


def trial() -> float:
    """One driver, killed once its workers run: seconds until they are gone."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(ROOT)], cwd=ROOT, env=env,
                              start_new_session=True, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    start = time.monotonic()
    while len(workers) < 3 and time.monotonic() - start < 90:  # 2 workers + resource tracker
        workers = children(driver.pid)
        time.sleep(0.1)
    time.sleep(3)  # inside their tasks
    driver.send_signal(signal.SIGKILL)
    killed = time.monotonic()
    driver.wait()
    while any(alive(p) for p in workers) and time.monotonic() - killed < 30:
        time.sleep(0.005)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(driver.pid, signal.SIGKILL)
    return time.monotonic() - killed


def main() -> None:
    """Print the exit times and the load they were measured at."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=8, help="trials (default 8)")
    args = parser.parse_args()
    times = [trial() for _ in range(args.n)]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"PARENT_POLL {PARENT_POLL} s; {os.cpu_count()} cores, load average {load}")
    print("worker exit after the driver's SIGKILL (s): "
          + " ".join(f"{t:.2f}" for t in times) + f"; max {max(times):.2f}")


if __name__ == "__main__":
    main()
