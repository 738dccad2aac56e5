"""``BW{b}``: BigBird's window of 3 blocks of b tokens (blocks ``j·b .. j·b + b - 1``)."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "BlockWindow"]


@dataclass(frozen=True)
class BlockWindow(EncoderKind):
    """Keys in the query's block and its two neighbouring blocks."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        (b,) = params
        return rules.block_window_allowed(n, m, b)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        (b,) = params
        return m // b in (n // b - 1, n // b, n // b + 1)


ATOM = BlockWindow(
    letter="BW", arity=1, spelling="BW{b}", meaning="BigBird window of 3 blocks of b",
    label="block window {}", measure="block b", limit="block", rank=16, small=((1, 4),),
)
