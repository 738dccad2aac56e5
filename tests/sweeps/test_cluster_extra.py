"""dask, distributed and submitit are the optional `cluster` extra, named when missing."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from expressivity.errors import ConfigError
from expressivity.sweeps.executors import ExecutorConfig

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = {"dask", "distributed", "submitit"}


def _names(requirements: list[str]) -> set[str]:
    return {r.split(">")[0].split("=")[0].split("[")[0].strip() for r in requirements}


def test_cluster_packages_are_an_extra_not_a_requirement() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not CLUSTER & _names(project["dependencies"])
    assert _names(project["optional-dependencies"]["cluster"]) >= CLUSTER
    assert _names(project["optional-dependencies"]["dev"]) >= CLUSTER  # the tests run them


@pytest.mark.parametrize(("module", "kind"), [("distributed", "dask"), ("submitit", "slurm")])
def test_a_missing_package_names_the_extra(module: str, kind: str, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from expressivity.sweeps.clusters import make_executor

    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    config = ExecutorConfig(kind=kind, address="tcp://127.0.0.1:1", jobs=1)
    with pytest.raises(ConfigError, match=r"pip install 'expressivity\[cluster\]'"):
        make_executor(config, folder=tmp_path)
