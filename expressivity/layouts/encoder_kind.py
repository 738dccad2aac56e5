"""The common shape of the encoder (bidirectional) atom kinds: self included, keys in the string.

An `EncoderKind` differs from the causal kinds (``G``, ``L``, ...) in three ways (issue 32):
every row reads **itself** (non-strict), rows may read later keys, and its keys are confined
to the string's tokens ``0 .. N + 1`` whenever the string's ``length`` (tokens, BOS and EOS
included) is given, so padding is never a key. Its mask rule is `EncoderKind.rule`, one
vectorised expression of `expressivity.layouts.encoder_rules`; its reference `EncoderKind.key`
is the same rule written for one (query, key) pair straight from the spelling table, and
`keys` (the registry's reference) enumerates it. What an encoder atom denotes for the theory
is not a causal operator: `reads` says so with an empty `Reads` and ``encoder = True`` marks
the kind, so the theory of encoders (docs/theory.md, "Encoders") reads the raw masks instead.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass

import numpy as np

from expressivity.layouts.kind import AtomKind, Index, Reads

__all__ = ["EncoderKind", "per_length"]


@dataclass(frozen=True)
class EncoderKind(AtomKind):
    """An encoder atom kind (see the module docstring). ``minimum``: the least value of each
    number (W0, the query alone, and AT0, the CLS token, are spellable)."""

    causal: bool = False
    encoder: bool = True
    minimum: tuple[int, ...] = ()

    def allowed(self, n: Index, m: Index, params: tuple[int, ...], seed: int = 0,
                length: Index | None = None) -> Index:
        out = self.rule(n, m, params, seed, length)
        return out if length is None else out & (m < length)

    @abstractmethod
    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        """The vectorised mask rule (the query itself included), before confining the keys."""

    @abstractmethod
    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        """The reference: may query ``n`` read key ``m`` in a string of ``length`` tokens."""

    def reads(self, params: tuple[int, ...]) -> Reads:
        return Reads()  # no causal operator: the encoder theory reads the masks (`encoder`)

    def keys(self, n: int, length: int, params: tuple[int, ...], seed: int = 0) -> frozenset[int]:
        return frozenset(m for m in range(length) if self.key(n, m, length, params, seed))


def per_length(n: Index, m: Index, length: Index | None,
               rule: object) -> Index:
    """``rule(n, m, last)`` for a rule that needs the string's last index ``last = N + 1`` as a
    number: evaluated once per distinct length of a broadcastable ``length`` and selected per
    string (a padded batch: each string's own mask). ``length`` None: the rule at the largest
    query or key index present (a single string of exactly that many tokens)."""
    assert callable(rule)
    if length is None:
        top = max(int(n.max()), int(m.max())) if len(n.reshape(-1)) else 0
        return rule(n, m, top)
    values = sorted({int(x) for x in np.asarray(_cpu(length)).reshape(-1)})
    out = None
    for value in values:
        part = rule(n, m, value - 1) & (length == value)
        out = part if out is None else out | part
    return out


def _cpu(x: Index) -> Index:
    return x.cpu() if hasattr(x, "cpu") else x

