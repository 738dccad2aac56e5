"""`ModelConfig`: presets, validation naming the field, round trips."""

from __future__ import annotations

import pytest

from expressivity.errors import ConfigError
from expressivity.models import ModelConfig


def test_presets() -> None:
    paper = ModelConfig.preset("paper")
    assert (paper.n_layers, paper.d_model, paper.n_heads, paper.d_head) == (5, 64, 8, 8)
    assert paper.positional == "none" and paper.strict and paper.layout == "global"
    cpu = ModelConfig.preset("cpu", layout="hybrid-1")
    assert cpu.n_layers * cpu.d_model < paper.n_layers * paper.d_model
    assert cpu.layout_spec().canonical() == "2xG,2xL1"


def test_round_trip_through_dict() -> None:
    config = ModelConfig.preset("cpu", layout="bigbird-2-1-1", positional="alibi", mask_seed=3)
    assert ModelConfig.from_dict(config.to_dict()) == config


def test_replace_rederives_default_head_width() -> None:
    config = ModelConfig.preset("paper")
    assert config.replace(d_model=128).d_head == 16
    assert config.replace(d_model=128, d_head=8).d_head == 8
    with pytest.raises(ConfigError, match="unknown ModelConfig field"):
        config.replace(width=3)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"n_layers": 0}, "n_layers"),
        ({"n_heads": True}, "n_heads"),
        ({"d_model": 30, "n_heads": 4}, "d_head"),
        ({"positional": "relative"}, "positional"),
        ({"norm": "rms"}, "norm"),
        ({"activation": "tanh"}, "activation"),
        ({"kernel": "flash"}, "kernel"),
        ({"dropout": 1.0}, "dropout"),
        ({"layout": "hybrid-2:g=9"}, "layout"),
        ({"positional": "rope", "d_model": 36, "n_heads": 4}, "d_head"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_invalid_values_name_the_field(changes: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        ModelConfig.from_dict({**ModelConfig.preset("paper").to_dict(), "d_head": None, **changes})


def test_unknown_preset() -> None:
    with pytest.raises(ConfigError, match="preset: unknown model preset 'huge'"):
        ModelConfig.preset("huge")
