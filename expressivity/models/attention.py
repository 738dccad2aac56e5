"""Attention kernels: dense masked SDPA, a linear-memory banded kernel, and a loop reference.

All three take ``q, k, v`` of shape (B, H, T, D), scale scores by ``1/sqrt(D)``, optionally add
an ALiBi bias ``-slope_h * |n - m|``, and give a zero output on a row with no allowed key
(never NaN). The banded kernel takes a pattern as a predicate ``allowed(n, m)`` whose keys all
lie in ``[n - W, n]``, through a `BandPlan` that also applies the sink rule of
`expressivity.models.masks`, so that ``banded_attention(q, k, v, band_plan(T, W, allowed))``
equals ``dense_attention(q, k, v, add_sink(allowed(*grid(T))))`` while storing O(T * W) scores.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

__all__ = [
    "BandPlan",
    "Predicate",
    "alibi_bias",
    "band_plan",
    "banded_attention",
    "default_block_size",
    "dense_attention",
    "reference_attention",
]

#: ``allowed(n, m) -> bool tensor`` on broadcastable query/key index tensors (raw, no sink).
Predicate = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def alibi_bias(slopes: torch.Tensor, n: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    """ALiBi bias ``-slope_h * |n - m|``: shape ``(H, *broadcast(n, m).shape)``."""
    dist = (n - m).abs().to(slopes.dtype)
    return -slopes.view(-1, *([1] * dist.dim())) * dist


def reference_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor,
    bias: torch.Tensor | None = None,
    length_scale: torch.Tensor | None = None,
) -> torch.Tensor:
    """Explicit loop over (batch, head, query): the definition the kernels are tested against.

    ``mask`` and ``bias`` broadcast to (B, H, T, T); a row without keys outputs zeros. With
    ``length_scale`` (H,) the content scores of a row with N keys are multiplied by
    ``length_scale[h] * log N`` before the bias is added (`models.scaling`: ones = "log-n").
    """
    b_sz, h_sz, t_sz, d_sz = q.shape
    mask = mask.expand(b_sz, h_sz, t_sz, k.shape[2])
    rows = []
    for b in range(b_sz):
        for h in range(h_sz):
            for n in range(t_sz):
                keys = mask[b, h, n].nonzero().flatten()
                if keys.numel() == 0:
                    rows.append(torch.zeros_like(q[b, h, n]))
                    continue
                s = (k[b, h, keys] @ q[b, h, n]) / math.sqrt(d_sz)
                if length_scale is not None:
                    s = s * (float(length_scale[h]) * math.log(keys.numel()))
                if bias is not None:
                    s = s + bias.expand(b_sz, h_sz, t_sz, k.shape[2])[b, h, n, keys]
                rows.append(torch.softmax(s, dim=0) @ v[b, h, keys])
    return torch.stack(rows).view(b_sz, h_sz, t_sz, d_sz)


def dense_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor,
    bias: torch.Tensor | None = None,
    *,
    check_empty: bool = True,
) -> torch.Tensor:
    """Masked `scaled_dot_product_attention`; ``mask`` (bool) and ``bias`` broadcast to (B,H,T,S).

    O(T * S) memory per head: use it for short sequences and for non-banded patterns. Masks are
    passed on as 4-d tensors (a 3-d mask sends PyTorch's CPU dispatch to its slower math
    kernel). ``check_empty=False`` skips the scan for key-less rows when the caller knows there
    are none (every mask with the sink rule applied).
    """
    mask = mask[(None,) * (4 - mask.dim())]
    if bias is not None:
        bias = bias[(None,) * (4 - bias.dim())]
    empty = None
    if check_empty:
        empty = ~mask.any(-1, keepdim=True)
        if bool(empty.any()):  # let empty rows see everything, then zero them: no NaN
            mask = mask | empty
        else:
            empty = None
    attn_mask: torch.Tensor = mask
    if bias is not None:
        attn_mask = bias.to(q.dtype).masked_fill(~mask, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
    if empty is not None:
        out = out.masked_fill(empty.expand(*out.shape[:-1], 1), 0.0)
    return out


@dataclass(frozen=True, eq=False)
class BandPlan:
    """Where the banded kernel looks; built once per (pattern, length, device) and reused.

    Queries are cut into ``tiles`` blocks of ``block`` rows (the last one padded); tile ``c``
    scores its rows against the ``(lookback + 1) * block`` keys of blocks ``c - lookback .. c``,
    which hold every key of the band. ``ok[c, i, j]`` marks the allowed cells of that score
    tile; ``far[n]`` marks rows that read BOS by the sink rule while BOS lies outside their
    tile (one extra key column), or is None when no row does. ``bias`` is the additive form
    (0 or -inf) of ``ok`` plus that column, and ``dist`` the ``|n - m|`` of one tile (ALiBi).
    """

    length: int
    window: int
    block: int
    lookback: int
    ok: torch.Tensor  # (tiles, block, (lookback + 1) * block) bool
    far: torch.Tensor | None  # (length,) bool
    bias: torch.Tensor  # (tiles, block, columns) float32
    dist: torch.Tensor  # (block, (lookback + 1) * block) float32


def default_block_size(window: int) -> int:
    """Query rows per tile: the fastest on CPU in ``benchmarks/attention.py`` (8 up to 64)."""
    return 8 if window <= 8 else 16 if window <= 16 else 32 if window <= 96 else 64


def band_plan(
    length: int,
    window: int,
    allowed: Predicate,
    *,
    device: torch.device | str | None = None,
    block_size: int | None = None,
) -> BandPlan:
    """The plan of `banded_attention` for keys ``m`` in ``[n - window, n]`` with ``allowed(n, m)``
    (a raw predicate; the sink rule is applied here). Memory O(length * window)."""
    if window < 0 or length < 1:
        raise ValueError(f"need window >= 0 and length >= 1, got {window}, {length}")
    s = block_size or default_block_size(window)
    dev = torch.device(device) if device is not None else torch.device("cpu")
    lookback, tiles = -(-window // s), -(-length // s)
    width = (lookback + 1) * s
    idx = torch.int32 if length < 2**30 else torch.int64  # halves the plan's memory traffic
    n = torch.arange(tiles * s, device=dev, dtype=idx).view(tiles, s, 1)
    start = (torch.arange(tiles, device=dev, dtype=idx) - lookback) * s
    m = start.view(tiles, 1, 1) + torch.arange(width, device=dev, dtype=idx)
    ok = (m >= 0) & (m <= n) & (n - m <= window) & allowed(n, m)
    ok[-1] |= (n[-1] >= length) & (m[-1] == n[-1])  # padding rows see themselves: no NaN
    sink = ~ok.any(-1)  # rows that read BOS by the sink rule
    ok[: lookback + 1] |= sink[: lookback + 1, :, None] & (m[: lookback + 1] == 0)
    sink[: lookback + 1] = False  # the first tiles hold key 0; later ones need a column
    far = sink.reshape(-1)[:length]
    full = ok
    if bool(far.any()):
        full = torch.cat([ok, sink.unsqueeze(-1)], dim=-1)
    bias = torch.zeros(full.shape, device=dev).masked_fill_(~full, float("-inf"))
    i = torch.arange(s, device=dev)[:, None]
    dist = (lookback * s + i - torch.arange(width, device=dev)).abs().to(torch.float32)
    return BandPlan(length, window, s, lookback, ok, far if full is not ok else None, bias, dist)


def banded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    plan: BandPlan,
    *,
    slopes: torch.Tensor | None = None,
) -> torch.Tensor:
    """Attention restricted to the band of ``plan`` (see `band_plan`): O(T * window) memory."""
    b_sz, h_sz, t_sz, d_sz = q.shape
    if t_sz != plan.length:
        raise ValueError(f"plan is for length {plan.length}, got {t_sz}")
    s, lb, tiles = plan.block, plan.lookback, plan.ok.shape[0]
    rows = tiles * s
    q = q * (1.0 / math.sqrt(d_sz))
    qb = (q if rows == t_sz else F.pad(q, (0, 0, 0, rows - t_sz))).view(b_sz, h_sz, tiles, s, -1)
    kp = F.pad(k, (0, 0, lb * s, rows - t_sz)).view(b_sz, h_sz, tiles + lb, s, d_sz)
    vp = F.pad(v, (0, 0, lb * s, rows - t_sz)).view(b_sz, h_sz, tiles + lb, s, d_sz)
    kb = torch.cat([kp[:, :, i : i + tiles] for i in range(lb + 1)], dim=3)  # (B, H, tiles, C, D)
    vb = torch.cat([vp[:, :, i : i + tiles] for i in range(lb + 1)], dim=3)
    scores = torch.matmul(qb, kb.transpose(-1, -2))  # (B, H, tiles, S, C)
    neg = None if slopes is None else -slopes.to(q.dtype).view(-1, 1, 1, 1)
    if neg is not None:
        scores = scores + neg * plan.dist.to(q.dtype)
    if plan.far is not None:  # one more key column, BOS, for rows whose tile misses it
        s0 = F.pad(torch.einsum("bhtd,bhd->bht", q, k[:, :, 0]), (0, rows - t_sz))
        s0 = s0.view(b_sz, h_sz, tiles, s, 1)
        if neg is not None:
            s0 = s0 + neg * torch.arange(rows, device=q.device, dtype=q.dtype).view(tiles, s, 1)
        scores = torch.cat([scores, s0], dim=-1)
    probs = torch.softmax(scores.add_(plan.bias.to(q.dtype)), dim=-1)  # masked by -inf
    out = torch.matmul(probs[..., : kb.shape[3]], vb).view(b_sz, h_sz, rows, d_sz)[:, :, :t_sz]
    if plan.far is not None:
        out = out + probs[..., -1:].reshape(b_sz, h_sz, rows, 1)[:, :, :t_sz] * v[:, :, :1]
    return out
