"""Masks shown: a layout's distinct head masks as 0/1 grids over BOS, w1..wN, EOS, and plots."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from expressivity.errors import ConfigError
from expressivity.models.layouts import Pattern, parse_layout

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["MAX_TOKENS", "HeadMask", "layout_masks", "mask_grid", "plot_masks", "token_labels"]

#: The most tokens a shown mask has (a grid of 1,024 x 1,024 cells is already unreadable).
MAX_TOKENS = 1_024


def token_labels(length: int) -> list[str]:
    """The names of ``length`` tokens: ``BOS, w1, ..., wN, EOS`` (N = length - 2)."""
    if length < 2:
        raise ValueError(f"a string has at least BOS and EOS: length >= 2, got {length}")
    return ["BOS", *(f"w{i}" for i in range(1, length - 1)), "EOS"]


def mask_grid(mask: torch.Tensor | np.ndarray) -> str:
    """The mask as rows of 0/1 (row: query n, column: key m, 1 = may attend), each row and
    column named by `token_labels`; lines end without trailing spaces."""
    arr = np.asarray(mask.cpu() if isinstance(mask, torch.Tensor) else mask, dtype=bool)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"mask_grid needs a (T, T) mask, got shape {arr.shape}")
    labels = token_labels(arr.shape[0])
    width = max(len(x) for x in labels)
    head = " " * width + " " + " ".join(x.rjust(width) for x in labels)
    rows = [
        label.ljust(width) + " " + " ".join(str(int(v)).rjust(width) for v in row)
        for label, row in zip(labels, arr, strict=True)
    ]
    return "\n".join([head.rstrip(), *(r.rstrip() for r in rows)])


@dataclass(frozen=True)
class HeadMask:
    """One distinct head pattern of a layout at one length: the (layer, head) addresses that use
    it and its (T, T) mask (the sink rule applied, as the model attends)."""

    pattern: str
    heads: tuple[tuple[int, int], ...]
    mask: torch.Tensor

    def describe(self) -> str:
        """A heading naming the pattern and where it is used, then `mask_grid`."""
        layers = sorted({layer for layer, _ in self.heads})
        where = ", ".join(
            f"layer {layer} head{'s' if len(hs) > 1 else ''} {_ranges(hs)}"
            for layer in layers for hs in [[h for l2, h in self.heads if l2 == layer]])
        return f"pattern {self.pattern} ({where}):\n{mask_grid(self.mask)}"


def layout_masks(text: str, length: int, *, n_layers: int = 2, n_heads: int = 4,
                 layer: int | None = None, seed: int = 0, strict: bool = True
                 ) -> list[HeadMask]:
    """The distinct head patterns of layout ``text`` at ``n_layers`` x ``n_heads`` (only layer
    ``layer``, counted from 0, when given) and their masks over ``length`` tokens (BOS, N
    symbols, EOS), as a model with ``strict`` masking (`ModelConfig.strict`) and mask seed
    ``seed`` attends. A bad spelling, size, length or layer is a `ConfigError`."""
    if not isinstance(length, int) or not 2 <= length <= MAX_TOKENS:
        raise ConfigError(f"--length: a string has 2 to {MAX_TOKENS} tokens (BOS, the symbols, "
                          f"EOS), got {length!r}")
    layout = parse_layout(text, n_layers, n_heads, seed=seed)
    if layer is not None and not 0 <= layer < n_layers:
        raise ConfigError(f"--layer: layer {layer} of a {n_layers}-layer model; layers are "
                          f"0..{n_layers - 1} (more with --layers)")
    found: dict[Pattern, list[tuple[int, int]]] = {}
    for l, row in enumerate(layout.layers):
        if layer is None or l == layer:
            for h, pattern in enumerate(row):
                found.setdefault(pattern, []).append((l, h))
    return [HeadMask(str(p), tuple(where), p.mask(length, strict=strict))
            for p, where in found.items()]


def plot_masks(views: list[HeadMask]) -> Figure:
    """One panel per distinct head pattern (rows: queries, columns: keys, dark = may attend)."""
    from matplotlib.figure import Figure  # imported here: matplotlib is slow to import

    fig = Figure(figsize=(3.2 * len(views), 3.4), layout="constrained")
    for i, view in enumerate(views):
        ax = fig.add_subplot(1, len(views), i + 1)
        arr = view.mask.numpy().astype(float)
        ax.imshow(arr, cmap="Greys", vmin=0.0, vmax=1.0, interpolation="nearest")
        labels = token_labels(arr.shape[0])
        if arr.shape[0] <= 24:
            ax.set_xticks(range(arr.shape[0]), labels, rotation=90, fontsize=7)
            ax.set_yticks(range(arr.shape[0]), labels, fontsize=7)
        ax.set_xlabel("key m")
        ax.set_ylabel("query n")
        ax.set_title(view.pattern, fontsize=9)
    return fig


def _ranges(items: list[int]) -> str:
    """``[0, 1, 2, 5]`` as ``0-2,5``."""
    runs: list[list[int]] = []
    for x in items:
        if runs and runs[-1][-1] == x - 1:
            runs[-1].append(x)
        else:
            runs.append([x])
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
