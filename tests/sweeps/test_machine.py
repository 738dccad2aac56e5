"""The processor and kernels a run computed on are recorded beside it (expressivity.machine)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from expressivity.analysis.provenance import machine_info
from expressivity.machine import KERNEL_ENVIRONMENT, cpu_model, cpu_signature, float_environment
from expressivity.sweeps.runner import run_sweep
from expressivity.sweeps.store import ResultsStore
from tests.sweeps.conftest import InlineExecutor
from tests.sweeps.fake import fake_train


def test_cpu_model_reads_the_model_name_of_cpuinfo(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: X\nmodel name\t: Some CPU 9000 @ 3GHz\n"
                    "processor\t: 1\nmodel name\t: Some CPU 9000 @ 3GHz\n")
    assert cpu_model(info) == "Some CPU 9000 @ 3GHz"


def test_cpu_model_without_cpuinfo_falls_back_to_the_platform(tmp_path: Path) -> None:
    name = cpu_model(tmp_path / "absent")
    assert isinstance(name, str) and name
    assert cpu_signature(tmp_path / "absent") == ""


def test_cpu_signature_tells_apart_processors_with_one_generic_name(tmp_path: Path) -> None:
    def info(model: int, microcode: str) -> Path:
        path = tmp_path / f"cpuinfo-{model}-{microcode}"
        path.write_text(f"processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
                        f"model\t\t: {model}\nmodel name\t: AMD EPYC\nstepping\t: 1\n"
                        f"microcode\t: {microcode}\n\nprocessor\t: 1\nmodel\t\t: 99\n")
        return path

    genoa, milan = info(17, "0x1000065"), info(1, "0x1000065")
    assert cpu_model(genoa) == cpu_model(milan) == "AMD EPYC"
    assert cpu_signature(genoa) == "AuthenticAMD family 25 model 17 stepping 1 microcode 0x1000065"
    assert cpu_signature(genoa) != cpu_signature(milan)  # the first processor's model only
    assert cpu_signature(genoa) != cpu_signature(info(17, "0x1000066"))


def test_float_environment_names_the_kernels_and_the_set_variables(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KERNEL_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    env = float_environment()
    assert env["cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    assert set(env) == {"cpu_model", "cpu_capability"} | (
        {"cpu_signature"} if cpu_signature() else set())
    monkeypatch.setenv("MKL_CBWR", "AVX2")
    assert float_environment()["MKL_CBWR"] == "AVX2"


def test_every_sweep_run_records_its_machine(small_spec: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False)
    with ResultsStore(db, create=False) as store:
        extras = [json.loads(e) for e in store.runs()["extra"]]
    assert len(extras) == 8
    assert all(e["machine"]["cpu_model"] == cpu_model() for e in extras)
    assert machine_info()["cpu_model"] == cpu_model()
