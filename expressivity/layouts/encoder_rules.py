"""Encoder (bidirectional) attention rules as pure predicates on query/key index arrays.

Token indices are theory positions: BOS (= CLS) is 0, the symbols are 1..N, EOS (= SEP) is
``last = N + 1``. Each ``*_allowed(n, m, ...)`` takes broadcastable integer index arrays
(numpy or torch; only ``abs``, ``//``, ``%``, comparisons and ``&``/``|`` are used, so both work)
and returns whether query ``n`` may read key ``m``. Unlike the causal atoms (strict, keys
``m < n``, the sink rule), every encoder rule **includes the query itself** and may read later
keys; `encoder_allowed` confines the keys to the string (``m <= last``): padding is never a key.

What each rule follows, and where it departs from its source:

- ``window_allowed`` (``W{r}``): Longformer's sliding window. Hugging Face's
  ``LongformerSelfAttention`` requires an even ``attention_window`` w > 0 and sets
  ``one_sided_attn_window_size = attention_window // 2``: keys ``i - w/2 .. i + w/2``, so
  ``W{r}`` is ``w = 2r``. Departure: r = 0 (the query alone) is allowed here, not there.
- ``dilated_window_allowed`` (``WD{r}.{d}``): the original Longformer's per-head
  ``attention_dilation`` d: keys ``n + j·d``, ``|j| <= r`` (Hugging Face has no dilation).
- ``token_allowed`` (``CLS``, ``SEP``, ``AT{i}``): Longformer's global attention, which its
  paper makes symmetric (a global token reads every key and every query reads it). The tokens
  are existing tokens (BigBird's ITC), never extra ones (ETC adds a separate global input
  whose global-to-long and long-to-global attention is unrestricted: that is ``AT{i}`` on
  tokens of the string itself here, as there is no second input).
- ``block_window_allowed``, ``random_blocks_allowed``, ``global_blocks_allowed`` (``BW``,
  ``BR``, ``BG``): BigBird's block-sparse attention (Hugging Face ``BigBirdBlockSparseAttention``:
  a window of 3 blocks, ``num_random_blocks`` random blocks, global blocks, ITC only). Blocks
  are ``j·b .. j·b + b - 1`` from BOS on and the last block may be short (Hugging Face pads to
  a multiple of the block size). Departures: the global blocks are the *first* g blocks (Hugging
  Face makes the first and the last block global); random blocks are drawn from all the blocks
  of the string (Hugging Face excludes the window and global blocks), seeded per query block.
- ``strided_allowed`` / ``fixed_allowed`` (``ST``, ``SF``, ``STE``, ``SFE``): the Sparse
  Transformer (Child et al. 2019, arXiv 1904.10509 §4.2). Strided: A¹ = the previous l
  positions, A² = every l-th position back (the union with A¹'s t = max(0, i - l) of the paper
  is the same set, as offset l is also a multiple of l; OpenAI's ``get_attn_mask`` uses offsets
  < l for the local part). Fixed: A¹ = the query's block of l, A² = the last c columns
  (``j mod l >= l - c``) of every block. Causal (``m <= n``) as published; the ``E`` forms
  drop that condition (our encoder reading, not in the paper).
- ``swin_allowed`` (``SW{M}``, ``SWS{M}``): 1-D Swin windows of M tokens, shifted by
  ``s = M // 2`` in alternate layers. Swin rolls the feature map by ``-s`` and masks the
  windows that straddle the wrap, so that no token attends across it: its shifted windows in
  the original coordinates are ``[0, s), [s, s + M), [s + M, s + 2M), ...``, which is
  ``⌊(n + M - s)/M⌋`` here (for even M equal to ``⌊(n + s)/M⌋``). No cyclic wrap: a 1-D
  string has no torus, and linking its last tokens to its first would hand every window at
  the end a view of BOS and the first symbols (the roll is only Swin's device to batch
  windows of equal size; its mask already forbids the wrapped pairs).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

__all__ = [
    "block_window_allowed",
    "dilated_window_allowed",
    "fixed_allowed",
    "full_allowed",
    "global_blocks_allowed",
    "random_block_tables",
    "random_blocks",
    "random_blocks_allowed",
    "strided_allowed",
    "swin_allowed",
    "swin_shift",
    "token_allowed",
    "window_allowed",
]

#: A broadcastable integer index array: numpy or torch.
Index = Any


def full_allowed(n: Index, m: Index) -> Index:
    """``F``: every key (the unmasked encoder head)."""
    return (m >= 0) | (n < 0)


def window_allowed(n: Index, m: Index, r: int) -> Index:
    """``W{r}``: the symmetric window ``|n - m| <= r`` (the query itself included)."""
    return abs(n - m) <= r


def dilated_window_allowed(n: Index, m: Index, r: int, d: int) -> Index:
    """``WD{r}.{d}``: keys ``m = n + j·d`` for ``-r <= j <= r``."""
    off = n - m
    return (abs(off) <= r * d) & (off % d == 0)


def token_allowed(n: Index, m: Index, i: int) -> Index:
    """``AT{i}`` (``CLS``: i = 0; ``SEP``: i = N + 1): row i reads every key, every row also
    reads key i, and every row reads itself. A token beyond the string is no key (the caller's
    ``m <= last``) and its row is padding, so ``AT{i}`` with i > N + 1 adds only the diagonal."""
    return (n == i) | (m == i) | (m == n)


def block_window_allowed(n: Index, m: Index, b: int) -> Index:
    """``BW{b}``: the keys in the query's block and its two neighbouring blocks."""
    return abs(n // b - m // b) <= 1


def global_blocks_allowed(n: Index, m: Index, b: int, g: int) -> Index:
    """``BG{b}.{g}``: rows in the first g blocks read every key; every row reads those blocks
    (indices ``0 .. g·b - 1``) and itself."""
    return (n < g * b) | (m < g * b) | (m == n)


@lru_cache(maxsize=1024)
def random_blocks(n_blocks: int, r: int, seed: int) -> np.ndarray:
    """BigBird's random blocks of a string with ``n_blocks`` blocks: row j holds
    ``min(r, n_blocks)`` distinct blocks of ``0 .. n_blocks - 1`` (sorted), the first of a
    uniformly random order of the blocks drawn for row j from the seed sequence
    ``[seed, n_blocks]`` (one head seed gives each length its own, reproducible draw).
    Shape ``(n_blocks, min(r, n_blocks))``, read-only."""
    if n_blocks < 1 or r < 1 or seed < 0:
        raise ValueError(f"need n_blocks, r >= 1 and seed >= 0, got {n_blocks}, {r}, {seed}")
    take = min(r, n_blocks)
    order = np.random.default_rng([seed, n_blocks]).random((n_blocks, n_blocks)).argsort(axis=1)
    table = np.sort(order[:, :take], axis=1)
    table.setflags(write=False)
    return table


@lru_cache(maxsize=64)
def random_block_tables(max_blocks: int, r: int, seed: int) -> np.ndarray:
    """`random_blocks` of every string of 1 .. ``max_blocks`` blocks in one table:
    ``[K, j]`` holds block j's draws in a string of K blocks, padded with -1 (no block).
    Shape ``(max_blocks + 1, max_blocks, r)``, read-only."""
    table = np.full((max_blocks + 1, max_blocks, r), -1, dtype=np.int64)
    for k in range(1, max_blocks + 1):
        drawn = random_blocks(k, r, seed)
        table[k, :k, : drawn.shape[1]] = drawn
    table.setflags(write=False)
    return table


def random_blocks_allowed(n: Index, m: Index, b: int, r: int, seed: int, last: Index) -> Index:
    """``BR{b}.{r}``: the key's block is one of the r random blocks of the query's block, or the
    key is the query itself. Depends on the string's length through ``last = N + 1`` (a number,
    or an array broadcastable with ``n`` and ``m``: one string per entry, as in a padded batch)."""
    n_blocks = last // b + 1
    if isinstance(n_blocks, int):  # one string
        rows = _like(n, random_blocks(n_blocks, r, seed))[_clip_block(n // b, n_blocks)]
        return (rows == (m // b)[..., None]).any(-1) | (m == n)
    tables = _like(n, random_block_tables(int(n_blocks.max()), r, seed))
    rows = tables[n_blocks, _clip_block(n // b, n_blocks)]  # (..., r)
    hit = (rows == (m // b)[..., None]).any(-1)
    return hit | (m == n)


def _clip_block(block: Index, n_blocks: Index) -> Index:
    """A query's block, a padding row's clipped to the last block of its string."""
    block = block * (block >= 0)
    return block - (block - n_blocks + 1) * (block >= n_blocks)


def _like(n: Index, table: np.ndarray) -> Index:
    """``table`` as an array of ``n``'s library (a torch tensor on ``n``'s device, or numpy)."""
    return n.new_tensor(table) if hasattr(n, "new_tensor") else table


def strided_allowed(n: Index, m: Index, l: int, *, causal: bool) -> Index:
    """``ST{l}`` (causal) / ``STE{l}``: the previous l positions (offsets < l) and every
    l-th position; the encoder form reads both directions."""
    off = n - m
    near = (abs(off) < l) | (off % l == 0)
    return near & (off >= 0) if causal else near


def fixed_allowed(n: Index, m: Index, l: int, c: int, *, causal: bool) -> Index:
    """``SF{l}.{c}`` (causal) / ``SFE{l}.{c}``: the query's block of l, and the last c
    "summary" columns ``m mod l >= l - c`` of every block."""
    near = (m // l == n // l) | (m % l >= l - c)
    return near & (m <= n) if causal else near


def swin_shift(window: int) -> int:
    """Swin's shift ``⌊M/2⌋`` of the alternate layers."""
    return window // 2


def swin_allowed(n: Index, m: Index, window: int, *, shifted: bool) -> Index:
    """``SW{M}`` / ``SWS{M}``: query and key in one window of M tokens; shifted windows start
    at ``s = ⌊M/2⌋`` (the first window is ``[0, s)``), without a cyclic wrap."""
    off = window - swin_shift(window) if shifted else 0
    return (n + off) // window == (m + off) // window
