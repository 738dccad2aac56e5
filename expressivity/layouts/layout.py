"""An unsized layout: the parsed spelling (rows of head patterns, repeats) before a model size.

The theory reads `UnsizedLayout.patterns` directly; `UnsizedLayout.sized` lays the rows out
over ``n_layers`` x ``n_heads`` heads (the per-head rows `expressivity.models.layouts.Layout`
is built from), with the errors of a spelling that does not fit that size.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from expressivity.errors import ConfigError
from expressivity.layouts.grammar import LIMITS, fail, quote
from expressivity.layouts.presets import Preset
from expressivity.layouts.rows import HeadAtoms, Row

__all__ = ["SizedRows", "UnsizedLayout"]

#: Per layer, per head: the atoms of its pattern (``rows[l][h]``).
SizedRows = tuple[tuple[HeadAtoms, ...], ...]


@dataclass(frozen=True)
class UnsizedLayout:
    """A parsed spelling: ``rows`` of head groups (for a preset: one row per distinct layer,
    uncounted; its size rule is the preset's), ``text`` as given."""

    text: str
    rows: tuple[Row, ...]
    preset: Preset | None = None

    @property
    def patterns(self) -> tuple[HeadAtoms, ...]:
        """The distinct head patterns some head of some model size uses, in spelling order."""
        if self.preset is not None:
            return self.preset.patterns
        used = [g.atoms for r in self.rows if r.repeat for g in r.groups if g.count != 0]
        return tuple(dict.fromkeys(used))

    @property
    def smallest(self) -> tuple[int, int]:
        """The smallest model size (layers, heads) the spelling fits: where every pattern of
        `patterns` is some head's."""
        if self.preset is not None:
            return self.preset.smallest
        layers = sum(r.repeat for r in self.rows)
        heads = next((r.heads for r in self.rows if r.repeat and r.heads is not None), 1)
        return layers, heads

    def sized(self, n_layers: int, n_heads: int) -> SizedRows:
        """``n_layers`` rows of ``n_heads`` head patterns (a located `ConfigError` when the
        spelling does not fit that size). Cached."""
        return _sized(self, n_layers, n_heads)


@lru_cache(maxsize=256)
def _sized(layout: UnsizedLayout, n_layers: int, n_heads: int) -> SizedRows:
    if n_layers < 1 or n_heads < 1:
        raise ConfigError(f"layout needs n_layers, n_heads >= 1, got {n_layers}, {n_heads}")
    rows = (layout.preset.rows(n_layers, n_heads, layout.text) if layout.preset is not None
            else layout.rows)
    out: list[tuple[HeadAtoms, ...]] = []
    for row in rows:
        if row.repeat > min(n_layers, LIMITS["layers"]):
            raise fail(layout.text, f"{quote(row.text)} repeats a layer {row.repeat} times but "
                       f"the model has {n_layers} layers (limit {LIMITS['layers']})")
        out.extend([_layer(row, n_heads, layout.text)] * row.repeat)
    if len(out) == 1:
        out = out * n_layers
    if len(out) != n_layers:
        raise fail(layout.text, f"it spells {len(out)} layers but the model has {n_layers}")
    return tuple(out)


def _layer(row: Row, n_heads: int, whole: str) -> tuple[HeadAtoms, ...]:
    heads: list[HeadAtoms] = []
    for group in row.groups:
        count = group.count
        if count is not None and count > min(n_heads, LIMITS["heads"]):
            raise fail(whole, f"{quote(group.text)} asks for {count} heads but the model has "
                       f"{n_heads} per layer (limit {LIMITS['heads']})")
        if count is None:
            count = n_heads if len(row.groups) == 1 else 1
        heads.extend([group.atoms] * count)
    if len(heads) != n_heads:
        raise fail(whole, f"layer {row.body!r} has {len(heads)} heads but the model has "
                   f"{n_heads}")
    return tuple(heads)
