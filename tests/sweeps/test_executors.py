"""Executors: option parsing, the local pool (crash recovery), Dask and submitit end to end."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from expressivity.errors import ConfigError
from expressivity.sweeps.clusters import parse_memory_gb, parse_time_minutes
from expressivity.sweeps.executors import ExecutorConfig, LocalExecutor, threads_per_job
from expressivity.sweeps.runner import run_sweep
from expressivity.sweeps.store import ResultsStore
from tests.sweeps.helpers import crash_once

TINY = """\
[sweep]
name = "e2e"
profile = "tiny"

[base]
"train.steps" = 20

[axes]
languages = ["SUFFIX-a"]
layouts = ["global", "local-1"]
"""


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("90", 90), ("5:30", 6), ("2:00:00", 120), ("1-12", 2160), ("1-00:30:00", 1470), ("0", 1)],
)
def test_parse_time(text: str, minutes: int) -> None:
    assert parse_time_minutes(text) == minutes


@pytest.mark.parametrize(
    ("text", "gb"), [("16G", 16.0), ("512M", 0.5), ("1T", 1024.0), ("2048", 2.0)]
)
def test_parse_memory(text: str, gb: float) -> None:
    assert parse_memory_gb(text) == gb


def test_bad_options_raise_config_error() -> None:
    for bad in (lambda: parse_time_minutes("soon"), lambda: parse_memory_gb("lots")):
        with pytest.raises(ConfigError):
            bad()
    with pytest.raises(ConfigError, match="--address"):
        ExecutorConfig("dask")
    with pytest.raises(ConfigError, match="executor"):
        ExecutorConfig("mpi")
    with pytest.raises(ConfigError, match="jobs"):
        ExecutorConfig(jobs=0)


def test_threads_per_job_never_oversubscribes() -> None:
    assert threads_per_job(1, cores=8) == 8
    assert threads_per_job(3, cores=8) == 2
    assert threads_per_job(16, cores=8) == 1


def test_local_pool_survives_a_dead_worker(tmp_path: Path) -> None:
    with LocalExecutor(jobs=1, threads=1) as ex:
        fut = ex.submit(crash_once, str(tmp_path / "flag"))
        assert fut.result(timeout=60) == "ok 1"


def _rows(db: Path) -> list[tuple[str, str, str]]:
    with ResultsStore(db) as store:
        runs = store.runs()
        assert not store.lengths().empty
    return sorted(zip(runs["language"], runs["layout"], runs["status"], strict=True))


def test_dask_local_cluster_end_to_end(tmp_path: Path) -> None:
    from distributed import LocalCluster

    spec = tmp_path / "e2e.toml"
    spec.write_text(TINY, encoding="utf-8")
    # Two worker threads in one process: concurrent runs share the split cache directory.
    with LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, host="127.0.0.1",
        protocol="tcp://", dashboard_address=None,
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        config = ExecutorConfig("dask", address=cluster.scheduler_address)
        out = run_sweep(spec, tmp_path / "r.db", executor=config, progress=False, group=2)
    assert (out.completed, out.failed) == (2, 0)
    assert _rows(tmp_path / "r.db") == [
        ("SUFFIX-a", "global", "completed"), ("SUFFIX-a", "local-1", "completed")
    ]
    with sqlite3.connect(tmp_path / "r.db") as conn:  # the worker trained them as one ensemble
        extras = [json.loads(e) for (e,) in conn.execute("SELECT extra FROM runs")]
    assert [e["ensemble"]["size"] for e in extras] == [2, 2]


@pytest.mark.slow  # ~25 s; the Dask end-to-end test above is the fast representative
def test_submitit_local_executor_end_to_end(tmp_path: Path) -> None:
    spec = tmp_path / "e2e.toml"
    spec.write_text(TINY.replace('"global", ', ""), encoding="utf-8")
    config = ExecutorConfig(
        "slurm", jobs=2, cluster="local", partition="cpu", time="10", mem="2G",
        folder=str(tmp_path / "submitit"),
    )
    out = run_sweep(spec, tmp_path / "r.db", executor=config, progress=False)
    assert (out.completed, out.failed) == (1, 0)
    assert _rows(tmp_path / "r.db") == [("SUFFIX-a", "local-1", "completed")]
    assert any((tmp_path / "submitit").iterdir())  # submitit's logs and pickles
