"""Periodic RoPE / sinusoidal encodings: exact periodicity, partial RoPE, config errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from expressivity.errors import ConfigError
from expressivity.models import ModelConfig, Recognizer, encode_batch
from expressivity.models.positions import (
    apply_rope,
    periodic_angles,
    periodic_sinusoidal_table,
)


def test_angles_are_a_lookup_by_residue_at_every_length() -> None:
    periods = (2, 3, 5)
    pos = torch.arange(0, 100_003, 7)
    angles = periodic_angles(pos, periods, pairs=7)
    again = periodic_angles(pos % 30, periods, pairs=7)  # 30 = lcm: the same residues
    assert torch.equal(angles, again)  # bit-identical, whatever the position
    # pair i: period periods[i % 3], frequency 1 + i // 3
    expected = [
        [2 * math.pi * ((p % periods[i % 3]) * (1 + i // 3) % periods[i % 3]) / periods[i % 3]
         for i in range(7)]
        for p in pos.tolist()[:50]
    ]
    assert np.allclose(angles[:50].numpy(), np.array(expected), atol=1e-6)


def test_first_pair_of_a_period_separates_its_residues() -> None:
    for m in (2, 3, 4, 7):
        angle = periodic_angles(torch.arange(m), (m,), pairs=1)[:, 0]
        points = {(round(math.cos(a), 6), round(math.sin(a), 6)) for a in angle.tolist()}
        assert len(points) == m


def test_periodic_sinusoidal_table_repeats_exactly() -> None:
    table = periodic_sinusoidal_table(600, 16, (4, 6))
    assert torch.equal(table[:12], table[12:24]) and torch.equal(table[:12], table[588:600])
    assert not torch.equal(table[0], table[1])


def test_partial_rope_leaves_the_last_channels_alone_and_rotations_are_relative() -> None:
    x = torch.randn(2, 5, 10, dtype=torch.float64)
    pos = torch.arange(5)
    y = apply_rope(x, pos, unrotated=4)
    assert torch.equal(y[..., 6:], x[..., 6:])
    assert torch.allclose(y.norm(dim=-1), x.norm(dim=-1))
    q, k = torch.randn(8, dtype=torch.float64), torch.randn(8, dtype=torch.float64)

    def score(n: int, m: int, **kw: object) -> float:
        qn = apply_rope(q[None], torch.tensor([n]), **kw)[0]  # type: ignore[arg-type]
        km = apply_rope(k[None], torch.tensor([m]), **kw)[0]  # type: ignore[arg-type]
        return float(qn @ km)

    # periodic RoPE: the score depends on (n − m) mod m only, at any distance
    assert score(7, 3, periods=(4,)) == pytest.approx(score(1003, 999, periods=(4,)), abs=1e-12)
    assert score(7, 3, periods=(4,)) == pytest.approx(score(9, 1, periods=(4,)), abs=1e-12)


@pytest.mark.parametrize(
    "overrides",
    [
        {"positional": "periodic-rope", "periods": (2, 3), "rope_unrotated": 2},
        {"positional": "periodic-sinusoidal", "periods": (2,)},
        {"positional": "rope", "rope_unrotated": 4},
    ],
)
def test_models_with_periodic_positions_run_and_are_padding_invariant(overrides: dict) -> None:
    config = ModelConfig.preset("cpu", layout="hybrid-1", **overrides)
    m = Recognizer(config, 3, seed=0).double()
    rng = np.random.default_rng(0)
    sizes = [0, 1, 4, 9]
    tokens, lengths = encode_batch([rng.integers(0, 3, size=n) for n in sizes], 3)
    logits = m(tokens, lengths)
    single = torch.cat(
        [m(tokens[i : i + 1, : sizes[i] + 2], lengths[i : i + 1]) for i in range(len(sizes))]
    )
    assert torch.allclose(logits, single, atol=1e-10)


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"positional": "periodic-rope"}, "periods"),
        ({"positional": "periodic-sinusoidal", "periods": ()}, "periods"),
        ({"positional": "periodic-rope", "periods": (2, 2000)}, "periods[1]"),
        ({"positional": "periodic-rope", "periods": (8,), "max_len": 6}, "periods[0]"),
        ({"positional": "periodic-rope", "periods": (1,)}, "periods[0]"),
        ({"positional": "rope", "periods": (2,)}, "periods"),
        ({"positional": "sinusoidal", "rope_unrotated": 2}, "rope_unrotated"),
        ({"positional": "rope", "rope_unrotated": 7}, "d_head"),  # 8 − 7 channels: odd
        ({"positional": "periodic-rope", "periods": (2,), "rope_unrotated": 8}, "d_head"),
    ],
)
def test_config_errors_name_the_field(overrides: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        ModelConfig.preset("cpu", **overrides)
    assert str(info.value).startswith(f"{field}:")


def test_config_round_trips_through_plain_data() -> None:
    config = ModelConfig.from_dict(
        {"positional": "periodic-rope", "periods": [2, 3], "rope_unrotated": 2}
    )
    assert config.periods == (2, 3)
    assert ModelConfig.from_dict(config.to_dict()) == config


_SWEEP = """
[sweep]
name = "periodic"
profile = "quick"
[axes]
languages = ["EVEN-a-2"]
layouts = ["global"]
"model.positional" = ["none", "periodic-rope", "periodic-sinusoidal"]
[[override]]
where = { "model.positional" = ["periodic-rope", "periodic-sinusoidal"] }
set = { "model.periods" = [PERIOD] }
"""


def test_sweep_specs_select_periodic_encodings() -> None:
    from expressivity.sweeps.grid import expand
    from expressivity.sweeps.spec import parse_sweep

    runs = expand(parse_sweep(_SWEEP.replace("PERIOD", "2")))
    assert [r.model.get("periods") for r in runs] == [None, [2], [2]]
    with pytest.raises(ConfigError, match="periods\\[0\\]: the period 2000 exceeds max_len"):
        expand(parse_sweep(_SWEEP.replace("PERIOD", "2000")))
