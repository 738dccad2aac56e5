"""``SF{l}.{c}``: the Sparse Transformer's fixed head, causal as published (Child et al. 2019
§4.2): the query's block of l and the last c summary columns of every block."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "Fixed"]


@dataclass(frozen=True)
class Fixed(EncoderKind):
    """Keys ``m <= n`` with ``⌊m/l⌋ = ⌊n/l⌋`` or ``m mod l >= l - c``."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        l, c = params
        return rules.fixed_allowed(n, m, l, c, causal=True)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        l, c = params
        return m <= n and (m // l == n // l or m % l in range(l - c, l))

    def problem(self, params: tuple[int, ...]) -> str | None:
        l, c = params
        return (f"c = {c} summary columns of a block of l = {l}: needs 1 <= c <= l"
                if c > l else None)


ATOM = Fixed(
    letter="SF", arity=2, spelling="SF{l}.{c}", meaning="fixed (causal), blocks l, c summaries",
    label="fixed {} ({} summaries)", measure="block l", causal=True, rank=20,
    small=((2, 4), (1, 2)),
)
