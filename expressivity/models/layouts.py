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

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from expressivity.errors import ConfigError
from expressivity.models import masks

__all__ = ["Atom", "Layout", "Pattern", "parse_layout"]

_KINDS = {"G": 0, "L": 1, "D": 2, "B": 1, "R": 1, "T": 1}  # atom letter -> number of parameters
_ATOM_RE = re.compile(r"^([GLDBRT])(\d*)(?:\.(\d+))?$")


@dataclass(frozen=True, order=True)
class Atom:
    """One pattern family with its integer parameters, e.g. ``Atom("L", (4,))`` for 4-local."""

    kind: str
    params: tuple[int, ...] = ()

    def __str__(self) -> str:
        return self.kind + ".".join(str(p) for p in self.params)

    @property
    def band(self) -> int | None:
        """Largest key offset ``n - m`` this atom allows, or None when not a causal band."""
        if self.kind == "L":
            return self.params[0]
        if self.kind == "D":
            return self.params[0] * self.params[1]
        if self.kind == "B":
            return self.params[0] - 1
        return None

    def allowed(self, n: torch.Tensor, m: torch.Tensor, seed: int) -> torch.Tensor:
        """The raw strict predicate of this atom (see `expressivity.models.masks`)."""
        p = self.params
        if self.kind == "G":
            return masks.global_allowed(n, m)
        if self.kind == "L":
            return masks.local_allowed(n, m, p[0])
        if self.kind == "D":
            return masks.dilated_allowed(n, m, p[0], p[1])
        if self.kind == "B":
            return masks.block_allowed(n, m, p[0])
        if self.kind == "R":
            return masks.random_allowed(n, m, p[0], seed)
        return masks.global_tokens_allowed(n, m, range(p[0]))


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
        """True when no row sees a later key (everything but global tokens)."""
        return all(a.kind != "T" for a in self.atoms)

    def allowed(self, n: torch.Tensor, m: torch.Tensor, *, strict: bool = True) -> torch.Tensor:
        """Raw predicate (before the sink rule) on broadcastable query/key index tensors."""
        out = (m == n) & (not strict)
        for atom in self.atoms:
            out = out | atom.allowed(n, m, self.seed)
        return out

    def mask(self, length: int, *, strict: bool = True) -> torch.Tensor:
        """The (T, T) boolean mask with the sink rule applied (cached, read-only use)."""
        return _pattern_mask(self, length, strict)


@lru_cache(maxsize=64)
def _pattern_mask(pattern: Pattern, length: int, strict: bool) -> torch.Tensor:
    return masks.add_sink(pattern.allowed(*masks.grid(length), strict=strict))


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


def _fail(text: str, why: str) -> ConfigError:
    return ConfigError(
        f"layout: invalid value {text!r}: {why}. Use a preset (global, local-k, hybrid-k[:g=G], "
        "interleaved-k, longformer-k-g, bigbird-k-r-g, dilated-k-d, block-b) or a custom "
        "spelling such as '4xG,4xL1' (see expressivity.models.layouts)"
    )


def _preset(text: str, n_layers: int, n_heads: int) -> str | None:
    """Translate a preset name into the custom spelling, or None if ``text`` is no preset."""
    m = re.fullmatch(r"([a-z]+)((?:-\d+)*)(?::g=(\d+))?", text)
    if not m:
        return None
    name, nums = m.group(1), [int(x) for x in m.group(2).split("-")[1:]]
    arity = {"global": 0, "local": 1, "hybrid": 1, "interleaved": 1, "longformer": 2,
             "bigbird": 3, "dilated": 2, "block": 1}
    if name not in arity:
        return None
    if len(nums) != arity[name] or (m.group(3) is not None and name != "hybrid"):
        raise _fail(text, f"preset '{name}' takes {arity[name]} number(s)")
    if any(x < 1 for x in nums):
        raise _fail(text, "preset numbers must be >= 1")
    if name == "global":
        return "G"
    if name in ("local", "dilated", "block"):
        return {"local": "L{}", "dilated": "D{}.{}", "block": "B{}"}[name].format(*nums)
    if name == "hybrid":
        g = int(m.group(3)) if m.group(3) is not None else n_heads // 2
        if not 1 <= g <= n_heads - 1:
            raise _fail(text, f"a hybrid layer needs 1 <= g <= n_heads - 1 = {n_heads - 1}")
        return f"{g}xG,{n_heads - g}xL{nums[0]}"
    if name == "interleaved":
        return ";".join("G" if i % 2 == 0 else f"L{nums[0]}" for i in range(n_layers))
    if name == "longformer":
        return f"L{nums[0]}+T{nums[1]}"
    return f"L{nums[0]}+R{nums[1]}+T{nums[2]}"


def _atom(text: str, whole: str) -> Atom:
    text = text.upper()
    m = _ATOM_RE.match(text)
    if not m:
        raise _fail(whole, f"unknown atom {text!r}")
    kind, a, b = m.group(1), m.group(2), m.group(3)
    params = tuple(int(x) for x in (a, b) if x)
    if len(params) != _KINDS[kind]:
        raise _fail(whole, f"atom {kind} takes {_KINDS[kind]} number(s), got {text!r}")
    if any(p < 1 for p in params):
        raise _fail(whole, f"atom {text!r} needs numbers >= 1")
    return Atom(kind, params)


def _split_top(text: str, sep: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur]


def _layer(text: str, n_heads: int, whole: str) -> list[tuple[Atom, ...]]:
    heads: list[tuple[Atom, ...]] = []
    items = [s.strip() for s in text.split(",")]
    for item in items:
        m = re.fullmatch(r"(?:(\d+)x)?([^x]+)", item)
        if not m:
            raise _fail(whole, f"cannot read heads {item!r}")
        count = int(m.group(1)) if m.group(1) else None
        atoms = tuple(sorted({_atom(a.strip(), whole) for a in m.group(2).split("+")}))
        if count is None:
            count = n_heads if len(items) == 1 else 1
        heads.extend([atoms] * count)
    if len(heads) != n_heads:
        raise _fail(whole, f"layer {text!r} has {len(heads)} heads but the model has {n_heads}")
    return heads


def parse_layout(text: str, n_layers: int, n_heads: int, *, seed: int = 0) -> Layout:
    """Parse a preset or custom spelling into a `Layout` of ``n_layers`` x ``n_heads`` patterns."""
    if n_layers < 1 or n_heads < 1:
        raise ConfigError(f"layout needs n_layers, n_heads >= 1, got {n_layers}, {n_heads}")
    spelled = re.sub(r"\s+", "", str(text)).lower() if isinstance(text, str) else ""
    if not spelled:
        raise _fail(str(text), "empty layout")
    custom = _preset(spelled, n_layers, n_heads)
    custom = custom if custom is not None else spelled
    rows: list[list[tuple[Atom, ...]]] = []
    for part in _split_top(custom, ";"):
        m = re.fullmatch(r"(\d+)x\((.*)\)", part)
        reps, body = (int(m.group(1)), m.group(2)) if m else (1, part)
        rows.extend([_layer(body, n_heads, str(text))] * reps)
    if len(rows) == 1:
        rows = rows * n_layers
    if len(rows) != n_layers:
        raise _fail(str(text), f"it spells {len(rows)} layers but the model has {n_layers}")
    layers = tuple(
        tuple(Pattern(atoms, _head_seed(seed, l, h)) if any(a.kind == "R" for a in atoms)
              else Pattern(atoms) for h, atoms in enumerate(row))
        for l, row in enumerate(rows)
    )
    return Layout(layers)


def _head_seed(seed: int, layer: int, head: int) -> int:
    return int(np.random.SeedSequence([seed, layer, head]).generate_state(1)[0])
