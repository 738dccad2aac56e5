"""``G``: global attention, every earlier token including BOS (LTL[P], [LC25])."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts.kind import AtomKind, Index, Reads
from expressivity.logic.operators import Head

__all__ = ["ATOM", "Global"]


@dataclass(frozen=True)
class Global(AtomKind):
    """Keys ``0 <= m < n``: P over the symbols, and BOS (a constant read)."""

    def allowed(self, n: Index, m: Index, params: tuple[int, ...], seed: int = 0,
                length: Index | None = None) -> Index:
        return (m >= 0) & (m < n)

    def reads(self, params: tuple[int, ...]) -> Reads:
        return Reads(Head(past=True))

    def keys(self, n: int, length: int, params: tuple[int, ...], seed: int = 0) -> frozenset[int]:
        head = self.reads(params).head
        assert head is not None
        return frozenset([0] * (n >= 1) + head.keys(n))


ATOM = Global(letter="G", arity=0, spelling="G", meaning="global", label="global", rank=0)
