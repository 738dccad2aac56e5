"""``W{r}``: the symmetric window of radius r, the query itself included (Longformer's
sliding window of ``attention_window`` w = 2r)."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "SymmetricWindow"]


@dataclass(frozen=True)
class SymmetricWindow(EncoderKind):
    """Keys ``|n - m| <= r``."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        (r,) = params
        return rules.window_allowed(n, m, r)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        (r,) = params
        return abs(n - m) <= r


ATOM = SymmetricWindow(
    letter="W", arity=1, spelling="W{r}", meaning="symmetric window of radius r >= 0",
    label="window {}", measure="radius r", rank=11, small=((0, 4),), minimum=(0,),
)
