"""``WD{r}.{d}``: the symmetric dilated window (Longformer's per-head ``attention_dilation`` d)."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "DilatedWindow"]


@dataclass(frozen=True)
class DilatedWindow(EncoderKind):
    """Keys ``m = n + j·d`` for ``-r <= j <= r``."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        r, d = params
        return rules.dilated_window_allowed(n, m, r, d)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        r, d = params
        return any(m == n + j * d for j in range(-r, r + 1))

    def size(self, params: tuple[int, ...]) -> int:
        return params[0] * params[1]


ATOM = DilatedWindow(
    letter="WD", arity=2, spelling="WD{r}.{d}", meaning="r keys each side spaced d",
    label="window {} dilated {}", measure="band r·d", rank=12, small=((0, 3), (1, 3)),
    minimum=(0, 1),
)
