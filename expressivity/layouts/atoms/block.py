"""``Bb``: block-local attention, the earlier symbols of the query's block of b token indices."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts.kind import AtomKind, Index, Reads
from expressivity.logic.operators import Head

__all__ = ["ATOM", "Block"]


@dataclass(frozen=True)
class Block(AtomKind):
    """Keys ``1 <= m < n`` with ``m // b == n // b`` (blocks ``[cb, (c+1)b)``)."""

    def allowed(self, n: Index, m: Index, params: tuple[int, ...], seed: int = 0,
                length: Index | None = None) -> Index:
        (b,) = params
        return (m >= 1) & (m < n) & (m // b == n // b)

    def band(self, params: tuple[int, ...]) -> int | None:
        return params[0] - 1

    def reads(self, params: tuple[int, ...]) -> Reads:
        (b,) = params
        return Reads(Head(blocks=(b,)) if b >= 2 else None)  # B1: no row has a key

    def keys(self, n: int, length: int, params: tuple[int, ...], seed: int = 0) -> frozenset[int]:
        head = self.reads(params).head
        return frozenset(head.keys(n) if head is not None else ())


ATOM = Block(letter="B", arity=1, spelling="Bb", meaning="block of b tokens", label="block {}",
             measure="block b", limit="block", rank=3, small=((1, 6),))
