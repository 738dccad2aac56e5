"""Batched evaluation of ensemble members: each member's own words, one forward pass per chunk."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:
    from expressivity.models.ensemble import EnsembleRecognizer

__all__ = ["MAX_ROWS", "predict_members"]

#: Rows (strings over all members) of one evaluation forward pass, bounding its memory.
MAX_ROWS = 2048


@torch.no_grad()
def predict_members(
    model: EnsembleRecognizer,
    members: Sequence[int],
    words: Sequence[Sequence[np.ndarray]],
    alphabet_size: int,
    *,
    batch_size: int = 256,
    device: torch.device | str = "cpu",
) -> list[np.ndarray]:
    """Accept decisions (logit > 0) of ensemble members ``members`` on ``words[k]`` each.

    As `training.evaluate.predict` per member: words go in order of length (so padding stays
    small) in chunks of at most ``batch_size`` per member and `MAX_ROWS` in all; member k's
    chunk c is its c-th chunk, shorter members padded with empty words that are ignored.
    """
    from expressivity.models.tokens import encode_batch, pad_id

    rows = max(1, min(batch_size, MAX_ROWS // max(1, len(members))))
    orders = [np.argsort(np.array([len(w) for w in ws], dtype=np.int64), kind="stable")
              for ws in words]
    out = [np.zeros(len(ws), dtype=bool) for ws in words]
    chunks = max((-(-len(ws) // rows) for ws in words), default=0)
    empty = np.zeros(0, dtype=np.int64)
    for c in range(chunks):
        take = [o[c * rows : (c + 1) * rows] for o in orders]
        live = [k for k, t in enumerate(take) if len(t)]
        width = max(len(take[k]) for k in live)
        encoded = [encode_batch([words[k][i] for i in take[k]]
                                + [empty] * (width - len(take[k])), alphabet_size) for k in live]
        t_sz = max(t.shape[1] for t, _ in encoded)
        tokens = torch.full((len(live), width, t_sz), pad_id(alphabet_size), dtype=torch.long)
        for j, (t, _) in enumerate(encoded):
            tokens[j, :, : t.shape[1]] = t
        lengths = torch.stack([n for _, n in encoded])
        logits = model(tokens.to(device), lengths.to(device), members=[members[k] for k in live])
        decided = (logits > 0).cpu().numpy()
        for j, k in enumerate(live):
            out[k][take[k]] = decided[j, : len(take[k])]
    return out
