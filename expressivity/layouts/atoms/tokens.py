"""``Tg``: global tokens (Longformer / ETC), token indices 0..g−1 (BOS first) see and are seen
by every token."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts.kind import AtomKind, Index, Reads

__all__ = ["ATOM", "GlobalTokens"]


@dataclass(frozen=True)
class GlobalTokens(AtomKind):
    """Rows ``n < g`` read every key; every row reads the keys ``m < g`` (bidirectional)."""

    def allowed(self, n: Index, m: Index, params: tuple[int, ...], seed: int = 0,
                length: Index | None = None) -> Index:
        (g,) = params
        return ((n < g) & (m >= 0)) | ((m >= 0) & (m < g))

    def reads(self, params: tuple[int, ...]) -> Reads:
        return Reads(hubs=params[0])

    def keys(self, n: int, length: int, params: tuple[int, ...], seed: int = 0) -> frozenset[int]:
        hubs = self.reads(params).hubs
        return frozenset(range(length) if n < hubs else range(min(hubs, length)))


ATOM = GlobalTokens(letter="T", arity=1, spelling="Tg", meaning="g global tokens",
                    label="{} global token(s)", measure="global tokens g", causal=False, rank=5,
                    small=((1, 4),))
