"""``SEP``: a global token at EOS (index N + 1, so per string in a padded batch): it reads every
key and every query reads it."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind, per_length
from expressivity.layouts.kind import Index

__all__ = ["ATOM", "SepToken"]


@dataclass(frozen=True)
class SepToken(EncoderKind):
    """Row N + 1 reads every key; every row reads key N + 1 and itself."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        if length is not None:
            return (n == length - 1) | (m == length - 1) | (m == n)
        return per_length(n, m, None, lambda n, m, last: rules.token_allowed(n, m, last))

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        return n == length - 1 or m == length - 1 or m == n


ATOM = SepToken(
    letter="SEP", arity=0, spelling="SEP", meaning="global token at EOS", label="SEP", rank=14,
)
