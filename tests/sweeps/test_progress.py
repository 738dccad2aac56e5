"""Sweep progress in member-steps (issue 29): reports from workers, the driver's sum, the bar."""

from __future__ import annotations

import functools
import io
from pathlib import Path

import pytest

from expressivity.sweeps import progress
from expressivity.sweeps.progress import MemberSteps
from expressivity.sweeps.runner import run_sweep
from expressivity.training.spec import RunRecord, RunSpec, run_spec
from tests.sweeps.conftest import InlineExecutor
from tests.sweeps.fake import fake_ensemble


def _runs(n: int, steps: int) -> list[RunSpec]:
    return [run_spec("SUFFIX-a", "global", "tiny", seed=i, steps=steps) for i in range(n)]


def test_a_worker_process_report_is_read_from_its_file(tmp_path: Path) -> None:
    steps = MemberSteps(tmp_path / "progress", _runs(3, 10))
    assert steps.total == 30
    report = steps.start(_runs(2, 10))
    progress._LISTENERS.pop(report.path)  # as seen from a worker process: no listener there
    progress._LAST_WRITE.pop(report.path, None)
    report(4)  # an ensemble of 2 at step 4
    assert Path(report.path).read_text() == "8" and steps.poll() == 8
    report.alone(offset=10)(3)  # written at most every WRITE_EVERY seconds: not yet
    assert steps.poll() == 8
    steps.finish(report, _runs(2, 10))
    assert steps.poll() == 20 and not Path(report.path).exists()


def test_in_process_reports_reach_the_listener(tmp_path: Path) -> None:
    shown: list[int] = []
    steps = MemberSteps(tmp_path / "progress", _runs(2, 10), show=shown.append)
    report = steps.start(_runs(2, 10))
    report(5)
    assert steps.done() == 10 and shown == [10]
    assert not Path(report.path).exists()  # nothing written in the driver's own process


def _stepping_ensemble(specs: list[RunSpec], *, on_step=None, **kw) -> list[RunRecord]:  # type: ignore[no-untyped-def]
    for step in range(1, specs[0].train.steps + 1):
        if on_step is not None:
            on_step(step)
    return fake_ensemble(specs, **kw)


def test_the_bar_counts_member_steps(small_spec: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The small sweep (8 runs) in ensembles of 4: the bar ends at the sum of the step budgets,
    and every finished run's id is printed."""
    from expressivity.sweeps.spec import load_sweep

    total = sum(r.train.steps for r in load_sweep(small_spec).expand())
    log = tmp_path / "groups.txt"
    ens = functools.partial(_stepping_ensemble, log=log)
    from tests.sweeps.fake import fake_train

    out = run_sweep(small_spec, tmp_path / "r.db", executor=InlineExecutor(), train_fn=fake_train,
                    ensemble_fn=ens, group=4, progress=True, out=io.StringIO())
    captured = capsys.readouterr()
    assert out.completed == 8
    assert "member-steps" in captured.err and f"{total}/{total}" in captured.err
    assert sum(line.startswith("run ") for line in captured.out.splitlines()) == 8


def test_auto_group_size_does_not_depend_on_free_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: `--dry-run` and the sweep planned different ensembles because the automatic
    size followed the memory free at that moment; it follows the machine's memory now."""
    import os

    from expressivity.sweeps.ensembles import auto_group_size

    spec = _runs(1, 10)[0]
    real = os.sysconf
    sizes = []
    for free in (10_000, 10_000_000):
        monkeypatch.setattr(os, "sysconf", lambda name, free=free: free if name == "SC_AVPHYS_PAGES"
                            else real(name))
        sizes.append(auto_group_size(spec, 2))
    assert sizes[0] == sizes[1] >= 1
