"""Recognizer transformers with global, k-local, hybrid and sparse attention (docs/theory.md §1).

Modules: `tokens` (ids and batch encoding), `masks` (patterns as boolean masks), `layouts`
(which pattern each head uses), `attention` (dense, banded and reference kernels),
`positions`, `config` (`ModelConfig`), `blocks` and `transformer` (`Recognizer`).
"""

from expressivity.models.config import PRESETS, ModelConfig
from expressivity.models.layouts import Layout, Pattern, parse_layout
from expressivity.models.tokens import bos_id, encode_batch, eos_id, pad_id, vocab_size
from expressivity.models.transformer import Recognizer

__all__ = [
    "PRESETS",
    "Layout",
    "ModelConfig",
    "Pattern",
    "Recognizer",
    "bos_id",
    "encode_batch",
    "eos_id",
    "pad_id",
    "parse_layout",
    "vocab_size",
]
