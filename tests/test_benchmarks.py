"""The benchmarks still drive the code they time: one tiny configuration of each stepping path."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("mode", ["single", "ensemble", "batched"])
def test_the_ensemble_benchmark_steps_its_members(mode: str) -> None:
    """benchmarks/ensemble.py reaches into the ensemble stepper (build, gradients, update); a
    rename there broke it once without any test noticing."""
    result = _load("ensemble").worker(mode, 2, 1, 1, 1, "tiny", "cpu")
    assert result["rate"] > 0
    assert result["mb_per_member"] >= 0
