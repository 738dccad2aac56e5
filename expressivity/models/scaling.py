"""Length-aware attention scaling: each row's logits times log n (or s_h · log n, SSMax).

Definition (``ModelConfig.attention_scale``; docs/theory.md §9). For a query row n of head h
let N(h, n) be the **number of keys the row attends to**: the keys m its pattern allows
(strict masking: m < n), after the sink rule (a row whose pattern allows no key reads BOS
alone, so N ≥ 1; `models.masks.add_sink`) and without the padding after the word's EOS.
For the EOS row of a global head over a word of length N that is N + 1 (BOS and the N
letters); for a k-local head at row n ≥ 2 it is min(k, n − 1) (BOS is no key of a local
head), and 1 at row 1 (BOS by the sink rule). A row with N = 1 has factor log 1 = 0: its one
key gets weight 1 whatever the factor. With content logits zₘ = q_n·k_m / √d the row's weights are

    "none"    softmax(z)                  (the default; bitwise today's model)
    "log-n"   softmax(log N · z)          (Chiang & Cholak 2022 scale the query by log n)
    "ssmax"   softmax(s_h · log N · z)    (Scalable-Softmax, Nakanishi 2025: s_h learnable,
                                           one per head, initialised to `SSMAX_INIT`)

An ALiBi bias, when present, is added after the scaling (it is not multiplied). One key with
margin Δ over N − 1 equal others then gets weight N^{sΔ} / (N^{sΔ} + N − 1), which tends to
1 as N grows iff sΔ > 1 (`one_key_weight`). The factor multiplies the query, so no kernel
needs a change: every one is scaled, the dense, encoder (dense, unmasked future), banded,
gathered-key (random keys, global tokens) and one-row kernels alike (`models.attend`);
`mask_key_counts`, `band_key_counts` and `attend.gather_key_counts` give N per row,
`length_factor` the factor.
"""

from __future__ import annotations

import math
from typing import Literal

import torch

from expressivity.models.attention import BandPlan

__all__ = ["SCALES", "SSMAX_INIT", "AttentionScale", "band_key_counts", "length_factor",
           "mask_key_counts", "one_key_weight", "scale_queries"]

AttentionScale = Literal["none", "log-n", "ssmax"]
#: The `ModelConfig.attention_scale` choices.
SCALES: tuple[str, ...] = ("none", "log-n", "ssmax")
#: Initial s of every SSMax head (s = 1 starts as "log-n").
SSMAX_INIT = 1.0


def mask_key_counts(mask: torch.Tensor) -> torch.Tensor:
    """N per row of a boolean mask (..., T, S) with the sink rule applied: (..., T)."""
    return mask.sum(-1)


def band_key_counts(plan: BandPlan) -> torch.Tensor:
    """N per row (T,) of a banded kernel's plan: its allowed cells plus the far BOS column."""
    counts = plan.ok.sum(-1).reshape(-1)[: plan.length]
    if plan.far is not None:
        counts = counts + plan.far.to(counts.dtype)
    return counts


def length_factor(counts: torch.Tensor, dtype: torch.dtype,
                  s: torch.Tensor | None = None) -> torch.Tensor:
    """log N (times s per head for SSMax) for key counts (..., H', T) or (T,); ``s`` (H',)."""
    factor = torch.log(counts.clamp(min=1).to(dtype))
    if s is not None:
        factor = factor * s.to(dtype).view(-1, 1)
    return factor


def scale_queries(q: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    """``q`` (B, H', T, D) with each row multiplied by its factor (broadcast to (B, H', T))."""
    return q * factor.unsqueeze(-1)


def one_key_weight(n: int, margin: float, s: float = 1.0, scale: str = "log-n") -> float:
    """The weight of one key with logit margin Δ over n − 1 equal others:
    e^Δ / (e^Δ + n − 1) without scaling, n^{sΔ} / (n^{sΔ} + n − 1) with it."""
    if n < 1:
        raise ValueError(f"need n >= 1 keys, got {n}")
    lift = margin if scale == "none" else s * margin * math.log(n)
    return 1.0 / (1.0 + (n - 1) * math.exp(-lift))
