"""The interface of a state-space mixer atom: a head that reads no keys but runs a recurrence.

An SSM atom (``M``, ``MS``, ``SD``, ``SDC``, ``DR``: one file each under
`expressivity.layouts.atoms`) is a head pattern of its own: it is never in a ``+``-union with
another atom, its mask rule allows no key (the head's output comes from its mixer,
`expressivity.models.ssm`), and for the theory it denotes a mixer class
(`expressivity.algebra.mixers`, docs/theory.md §14) rather than a temporal operator, so
`reads` is empty and the layout's theory goes through `algebra.mixers`.
"""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts.kind import AtomKind, Index, Reads

__all__ = ["MixerKind", "is_mixer"]


@dataclass(frozen=True)
class MixerKind(AtomKind):
    """An SSM atom kind; ``gates``: the range of its transition, as its docs spell it."""

    gates: str = ""

    def allowed(self, n: Index, m: Index, params: tuple[int, ...], seed: int = 0,
                length: Index | None = None) -> Index:
        return (m < 0) & (n < 0)  # no key: token indices are >= 0

    def reads(self, params: tuple[int, ...]) -> Reads:
        return Reads()

    def keys(self, n: int, length: int, params: tuple[int, ...], seed: int = 0) -> frozenset[int]:
        return frozenset()


def is_mixer(kind: AtomKind) -> bool:
    """Whether an atom kind is an SSM mixer (not an attention pattern)."""
    return isinstance(kind, MixerKind)
