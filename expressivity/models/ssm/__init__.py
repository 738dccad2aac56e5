"""State-space mixers beside attention: scans, mixers, exact constructions (theory.md §14)."""

from expressivity.models.ssm.delta import parallel_delta, sequential_delta
from expressivity.models.ssm.mixers import DeltaRule, DiagonalSSM, SelectiveSSM, signed_gate
from expressivity.models.ssm.scan import (
    SCANS,
    chunked_scan,
    parallel_scan,
    scan,
    sequential_scan,
)

__all__ = [
    "SCANS", "DeltaRule", "DiagonalSSM", "SelectiveSSM", "chunked_scan", "parallel_delta",
    "parallel_scan",
    "scan", "sequential_delta", "sequential_scan", "signed_gate",
]
