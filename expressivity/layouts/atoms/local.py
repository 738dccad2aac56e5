"""``Lk``: k-local attention, the k symbols before the query (LTL[Y^≤k], [LC26])."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts.kind import AtomKind, Index, Reads
from expressivity.logic.operators import Head

__all__ = ["ATOM", "Local"]


@dataclass(frozen=True)
class Local(AtomKind):
    """Keys ``max(1, n−k) <= m < n`` exactly as [LC26]; BOS is not a key."""

    def allowed(self, n: Index, m: Index, params: tuple[int, ...], seed: int = 0,
                length: Index | None = None) -> Index:
        (k,) = params
        return (m >= 1) & (m >= n - k) & (m < n)

    def band(self, params: tuple[int, ...]) -> int | None:
        return params[0]

    def reads(self, params: tuple[int, ...]) -> Reads:
        return Reads(Head(offsets=tuple(range(1, params[0] + 1))))

    def keys(self, n: int, length: int, params: tuple[int, ...], seed: int = 0) -> frozenset[int]:
        head = self.reads(params).head
        assert head is not None
        return frozenset(head.keys(n))


ATOM = Local(
    letter="L", arity=1, spelling="Lk", meaning="k-local", label="{}-local", measure="window k",
    beyond="; a window of the longest sampled word reads like global attention: use G, or a "
    "smaller number", rank=1, small=((1, 6),),
)
