"""Optimisation pieces of a run: AdamW, the learning-rate schedule and the batch order."""

from __future__ import annotations

import math

import numpy as np
import torch

from expressivity.training.train_config import TrainConfig

__all__ = ["adamw", "batch_indices", "learning_rate"]


def learning_rate(config: TrainConfig, step: int) -> float:
    """The learning rate of optimisation step ``step`` (0-based): linear warmup over
    ``warmup_steps``, then constant, or constant until ``decay_start`` (the warmup's end at
    0) and a cosine decay to zero at ``steps``."""
    warm = config.warmup_steps
    if step < warm:
        return config.lr * (step + 1) / warm
    start = max(warm, config.decay_start)
    if config.schedule == "constant" or step < start:
        return config.lr
    progress = min(1.0, (step - start) / max(1, config.steps - start))
    return config.lr * 0.5 * (1.0 + math.cos(math.pi * progress))


def batch_indices(seed: int, step: int, batch_size: int, n: int) -> np.ndarray:
    """Training examples of step ``step``: positions ``[step*B, (step+1)*B)`` of the endless
    stream of epochs, epoch ``e`` being the permutation drawn from ``(seed, e)``."""
    start = step * batch_size
    out = np.empty(batch_size, dtype=np.int64)
    done = 0
    while done < batch_size:
        epoch, offset = divmod(start + done, n)
        take = min(batch_size - done, n - offset)
        perm = np.random.default_rng([seed, epoch]).permutation(n)
        out[done : done + take] = perm[offset : offset + take]
        done += take
    return out


def adamw(model: torch.nn.Module, cfg: TrainConfig) -> torch.optim.AdamW:
    """AdamW with weight decay on matrices and embeddings only (nanoGPT)."""
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in params if p.dim() >= 2], "weight_decay": cfg.weight_decay},
        {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=learning_rate(cfg, 0))
