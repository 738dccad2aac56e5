"""``ST{l}``: the Sparse Transformer's strided head, causal as published (Child et al. 2019
§4.2): the previous l positions and every l-th position back."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "Strided"]


@dataclass(frozen=True)
class Strided(EncoderKind):
    """Keys ``m <= n`` with ``n - m < l`` or ``(n - m) mod l = 0``."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        (l,) = params
        return rules.strided_allowed(n, m, l, causal=True)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        (l,) = params
        return m <= n and (n - m < l or (n - m) % l == 0)


ATOM = Strided(
    letter="ST", arity=1, spelling="ST{l}", meaning="strided (causal), stride l",
    label="strided {}", measure="stride l", causal=True, rank=19, small=((1, 4),),
)
