"""``CLS``: a global token at BOS (index 0): it reads every key and every query reads it."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "ClsToken"]


@dataclass(frozen=True)
class ClsToken(EncoderKind):
    """Row 0 reads every key; every row reads key 0 and itself."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        return rules.token_allowed(n, m, 0)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        return n == 0 or m == 0 or m == n


ATOM = ClsToken(
    letter="CLS", arity=0, spelling="CLS", meaning="global token at 0", label="CLS", rank=13,
)
