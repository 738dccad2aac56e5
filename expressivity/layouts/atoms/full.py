"""``F``: the full (unmasked) encoder head: every query reads every token of the string."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "Full"]


@dataclass(frozen=True)
class Full(EncoderKind):
    """Every key ``m`` in ``0 .. N + 1``."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        return rules.full_allowed(n, m)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        return True


ATOM = Full(
    letter="F", arity=0, spelling="F", meaning="full encoder head", label="full", rank=10,
)
