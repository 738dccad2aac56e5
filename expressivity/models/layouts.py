"""Layouts: which attention pattern each head of each layer uses, parsed from a short spelling.

Presets (``k``: window, ``d``: dilation, ``r``: random keys, ``g``: global tokens):

============================  =================================================================
``global``                    every head global (LTL[P], [LC25])
``local-k``                   every head k-local (LTL[Y^{<=k}], [LC26])
``hybrid-k`` / ``hybrid-k:g=G``  every layer: G global heads then ``H-G`` k-local heads (G = H/2)
``interleaved-k``             layers alternate: global, k-local, global, ... (all heads alike)
``longformer-k-g``            every head: k-local window + g global tokens (token indices 0..g-1)
``bigbird-k-r-g``             every head: k-local window + r random keys + g global tokens
``dilated-k-d``               every head: k keys spaced d apart
``block-b``                   every head: block-local with blocks of b tokens
============================  =================================================================

Custom spelling. A pattern is a ``+``-union of atoms: ``G`` (global), ``L4`` (4-local),
``D4.2`` (dilated k=4, d=2), ``B8`` (block-local, b=8), ``R2`` (2 random keys), ``T1`` (1 global
token: BOS). A layer is a comma list of ``[Nx]pattern`` (N heads with that pattern; a single
uncounted pattern fills every head). Layers are separated by ``;``, and ``Nx(layer)`` repeats a
layer; a single layer applies to every layer. Examples with 8 heads and 5 layers:
``4xG,4xL1`` (= ``hybrid-1``), ``2x(8xG);3x(8xL2)``, ``L3+R2+T1`` (= ``bigbird-3-2-1``).

`Layout.canonical` writes the fully run-length-compressed custom spelling (the form to hash);
parsing it gives back an equal `Layout`. Random atoms draw per-head seeds from the layout seed
and the head's (layer, head) address. Layouts hold no parameters: every layout of one model
size has the same parameter count.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from expressivity.layouts import Atom, parse_spelling
from expressivity.models import masks

__all__ = ["Atom", "Layout", "Pattern", "atom_allowed", "parse_layout"]


def atom_allowed(atom: Atom, n: torch.Tensor, m: torch.Tensor, seed: int) -> torch.Tensor:
    """The raw strict predicate of this atom, its registered kind's rule (`AtomKind.allowed`)."""
    return atom.allowed(n, m, seed)


@dataclass(frozen=True)
class Pattern:
    """The pattern of one head: a union of atoms (sorted, distinct) and the seed of its R atoms."""

    atoms: tuple[Atom, ...]
    seed: int = 0

    def __str__(self) -> str:
        return "+".join(str(a) for a in self.atoms)

    @property
    def band(self) -> int | None:
        """Window W when every key lies in ``[n - W, n]`` (local, dilated, block), else None."""
        bands = [a.band for a in self.atoms]
        return None if any(b is None for b in bands) else max(b for b in bands if b is not None)

    @property
    def causal(self) -> bool:
        """True when no row sees a later key (every atom causal: all but global tokens)."""
        return all(a.causal for a in self.atoms)

    def allowed(self, n: torch.Tensor, m: torch.Tensor, *, strict: bool = True,
                length: torch.Tensor | int | None = None) -> torch.Tensor:
        """Raw predicate (before the sink rule) on broadcastable query/key index tensors
        (``length``: tokens per string, for atoms whose keys depend on it)."""
        out = (m == n) & (not strict)
        for atom in self.atoms:
            out = out | atom.allowed(n, m, self.seed, length)
        return out

    def mask(self, length: int, *, strict: bool = True) -> torch.Tensor:
        """The (T, T) boolean mask with the sink rule applied (cached, read-only use)."""
        return _pattern_mask(self, length, strict)


@lru_cache(maxsize=64)
def _pattern_mask(pattern: Pattern, length: int, strict: bool) -> torch.Tensor:
    return masks.add_sink(pattern.allowed(*masks.grid(length), strict=strict, length=length))


@dataclass(frozen=True)
class Layout:
    """Per layer, per head: the `Pattern` it uses. ``layers[l][h]``."""

    layers: tuple[tuple[Pattern, ...], ...]

    @property
    def n_layers(self) -> int:
        return len(self.layers)

    @property
    def n_heads(self) -> int:
        return len(self.layers[0]) if self.layers else 0

    def canonical(self) -> str:
        """Run-length-compressed custom spelling, e.g. ``4xG,4xL1``; parses back equal."""
        texts = [",".join(f"{c}x{p}" for p, c in _runs([str(p) for p in row]))
                 for row in self.layers]
        runs = _runs(texts)
        if len(runs) == 1:
            return texts[0]
        return ";".join(f"{c}x({t})" for t, c in runs)

    def groups(self, layer: int) -> list[tuple[Pattern, list[int]]]:
        """Heads of ``layer`` grouped by pattern, in order of first appearance."""
        out: dict[Pattern, list[int]] = {}
        for h, p in enumerate(self.layers[layer]):
            out.setdefault(p, []).append(h)
        return list(out.items())


def _runs(items: list[str]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for item in items:
        if out and out[-1][0] == item:
            out[-1] = (item, out[-1][1] + 1)
        else:
            out.append((item, 1))
    return out


def parse_layout(text: str, n_layers: int, n_heads: int, *, seed: int = 0) -> Layout:
    """Parse a preset or custom spelling into a `Layout` of ``n_layers`` x ``n_heads`` patterns."""
    rows = parse_spelling(text).sized(n_layers, n_heads)
    layers = tuple(
        tuple(Pattern(atoms, _head_seed(seed, l, h)) if any(a.reads().seeded for a in atoms)
              else Pattern(atoms) for h, atoms in enumerate(row))
        for l, row in enumerate(rows)
    )
    return Layout(layers)


def _head_seed(seed: int, layer: int, head: int) -> int:
    return int(np.random.SeedSequence([seed, layer, head]).generate_state(1)[0])
