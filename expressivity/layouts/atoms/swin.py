"""``SW{M}``: 1-D Swin windows of M tokens (non-overlapping, from BOS on)."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "SwinWindow"]


@dataclass(frozen=True)
class SwinWindow(EncoderKind):
    """Keys in the query's window: ``⌊n/M⌋ = ⌊m/M⌋``."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        (size,) = params
        return rules.swin_allowed(n, m, size, shifted=False)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        (size,) = params
        return n // size == m // size


ATOM = SwinWindow(
    letter="SW", arity=1, spelling="SW{M}", meaning="Swin windows of M", label="Swin {}",
    measure="window M", rank=23, small=((1, 5),),
)
