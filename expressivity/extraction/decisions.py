"""A recognizer's accept logits and decisions on padded words, batched by length, per dtype.

Words are padded code arrays ``(B, W)`` with ``lengths`` (B,); `logits` batches them by length
so that one forward pass covers many words while ``B · T²`` (the attention scores per head)
stays bounded, in the model's own dtype or a converted copy (`in_dtype`, `DTYPES`).
"""

from __future__ import annotations

import copy

import numpy as np
import torch

from expressivity.errors import ConfigError
from expressivity.models.tokens import bos_id, eos_id, pad_id
from expressivity.models.transformer import Recognizer

__all__ = ["DTYPES", "decide", "in_dtype", "logits"]

#: The evaluation precisions, by name.
DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
}


def _dtype(dtype: str | torch.dtype) -> torch.dtype:
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype not in DTYPES:
        raise ConfigError(f"dtype: {dtype!r} is not one of {', '.join(DTYPES)}")
    return DTYPES[dtype]


def in_dtype(model: Recognizer, dtype: str | torch.dtype) -> Recognizer:
    """``model`` itself if it already has ``dtype``, else a converted copy."""
    dt = _dtype(dtype)
    if next(model.parameters()).dtype == dt:
        return model
    return copy.deepcopy(model).to(dt)


def _tokens(
    codes: np.ndarray, lengths: np.ndarray, s: int, bucket: int = 1
) -> tuple[torch.Tensor, torch.Tensor]:
    """``[BOS, w, EOS, PAD...]`` rows (as `models.tokens.encode_batch`), vectorized; the row
    width is rounded up to a multiple of ``bucket`` (padding after EOS changes nothing, and
    few distinct widths let the model reuse its attention masks)."""
    b_sz, width = len(lengths), int(lengths.max()) if len(lengths) else 0
    total = -(-(width + 2) // bucket) * bucket
    tok = np.full((b_sz, total), pad_id(s), dtype=np.int64)
    tok[:, 0] = bos_id(s)
    inside = np.arange(width)[None, :] < lengths[:, None]
    tok[:, 1 : width + 1] = np.where(inside, codes[:, :width], pad_id(s))
    tok[np.arange(b_sz), lengths + 1] = eos_id(s)
    return torch.from_numpy(tok), torch.from_numpy(lengths.astype(np.int64))


def decide(
    model: Recognizer,
    codes: np.ndarray,
    lengths: np.ndarray,
    *,
    dtype: str | torch.dtype | None = None,
    max_cells: int = 1 << 22,
) -> np.ndarray:
    """Accept decisions (logit > 0) for padded words, in input order (bool array)."""
    return logits(model, codes, lengths, dtype=dtype, max_cells=max_cells) > 0


@torch.no_grad()
def logits(
    model: Recognizer,
    codes: np.ndarray,
    lengths: np.ndarray,
    *,
    dtype: str | torch.dtype | None = None,
    max_cells: int = 1 << 22,
) -> np.ndarray:
    """Accept logits (float64) for padded words, in input order, batched by length."""
    net = model if dtype is None else in_dtype(model, dtype)
    codes, lengths = np.asarray(codes, dtype=np.int64), np.asarray(lengths, dtype=np.int64)
    order = np.argsort(lengths, kind="stable")
    out = np.zeros(len(lengths), dtype=np.float64)
    start, n = 0, len(order)
    while start < n:
        stop = start + 1  # grow the chunk (lengths ascending) while B * T^2 fits the budget
        while stop < n and (stop + 1 - start) * (int(lengths[order[stop]]) + 34) ** 2 <= max_cells:
            stop += 1
        idx = order[start:stop]
        tok, ln = _tokens(codes[idx], lengths[idx], net.alphabet_size,
                          bucket=1 if lengths[idx[-1]] < 30 else 32)
        out[idx] = net(tok, ln).double().cpu().numpy()
        start = stop
    return out
