"""The small double-precision recognizer the penalty tests (step, forget, write) share."""

from __future__ import annotations

from expressivity.models.config import ModelConfig
from expressivity.models.transformer import Recognizer


def small_model(layout: str = "mamba", seed: int = 0) -> Recognizer:
    """A 2-layer, 16-wide ``layout`` recognizer over 3 letters, in float64 and training mode."""
    config = ModelConfig.from_dict({"n_layers": 2, "d_model": 16, "n_heads": 4, "d_ff": 32,
                                    "layout": layout})
    return Recognizer(config, 3, seed=seed).double().train()
