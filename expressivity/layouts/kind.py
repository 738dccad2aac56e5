"""The interface of one attention atom kind: spelling, mask rule, key band and operator.

An atom kind (``G``, ``L``, ``D``, ...) is one frozen `AtomKind` object in its own file under
`expressivity.layouts.atoms`; the registry (`expressivity.layouts.registry`) finds every such
file. The kind's mask rule `AtomKind.allowed` is one expression on integer index arrays — the
query token ``n`` and key token ``m``, broadcastable, numpy or torch alike (the style of
FlexAttention's ``mask_mod``) — in the token convention of `expressivity.models.masks`: BOS is
index 0, the symbols 1..N, EOS N+1, *strict* (no ``m = n`` diagonal) and *before* the sink rule.
`AtomKind.reads` is what the atom denotes for the theory (docs/theory.md "Sparse attention
patterns"), and `AtomKind.keys` the key set of one query row derived from it, the reference
the registry property test (tests/layouts/test_registry.py) holds every mask rule to.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from expressivity.logic.operators import Head

__all__ = ["AtomKind", "Index", "Reads"]

#: An integer index array: a numpy ``ndarray`` or a torch ``Tensor`` (the package stays torch-free).
Index = Any


@dataclass(frozen=True)
class Reads:
    """What one atom denotes for the theory: the keys it adds as a `Head` (``skip`` 0; None:
    no key beyond E), ``hubs`` = g when token indices 0..g−1 are global tokens (the whole-word
    summary E), and ``seeded`` when its keys are a seed-drawn subset (random keys: only their
    seed-free part, whether a row has a key, is read exactly)."""

    head: Head | None = None
    hubs: int = 0
    seeded: bool = False


@dataclass(frozen=True)
class AtomKind(ABC):
    """One atom kind. ``letter``: its capital letter(s) in a spelling; ``arity``: how many
    ``.``-separated numbers follow; ``spelling``/``meaning``: its entry in the grammar text
    (``Dk.d``, ``k keys spaced d``); ``label``: its diagram name with ``{}`` per number;
    ``measure``/``limit``: the size `size` returns and the key of `layouts.spec.LIMITS` that
    bounds it; ``beyond``: advice when the size is above the limit; ``causal``: no row sees a
    later key; ``rank``: its place in the grammar text; ``small``: inclusive (low, high) ranges
    of each number that the registry property test draws from."""

    letter: str
    arity: int
    spelling: str
    meaning: str
    label: str
    measure: str = ""
    limit: str = "window"
    beyond: str = ""
    causal: bool = True
    rank: int = 100
    small: tuple[tuple[int, int], ...] = ()

    def size(self, params: tuple[int, ...]) -> int:
        """The number `limit` bounds (the first number by default, 0 without numbers)."""
        return params[0] if params else 0

    def band(self, params: tuple[int, ...]) -> int | None:
        """Largest key offset ``n − m`` when every key lies in ``[n − W, n]``, else None."""
        return None

    def problem(self, params: tuple[int, ...]) -> str | None:
        """Why these numbers are impossible beyond count, ``>= 1`` and the limit (None: fine)."""
        return None

    @abstractmethod
    def allowed(self, n: Index, m: Index, params: tuple[int, ...], seed: int = 0,
                length: Index | None = None) -> Index:
        """The mask rule: may query token ``n`` read key token ``m`` (strict, before the sink
        rule). ``length``: tokens per string incl. BOS/EOS, broadcastable, for kinds whose
        keys depend on it (None: the rule does not need it)."""

    @abstractmethod
    def reads(self, params: tuple[int, ...]) -> Reads:
        """The operator this atom denotes for the theory."""

    @abstractmethod
    def keys(self, n: int, length: int, params: tuple[int, ...], seed: int = 0) -> frozenset[int]:
        """Key tokens of query row ``n`` in a string of ``length`` tokens, derived from `reads`
        (the reference `allowed` must equal)."""
