"""``SFE{l}.{c}``: the Sparse Transformer's fixed head read as an encoder (both directions)."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "FixedEncoder"]


@dataclass(frozen=True)
class FixedEncoder(EncoderKind):
    """Keys with ``⌊m/l⌋ = ⌊n/l⌋`` or ``m mod l >= l - c``."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        l, c = params
        return rules.fixed_allowed(n, m, l, c, causal=False)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        l, c = params
        return m // l == n // l or m % l in range(l - c, l)

    def problem(self, params: tuple[int, ...]) -> str | None:
        l, c = params
        return (f"c = {c} summary columns of a block of l = {l}: needs 1 <= c <= l"
                if c > l else None)


ATOM = FixedEncoder(
    letter="SFE", arity=2, spelling="SFE{l}.{c}", meaning="fixed encoder, blocks l, c summaries",
    label="fixed encoder {} ({} summaries)", measure="block l", rank=22, small=((2, 4), (1, 2)),
)
