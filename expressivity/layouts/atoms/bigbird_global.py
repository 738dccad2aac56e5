"""``BG{b}.{g}``: BigBird's global blocks (ITC): the first g blocks of b tokens read and are
read by every token."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "GlobalBlocks"]


@dataclass(frozen=True)
class GlobalBlocks(EncoderKind):
    """Rows in the first g blocks read every key; every row reads them and itself."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        b, g = params
        return rules.global_blocks_allowed(n, m, b, g)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        b, g = params
        return m == n or n // b < g or m // b < g


ATOM = GlobalBlocks(
    letter="BG", arity=2, spelling="BG{b}.{g}", meaning="the first g blocks of b global",
    label="{} global blocks of {}", measure="block b", limit="block", rank=18,
    small=((1, 4), (1, 3)),
)
