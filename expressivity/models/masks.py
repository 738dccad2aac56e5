"""Attention patterns as data: pure (T, T) boolean masks over ``[BOS, w1..wN, EOS, PAD...]``.

Conventions (docs/theory.md §1):

- ``mask[n, m]`` is True when query token ``n`` may attend to key token ``m``. Token index ``n``
  is theory position ``n``: BOS is index 0, the symbols are 1..N, EOS is N+1.
- Every pattern is first defined *raw* by a predicate ``allowed(n, m)`` on broadcastable
  integer tensors (its atom kind's rule in the registry, `expressivity.layouts`; the
  ``*_allowed`` functions here add the non-strict diagonal and are reused by the banded
  kernel), then made
  total by the **sink rule** (`add_sink`): a query row with no allowed key attends to BOS
  (index 0) instead. BOS's own row is then ``{0}`` under strict masking, so its state is the
  same constant in every string, and a sink row reads that constant: a null read, exactly
  like the empty attention of the theory, so the rule adds no expressive power.
- **Strict** (default) keys are ``m < n``; **non-strict** adds the diagonal ``m = n`` to every
  pattern (the weaker variant of docs/theory.md).
- Global strict: ``0 <= m < n`` (BOS is a key, as docs/theory.md prepends it for global heads).
- k-local strict: ``max(1, n-k) <= m < n`` exactly as [LC26]; BOS is *not* a key, so position 1
  (empty window) reads BOS only through the sink rule.
- Dilated, block-local and random keys likewise exclude BOS; global tokens (Longformer / ETC)
  are bidirectional and include BOS as their first token.

All patterns except global tokens are causal (``m <= n``): a row never sees padding after its
EOS. Global-token rows see the future, so models combine them with a key-padding mask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from expressivity.layouts import KINDS
from expressivity.layouts.atoms.random_ import random_table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "add_sink",
    "block_allowed",
    "block_mask",
    "dilated_allowed",
    "dilated_mask",
    "global_allowed",
    "global_mask",
    "global_tokens_allowed",
    "global_tokens_mask",
    "grid",
    "local_allowed",
    "local_mask",
    "plot_mask",
    "random_allowed",
    "random_keys",
    "random_mask",
]


def grid(
    length: int, device: torch.device | str | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Query and key index grids ``n`` (T, 1) and ``m`` (1, T) for the predicates."""
    idx = torch.arange(length, device=device)
    return idx[:, None], idx[None, :]


def _diag(n: torch.Tensor, m: torch.Tensor, strict: bool) -> torch.Tensor:
    return (m == n) & (not strict)


def global_allowed(n: torch.Tensor, m: torch.Tensor, *, strict: bool = True) -> torch.Tensor:
    """Global: every ``0 <= m < n`` (``m <= n`` non-strict)."""
    return KINDS["G"].allowed(n, m, ()) | _diag(n, m, strict)


def local_allowed(
    n: torch.Tensor, m: torch.Tensor, k: int, *, strict: bool = True
) -> torch.Tensor:
    """k-local [LC26]: ``max(1, n-k) <= m < n`` (plus ``m = n`` non-strict)."""
    return KINDS["L"].allowed(n, m, (k,)) | _diag(n, m, strict)


def dilated_allowed(
    n: torch.Tensor, m: torch.Tensor, k: int, d: int, *, strict: bool = True
) -> torch.Tensor:
    """Dilated: the k keys ``m = n - i*d`` (``i = 1..k``) with ``m >= 1``; d = 1 is k-local."""
    return KINDS["D"].allowed(n, m, (k, d)) | _diag(n, m, strict)


def block_allowed(
    n: torch.Tensor, m: torch.Tensor, block: int, *, strict: bool = True
) -> torch.Tensor:
    """Block-local: earlier keys ``m >= 1`` in the same block of ``block`` token indices."""
    return KINDS["B"].allowed(n, m, (block,)) | _diag(n, m, strict)


def global_tokens_allowed(
    n: torch.Tensor, m: torch.Tensor, positions: Sequence[int] = (0,), *, strict: bool = True
) -> torch.Tensor:
    """Global tokens (Longformer / ETC): rows in ``positions`` attend to every key, and every
    row attends to the keys in ``positions`` (bidirectional; ``strict`` only adds nothing).
    ``positions = range(g)`` is the atom ``Tg``."""
    pos = torch.as_tensor(list(positions), dtype=torch.long, device=n.device)
    hub_row = torch.isin(n, pos) & (m >= 0)
    hub_col = torch.isin(m, pos)
    return hub_row | hub_col | _diag(n, m, strict)


def random_keys(length: int, r: int, seed: int) -> torch.Tensor:
    """BigBird random keys: row ``n`` holds ``min(r, n-1)`` distinct keys from ``1..n-1`` (then -1).

    Seeded explicitly, fixed per length, and prefix-consistent across lengths. Shape (T, r).
    """
    if r < 0 or seed < 0:
        raise ValueError(f"need r >= 0 and seed >= 0, got r={r}, seed={seed}")
    return torch.from_numpy(random_table(length, r, seed).copy())


def random_allowed(
    n: torch.Tensor, m: torch.Tensor, r: int, seed: int, *, strict: bool = True
) -> torch.Tensor:
    """Random (BigBird): ``m`` is one of the ``r`` random earlier keys of row ``n``."""
    return KINDS["R"].allowed(n, m, (r,), seed) | _diag(n, m, strict)


def add_sink(mask: torch.Tensor) -> torch.Tensor:
    """The sink rule: rows (last dim = keys) with no allowed key attend to BOS (key 0)."""
    empty = ~mask.any(-1)
    out = mask.clone()
    out[..., 0] |= empty
    return out


def global_mask(length: int, *, strict: bool = True) -> torch.Tensor:
    """Global attention: ``0 <= m < n``; BOS row 0 attends to itself (sink rule). Shape (T, T)."""
    return add_sink(global_allowed(*grid(length), strict=strict))


def local_mask(length: int, k: int, *, strict: bool = True) -> torch.Tensor:
    """k-local: ``max(1, n-k) <= m < n``; rows 0 and 1 (empty windows) attend to BOS only."""
    return add_sink(local_allowed(*grid(length), k, strict=strict))


def dilated_mask(length: int, k: int, d: int, *, strict: bool = True) -> torch.Tensor:
    """Dilated window of k keys spaced d apart; rows ``n <= d`` attend to BOS only (strict)."""
    return add_sink(dilated_allowed(*grid(length), k, d, strict=strict))


def block_mask(length: int, block: int, *, strict: bool = True) -> torch.Tensor:
    """Block-local with blocks ``[cb, (c+1)b)``; the first row of each block reads BOS (strict)."""
    return add_sink(block_allowed(*grid(length), block, strict=strict))


def random_mask(length: int, r: int, seed: int, *, strict: bool = True) -> torch.Tensor:
    """BigBird random pattern (`random_keys`); rows 0 and 1 attend to BOS only (strict)."""
    return add_sink(random_allowed(*grid(length), r, seed, strict=strict))


def global_tokens_mask(
    length: int, positions: Sequence[int] = (0,), *, strict: bool = True
) -> torch.Tensor:
    """Global tokens at ``positions`` (BOS by default): they see all and are seen by all."""
    return add_sink(global_tokens_allowed(*grid(length), positions, strict=strict))


def plot_mask(mask: torch.Tensor | np.ndarray, *, title: str = "") -> Figure:
    """A picture of a (T, T) pattern: rows are queries, columns keys, dark = may attend."""
    from matplotlib.figure import Figure  # imported here: matplotlib is slow to import

    arr = np.asarray(mask.cpu() if isinstance(mask, torch.Tensor) else mask, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"plot_mask needs a (T, T) mask, got shape {arr.shape}")
    size = min(8.0, 2.0 + 0.25 * arr.shape[0])
    fig = Figure(figsize=(size, size))
    ax = fig.add_subplot()
    ax.imshow(arr, cmap="Greys", vmin=0.0, vmax=1.0, interpolation="nearest")
    ax.set_xlabel("key m")
    ax.set_ylabel("query n")
    if arr.shape[0] <= 24:
        ax.set_xticks(range(arr.shape[1]))
        ax.set_yticks(range(arr.shape[0]))
    if title:
        ax.set_title(title)
    return fig
