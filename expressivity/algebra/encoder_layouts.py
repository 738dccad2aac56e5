"""Encoder layouts: per layer, head patterns of encoder atoms, their kinds, radii and hubs.

docs/theory.md §13. An encoder layout is, per layer, its distinct head patterns (each a union of
encoder atoms, spelled as in the atom registry: ``F``, ``W{r}``, ``WD{r}.{d}``, ``CLS``, ``SEP``,
``AT{i}``, ``BG{b}.{g}``, and the others, which are decided by certificates only); the layers
repeat cyclically. Each head pattern is one of

- **full**: contains ``F`` (every key);
- **window**: only ``W`` / ``WD`` atoms: translation invariant and symmetric, radius ρ = r (r·d);
- **hub**: windows and global tokens (``CLS``, ``SEP``, ``AT``, ``BG``), no ``F``;
- **other**: anything else (BigBird window/random blocks, Sparse Transformer, Swin).

What a layout recognizes is decided in `algebra.encoders`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from expressivity.algebra.encoder_families import Atom

__all__ = ["HUBS", "SWIN", "WINDOWS", "EncoderLayout", "HeadPattern", "head_kind", "hub_reach",
           "hub_twice", "is_unit", "reach"]

HeadPattern = tuple[Atom, ...]
WINDOWS = frozenset({"W", "WD"})
HUBS = frozenset({"CLS", "SEP", "AT", "BG"})
SWIN = frozenset({"SW", "SWS"})


@dataclass(frozen=True)
class EncoderLayout:
    """Per layer, the distinct head patterns (layer ℓ uses ``layers[ℓ mod len(layers)]``)."""

    layers: tuple[tuple[HeadPattern, ...], ...]

    def layer(self, index: int) -> tuple[HeadPattern, ...]:
        return self.layers[index % len(self.layers)]

    def only(self, kinds: frozenset[str]) -> EncoderLayout:
        """The sub-layout of the heads whose kind is in ``kinds`` (a layer may become empty)."""
        return EncoderLayout(tuple(tuple(h for h in row if head_kind(h) in kinds)
                                   for row in self.layers))

    def kinds(self) -> frozenset[str]:
        return frozenset(head_kind(h) for row in self.layers for h in row)

    def radius(self, n_layers: int) -> int:
        """Σ over the first ``n_layers`` layers of the largest window radius (window heads)."""
        return sum(max((reach(h) for h in self.layer(i) if head_kind(h) == "window"),
                       default=0) for i in range(n_layers))

    def first_layer_with(self, test: Callable[[HeadPattern], bool], limit: int) -> int | None:
        """The least depth d ≤ ``limit`` whose layer d (1-based) has a head passing ``test``."""
        return next((i + 1 for i in range(limit) if any(test(h) for h in self.layer(i))), None)


def head_kind(head: HeadPattern) -> str:
    """``full``, ``window``, ``hub`` or ``other`` (module docstring)."""
    kinds = {a.kind for a in head}
    if "F" in kinds:
        return "full"
    if kinds <= WINDOWS:
        return "window"
    if kinds <= WINDOWS | HUBS:
        return "hub"
    return "other"


def reach(head: HeadPattern) -> int:
    """The farthest key of a head's windows (r, or r·d) and Swin blocks (M − 1) from its
    query; 0 without either."""
    return max((a.params[0] * (a.params[1] if a.kind == "WD" else 1) if a.kind in WINDOWS
                else a.params[0] - 1 for a in head if a.kind in WINDOWS | SWIN), default=0)


def is_unit(head: HeadPattern) -> bool:
    """A head whose keys are exactly n − 1, n, n + 1 (``W1`` or ``WD1.1``)."""
    return len(head) == 1 and head[0].kind in WINDOWS and reach(head) == 1


def hub_reach(layout: EncoderLayout) -> int:
    """The largest token index of a hub near the start (AT i, the g blocks of BG b.g)."""
    out = 0
    for row in layout.layers:
        for h in row:
            for a in h:
                if a.kind == "AT":
                    out = max(out, a.params[0])
                elif a.kind == "BG":
                    out = max(out, a.params[0] * a.params[1])
    return out


def hub_twice(layout: EncoderLayout, limit: int) -> tuple[str, int] | None:
    """(hub atom, d): the least d ≤ ``limit`` such that one hub atom is in a head of layer d
    and of an earlier layer (its row reads every token, then every row reads it)."""
    first: dict[str, int] = {}
    for i in range(limit):
        for h in layout.layer(i):
            for a in h:
                if a.kind in ("CLS", "SEP"):  # AT i is skipped in words shorter than i
                    if a.kind in first and first[a.kind] < i + 1:
                        return a.kind, i + 1
                    first.setdefault(a.kind, i + 1)
    return None
