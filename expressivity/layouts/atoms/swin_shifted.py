"""``SWS{M}``: 1-D shifted Swin windows: shift s = ⌊M/2⌋, windows ``[0, s), [s, s + M), ...``,
no cyclic wrap (see `expressivity.layouts.encoder_rules`)."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "ShiftedSwinWindow"]


@dataclass(frozen=True)
class ShiftedSwinWindow(EncoderKind):
    """Keys in the query's shifted window."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        (size,) = params
        return rules.swin_allowed(n, m, size, shifted=True)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        (size,) = params
        s = rules.swin_shift(size)

        def window(x: int) -> int:
            return 0 if x < s else 1 + (x - s) // size

        return window(n) == window(m)


ATOM = ShiftedSwinWindow(
    letter="SWS", arity=1, spelling="SWS{M}", meaning="shifted Swin windows of M",
    label="shifted Swin {}", measure="window M", rank=24, small=((1, 5),),
)
