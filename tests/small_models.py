"""The small model the unit tests share: 2 layers, 16 wide, 4 heads, over 3 letters."""

from __future__ import annotations

from expressivity.models.config import ModelConfig
from expressivity.models.transformer import Recognizer

#: the shape of every small test model (any setting may be overridden by name)
SMALL = {"n_layers": 2, "d_model": 16, "n_heads": 4, "d_ff": 32}


def small_config(layout: str = "mamba", **settings: object) -> ModelConfig:
    """The small model's configuration with ``layout`` and any other ``settings``."""
    return ModelConfig.from_dict({**SMALL, "layout": layout, **settings})


def small_model(layout: str = "mamba", seed: int = 0) -> Recognizer:
    """A small ``layout`` recognizer over 3 letters, in float64 and training mode."""
    return Recognizer(small_config(layout), 3, seed=seed).double().train()
