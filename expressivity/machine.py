"""The processor a run computed on: its model name and the kernels torch dispatched to."""

from __future__ import annotations

import os
import platform
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["KERNEL_ENVIRONMENT", "cpu_model", "float_environment"]

#: Environment variables that pick the CPU kernels of torch, MKL and oneDNN (their float
#: rounding): unset on a default machine, recorded when set.
KERNEL_ENVIRONMENT = (
    "ATEN_CPU_CAPABILITY", "MKL_CBWR", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA",
)


@cache
def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The processor's model name (``/proc/cpuinfo`` on Linux, else `platform.processor`)."""
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def float_environment() -> dict[str, Any]:
    """What decides a CPU run's float rounding beside its code and seed: the processor's model,
    the vector instruction set torch's kernels use (`torch.backends.cpu.get_cpu_capability`)
    and any variable of `KERNEL_ENVIRONMENT` that is set. Two machines that differ here can
    round differently, and a training run, being chaotic, can then end elsewhere."""
    import torch

    return {
        "cpu_model": cpu_model(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        **{name: os.environ[name] for name in KERNEL_ENVIRONMENT if name in os.environ},
    }
