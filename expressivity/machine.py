"""The processor a run computed on: its model name and the kernels torch dispatched to."""

from __future__ import annotations

import os
import platform
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["KERNEL_ENVIRONMENT", "SIGNATURE_FIELDS", "cpu_model", "cpu_signature",
           "float_environment"]

#: Environment variables that pick the CPU kernels of torch, MKL and oneDNN (their float
#: rounding): unset on a default machine, recorded when set.
KERNEL_ENVIRONMENT = (
    "ATEN_CPU_CAPABILITY", "MKL_CBWR", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA",
)


#: Fields of ``/proc/cpuinfo`` that tell two processors apart when a virtual machine shows
#: only a generic model name ("AMD EPYC"): the vendor, family, model and stepping (the
#: microarchitecture) and the microcode revision.
SIGNATURE_FIELDS = ("vendor_id", "cpu family", "model", "stepping", "microcode")


def _first_processor(cpuinfo: Path) -> dict[str, str]:
    """The ``key: value`` lines of the first processor of ``cpuinfo`` ({} when unreadable)."""
    out: dict[str, str] = {}
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        if not line.strip():
            if out:
                break
            continue
        key, _, value = line.partition(":")
        out.setdefault(key.strip(), value.strip())
    return out


@cache
def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The processor's model name (``/proc/cpuinfo`` on Linux, else `platform.processor`)."""
    name = _first_processor(cpuinfo).get("model name")
    return name or platform.processor() or platform.machine() or "unknown"


@cache
def cpu_signature(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The processor's `SIGNATURE_FIELDS` as one string ("AuthenticAMD family 25 model 17
    stepping 1 microcode 0x1000065"); "" when ``cpuinfo`` has none of them (not Linux)."""
    info = _first_processor(cpuinfo)
    words = [info["vendor_id"]] if info.get("vendor_id") else []
    for field in SIGNATURE_FIELDS[1:]:
        if info.get(field):
            words.append(f"{field.removeprefix('cpu ')} {info[field]}")
    return " ".join(words)


def float_environment() -> dict[str, Any]:
    """What decides a CPU run's float rounding beside its code and seed: the processor's model
    and signature (`cpu_signature`, left out where the system has none), the vector
    instruction set torch's kernels use (`torch.backends.cpu.get_cpu_capability`) and any
    variable of `KERNEL_ENVIRONMENT` that is set. Two machines that differ here can round
    differently, and a training run, being chaotic, can then end elsewhere."""
    import torch

    signature = cpu_signature()
    return {
        "cpu_model": cpu_model(),
        **({"cpu_signature": signature} if signature else {}),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        **{name: os.environ[name] for name in KERNEL_ENVIRONMENT if name in os.environ},
    }
