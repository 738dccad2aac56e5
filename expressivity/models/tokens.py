"""Token ids of the recognizer input ``[BOS, w1..wN, EOS, PAD...]`` and batch encoding."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from expressivity.errors import AlphabetError

__all__ = ["bos_id", "encode_batch", "eos_id", "pad_id", "vocab_size"]


def bos_id(alphabet_size: int) -> int:
    """Id of the beginning-of-string token (token index 0 of every row): ``s``."""
    return alphabet_size


def eos_id(alphabet_size: int) -> int:
    """Id of the end-of-string token (theory position N+1, where the classifier reads): ``s+1``."""
    return alphabet_size + 1


def pad_id(alphabet_size: int) -> int:
    """Id of the right padding after EOS: ``s+2``."""
    return alphabet_size + 2


def vocab_size(alphabet_size: int) -> int:
    """Number of token ids: the ``s`` symbols plus BOS, EOS and PAD."""
    return alphabet_size + 3


def encode_batch(
    words_codes: Sequence[np.ndarray], alphabet_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Lay words out as ``[BOS, w1..wN, EOS, PAD...]`` rows, right padded to ``T = max N + 2``.

    ``words_codes[b]`` holds the symbol codes ``0..s-1`` of word ``b`` (e.g. from
    `Alphabet.encode`). Returns ``tokens`` (B, T) and ``lengths`` (B,), both int64; the EOS of
    row ``b`` sits at index ``lengths[b] + 1``, and token index ``n`` is theory position ``n``.
    """
    if alphabet_size < 1:
        raise AlphabetError(f"alphabet_size must be >= 1, got {alphabet_size}")
    arrays = [np.asarray(w, dtype=np.int64).reshape(-1) for w in words_codes]
    for b, w in enumerate(arrays):
        if w.size and (w.min() < 0 or w.max() >= alphabet_size):
            bad = int(w[(w < 0) | (w >= alphabet_size)][0])
            raise AlphabetError(
                f"word {b} contains code {bad}, outside the alphabet codes 0..{alphabet_size - 1}; "
                "encode words with Alphabet.encode"
            )
    lengths = np.array([w.size for w in arrays], dtype=np.int64)
    width = int(lengths.max()) + 2 if arrays else 2
    tokens = np.full((len(arrays), width), pad_id(alphabet_size), dtype=np.int64)
    tokens[:, 0] = bos_id(alphabet_size)
    for b, w in enumerate(arrays):
        tokens[b, 1 : w.size + 1] = w
        tokens[b, w.size + 1] = eos_id(alphabet_size)
    return torch.from_numpy(tokens), torch.from_numpy(lengths)
