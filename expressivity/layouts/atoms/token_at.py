"""``AT{i}``: a global token at index i (skipped when i > N + 1): it reads every key and
every query reads it."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "TokenAt"]


@dataclass(frozen=True)
class TokenAt(EncoderKind):
    """Row i reads every key; every row reads key i (when i <= N + 1) and itself."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        (i,) = params
        return rules.token_allowed(n, m, i)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        (i,) = params
        return m == n or (i < length and (n == i or m == i))


ATOM = TokenAt(
    letter="AT", arity=1, spelling="AT{i}", meaning="global token at index i >= 0",
    label="global token {}", measure="index i", rank=15, small=((0, 6),), minimum=(0,),
)
