"""The sweep driver: resume, retry, failures recorded, dry runs, interruption, kill and resume."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from expressivity.interrupts import stop_on_first_interrupt
from expressivity.sweeps import drive
from expressivity.sweeps.executors import threads_per_job
from expressivity.sweeps.runner import run_sweep
from expressivity.sweeps.store import ResultsStore
from expressivity.training import prepare as prep
from tests.sweeps.conftest import SMALL, InlineExecutor
from tests.sweeps.fake import fake_train

ROOT = Path(__file__).resolve().parents[2]


def test_resume_skips_completed_and_retry_reruns_failed(small_spec: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    flaky = functools.partial(fake_train, fail={"PREFIX-a"})
    first = run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=flaky, progress=False)
    assert (first.completed, first.failed, first.remaining) == (4, 4, 0)
    again = InlineExecutor()
    second = run_sweep(small_spec, db, executor=again, train_fn=fake_train, progress=False)
    assert again.calls == 0 and not second.plan.todo and len(second.plan.failed) == 4
    retry = InlineExecutor()
    third = run_sweep(
        small_spec, db, executor=retry, train_fn=fake_train, retry_failed=True, progress=False
    )
    assert retry.calls == 4 and (third.completed, third.failed) == (4, 0)
    with ResultsStore(db) as store:
        runs = store.runs()
    assert len(runs) == 8 and set(runs["status"]) == {"completed"}
    assert sorted(runs["attempts"].tolist()) == [1] * 4 + [2] * 4


def test_a_crashing_run_is_recorded_and_the_sweep_goes_on(small_spec: Path, tmp_path: Path) -> None:
    crashing = functools.partial(fake_train, crash={"SUFFIX-a"})
    out = run_sweep(
        small_spec, tmp_path / "r.db", executor=InlineExecutor(), train_fn=crashing, progress=False
    )
    assert (out.completed, out.failed) == (4, 4)
    with ResultsStore(tmp_path / "r.db") as store:
        failed = store.runs().query("status == 'failed'")
    assert set(failed["language"]) == {"SUFFIX-a"}
    assert all("RuntimeError: fake trainer crashed" in e for e in failed["error"])


def test_dry_run_prints_counts_and_estimate_and_writes_nothing(
    small_spec: Path, tmp_path: Path
) -> None:
    text = io.StringIO()
    out = run_sweep(small_spec, tmp_path / "r.db", dry_run=True, out=text)
    assert not (tmp_path / "r.db").exists() and len(out.plan.todo) == 8
    printed = text.getvalue()
    assert "8 runs (2 languages × 2 layouts × 2 seeds)" in printed
    assert "compute estimate for 8 runs" in printed and "FLOPs" in printed


def test_interrupt_keeps_finished_runs_and_resume_completes(
    small_spec: Path, tmp_path: Path
) -> None:
    db = tmp_path / "r.db"
    ex = InlineExecutor(interrupt_after=3)
    out = run_sweep(small_spec, db, executor=ex, train_fn=fake_train, progress=False)
    assert out.interrupted and out.completed == 3 and ex.shut
    rest = run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False)
    assert len(rest.plan.completed) == 3 and rest.completed == 5
    with ResultsStore(db) as store:
        assert store.runs()["attempts"].tolist() == [1] * 8


_DRIVER = """
import functools, sys
from tests.sweeps.fake import fake_train
from expressivity.sweeps.runner import run_sweep
out = run_sweep(sys.argv[1], sys.argv[2], jobs=int(sys.argv[4]), progress=False,
                train_fn=functools.partial(fake_train, sleep=float(sys.argv[3])))
print("interrupted" if out.interrupted else "finished", out.completed)
"""


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
    except sqlite3.OperationalError:  # schema not created yet
        return 0


def _driver(spec: Path, db: Path, sleep: float, jobs: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-c", _DRIVER, str(spec), str(db), str(sleep), str(jobs)],
        cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _wait_for(db: Path, n: int, proc: subprocess.Popen[str], hang_guard: float = 900) -> None:
    """Block until ``n`` runs are in the store (the event the test signals on).

    No timing is asserted: a slow machine only waits longer. ``hang_guard`` only stops a
    driver that is truly stuck from blocking the suite forever.
    """
    deadline = time.monotonic() + hang_guard
    while _count(db) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"driver stuck below {n} runs after {hang_guard} s"
        time.sleep(0.05)


def _reap(proc: subprocess.Popen[str]) -> None:
    """Kill what is left of the driver's process group (its pool workers) and wait."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def _check_whole(db: Path, expected: int | None = None) -> int:
    conn = sqlite3.connect(db)
    runs = conn.execute("SELECT COUNT(*), COUNT(DISTINCT run_id) FROM runs").fetchone()
    per_run = conn.execute(
        "SELECT r.run_id, COUNT(m.length) FROM runs r LEFT JOIN length_metrics m USING (run_id) "
        "GROUP BY r.run_id"
    ).fetchall()
    attempts = {a for (a,) in conn.execute("SELECT attempts FROM runs")}
    conn.close()
    assert runs[0] == runs[1]
    assert all(n == 8 for _, n in per_run)  # every recorded run has all its metrics
    assert attempts <= {1}  # nothing ran twice
    if expected is not None:
        assert runs[0] == expected
    return int(runs[0])


@pytest.mark.slow  # ~35 s; test_interrupt_keeps_finished_runs_and_resume_completes is fast
def test_ctrl_c_then_sigkill_then_resume_records_every_run_once(tmp_path: Path) -> None:
    """A driver (local process pool) stopped by Ctrl-C, then one killed by SIGKILL mid-sweep:
    each leaves only whole runs; a final resume runs exactly the missing ones."""
    spec = tmp_path / "kill.toml"
    spec.write_text(SMALL.replace("seeds = [0, 1]", "seeds = [0, 1, 2]"), encoding="utf-8")
    db = tmp_path / "kill.db"
    first = _driver(spec, db, 0.3, jobs=1)
    try:
        _wait_for(db, 2, first)
        first.send_signal(signal.SIGINT)
        out, err = first.communicate(timeout=60)
    finally:
        _reap(first)
    assert first.returncode == 0 and out.splitlines()[-1].startswith("interrupted"), (out, err)
    assert "rerun the same command to resume" in err
    interrupted = _check_whole(db)
    assert 2 <= interrupted < 12

    second = _driver(spec, db, 0.3, jobs=2)
    try:
        _wait_for(db, interrupted + 2, second)
        second.send_signal(signal.SIGKILL)
        second.wait(timeout=30)
    finally:
        _reap(second)
    killed = _check_whole(db)
    assert interrupted + 2 <= killed < 12

    rest = InlineExecutor()
    out3 = run_sweep(spec, db, executor=rest, train_fn=fake_train, progress=False)
    assert len(out3.plan.completed) == killed and rest.calls == out3.completed == 12 - killed
    _check_whole(db, expected=12)
    with ResultsStore(db) as store:
        threads = {json.loads(e)["threads"] for e in store.runs()["extra"]}
    assert threads >= {threads_per_job(1), threads_per_job(2)}


def test_the_data_phase_builds_each_distinct_split_once(small_spec: Path, tmp_path: Path) -> None:
    """With the default trainer the 4 distinct splits (2 languages × 2 seeds) are built first,
    one task each, and the 8 runs (2 layouts each) then load them from the verified cache."""
    ex = InlineExecutor()
    prep._MEMORY.clear()
    outcome = run_sweep(small_spec, tmp_path / "r.db", executor=ex, runs_dir=tmp_path / "runs",
                        progress=False, out=io.StringIO())
    assert outcome.completed == 8 and ex.calls == 4 + 8  # group "auto" is off on a CPU
    cached = [p for p in (tmp_path / "runs" / "splits").iterdir() if p.is_dir()]
    assert len(cached) == 4 and all((p / "manifest.json").exists() for p in cached)
    with ResultsStore(tmp_path / "r.db") as store:
        hashes = {json.loads(e)["dataset_hash"] for e in store.runs()["extra"]}
    assert len(hashes) == 4


def test_a_second_ctrl_c_while_the_stopping_sweep_records_its_finished_runs(
    small_spec: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # the command line's handler, as `expressivity sweep` runs it
    """Ctrl-C while a result is committed is held until the commit ends; the sweep then
    records every other finished run, and a second Ctrl-C during those commits is ignored:
    nothing is lost and the sweep returns interrupted."""
    record = drive.record_or_keep
    calls: list[int] = []

    def record_under_fire(*args: Any) -> None:
        calls.append(1)
        if len(calls) <= 2:  # the first Ctrl-C, then the second while the sweep stops
            signal.raise_signal(signal.SIGINT)
        record(*args)

    monkeypatch.setattr(drive, "record_or_keep", record_under_fire)
    signal.signal(signal.SIGINT, stop_on_first_interrupt)
    db = tmp_path / "r.db"
    out = run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train,
                    progress=False)
    assert out.interrupted and len(calls) >= 2
    with ResultsStore(db) as store:
        statuses = store.statuses()
    assert list(statuses.values()).count("completed") == len(calls) == out.completed
    assert "rerun the same command to resume" in capsys.readouterr().err
    signal.signal(signal.SIGINT, signal.default_int_handler)  # the handler left ignoring


class _SwallowingExecutor(InlineExecutor):
    """An inline executor inside whose third task a Ctrl-C comes and its `KeyboardInterrupt`
    is lost (as Python loses one raised inside a finalizer)."""

    def submit(self, fn: Any, /, *args: Any) -> Any:
        if self.calls == 2:
            with contextlib.suppress(KeyboardInterrupt):
                signal.raise_signal(signal.SIGINT)
        return super().submit(fn, *args)


def test_a_ctrl_c_whose_interrupt_was_lost_still_stops_the_sweep(
    small_spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    signal.signal(signal.SIGINT, stop_on_first_interrupt)  # as `expressivity sweep` runs it
    db = tmp_path / "r.db"
    try:
        out = run_sweep(small_spec, db, executor=_SwallowingExecutor(), train_fn=fake_train,
                        progress=False)
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    assert out.interrupted  # the driver asked `stop_requested` and stopped
    with ResultsStore(db) as store:  # nothing lost: every finished run is recorded
        assert list(store.statuses().values()).count("completed") == out.completed >= 3
    assert "rerun the same command to resume" in capsys.readouterr().err
