"""``Dk.d``: dilated attention, the k keys spaced d apart before the query (d = 1 is ``Lk``)."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts.kind import AtomKind, Index, Reads
from expressivity.logic.operators import Head

__all__ = ["ATOM", "Dilated"]


@dataclass(frozen=True)
class Dilated(AtomKind):
    """Keys ``m = n − i·d`` (``i = 1..k``) with ``m >= 1``."""

    def allowed(self, n: Index, m: Index, params: tuple[int, ...], seed: int = 0,
                length: Index | None = None) -> Index:
        k, d = params
        off = n - m
        return (m >= 1) & (off > 0) & (off <= k * d) & (off % d == 0)

    def size(self, params: tuple[int, ...]) -> int:
        return params[0] * params[1]

    def band(self, params: tuple[int, ...]) -> int | None:
        return params[0] * params[1]

    def reads(self, params: tuple[int, ...]) -> Reads:
        k, d = params
        return Reads(Head(offsets=tuple(d * j for j in range(1, k + 1))))

    def keys(self, n: int, length: int, params: tuple[int, ...], seed: int = 0) -> frozenset[int]:
        head = self.reads(params).head
        assert head is not None
        return frozenset(head.keys(n))


ATOM = Dilated(
    letter="D", arity=2, spelling="Dk.d", meaning="k keys spaced d", label="dilated k={} d={}",
    measure="band k·d", beyond="; a window of the longest sampled word reads like global "
    "attention: use G, or a smaller number", rank=2, small=((1, 4), (1, 4)),
)
