"""Issue 28 item 8: a killed job is retried by every executor, not recorded as a failed run."""

from __future__ import annotations

from pathlib import Path

import pytest

from expressivity.sweeps.clusters import SlurmExecutor
from expressivity.sweeps.executors import ExecutorConfig, LocalExecutor
from tests.sweeps.helpers import sigkill_once

pytest.importorskip("submitit")


@pytest.mark.slow  # submitit's local cluster starts a Python process per job (~10 s)
def test_submitit_reruns_a_job_whose_process_was_killed(tmp_path: Path) -> None:
    config = ExecutorConfig("slurm", jobs=1, cluster="local", time="5",
                            folder=str(tmp_path / "submitit"))
    ex = SlurmExecutor(config, tmp_path / "submitit")
    try:
        fut = ex.submit(sigkill_once, str(tmp_path / "flag"))
        assert fut.result(timeout=240) == "ok"
    finally:
        ex.shutdown(cancel=True)
    assert (tmp_path / "flag").exists()  # the first attempt ran and was killed


def test_the_local_pool_reruns_a_killed_worker_too(tmp_path: Path) -> None:
    with LocalExecutor(jobs=1, threads=1) as ex:
        assert ex.submit(sigkill_once, str(tmp_path / "flag")).result(timeout=120) == "ok"
