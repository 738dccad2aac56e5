"""Readouts: which positions of the last layer the classifier reads (`ModelConfig.readout`).

For a word of length N the input is BOS (position 0), the N symbols (1..N) and EOS (N + 1):

=========  ========================================================================
``eos``    position N + 1, the EOS token (the default; docs/theory.md §1)
``cls``    position 0, the BOS token (BERT's [CLS])
``last``   position N, the last symbol (position 0, BOS, for the empty word)
``mean``   the mean of positions 0 .. N + 1 (padding excluded)
=========  ========================================================================

The classifier (final norm, then one linear unit) reads the chosen state, or the mean of the
states. One readout is one function here, used by `Recognizer` and `EnsembleRecognizer` alike,
on any number of leading axes (batch, or members and batch).
"""

from __future__ import annotations

from typing import Literal

import torch

__all__ = ["READOUTS", "Readout", "pool", "readout_rows", "real_positions"]

Readout = Literal["eos", "cls", "mean", "last"]
#: The `ModelConfig.readout` choices.
READOUTS: tuple[str, ...] = ("eos", "cls", "mean", "last")


def readout_rows(readout: str, lengths: torch.Tensor) -> torch.Tensor | None:
    """The one position per sequence that ``readout`` reads (same shape as the word
    ``lengths``), or None for ``mean``, which reads every real position."""
    if readout == "eos":
        return lengths + 1
    if readout == "last":
        return lengths.clone()
    if readout == "cls":
        return torch.zeros_like(lengths)
    if readout == "mean":
        return None
    raise ValueError(f"unknown readout {readout!r}; choose one of {', '.join(READOUTS)}")


def real_positions(t_sz: int, lengths: torch.Tensor) -> torch.Tensor:
    """(..., T) bool: position t of a row of ``T`` tokens holds BOS, a letter or EOS
    (t ≤ N + 1 for word length N in ``lengths`` (...)), not padding."""
    return torch.arange(t_sz, device=lengths.device) <= (lengths + 1)[..., None]


def pool(states: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """The mean over positions 0 .. N + 1 of ``states`` (..., T, d) with word ``lengths``
    (...): (..., d); padding after each EOS is excluded."""
    real = real_positions(states.shape[-2], lengths.to(states.device))  # (..., T)
    total = (states * real.unsqueeze(-1).to(states.dtype)).sum(-2)
    return total / (lengths + 2).unsqueeze(-1).to(states.dtype)
