"""``STE{l}``: the Sparse Transformer's strided head read as an encoder (both directions)."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "StridedEncoder"]


@dataclass(frozen=True)
class StridedEncoder(EncoderKind):
    """Keys with ``|n - m| < l`` or ``(n - m) mod l = 0``."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        (l,) = params
        return rules.strided_allowed(n, m, l, causal=False)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        (l,) = params
        return abs(n - m) < l or (n - m) % l == 0


ATOM = StridedEncoder(
    letter="STE", arity=1, spelling="STE{l}", meaning="strided encoder, stride l",
    label="strided encoder {}", measure="stride l", rank=21, small=((1, 4),),
)
