"""RoPE's certified range: the certificate against a brute-force float computation of the head."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from expressivity.cli import main
from expressivity.errors import ConfigError
from expressivity.models.rope_range import rope_frequencies, rope_range

_TORCH = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


def float_head_scores(base: float, dim: int, dtype: str, k: int, last: int) -> torch.Tensor:
    """Scores (n, m), 0 ≤ n, m ≤ ``last``, of the Y^k RoPE head computed in ``dtype``: keys
    (1, 0) per pair and queries (cos kθ, −sin kθ) rotated by their positions as `apply_rope`
    rotates (angles, cos/sin, products and the dot product all in ``dtype``)."""
    t = _TORCH[dtype]
    theta = torch.tensor(rope_frequencies(base, dim, dtype), dtype=t)
    angle = torch.arange(last + 1).to(t)[:, None] * theta[None, :]
    cos, sin = angle.cos(), angle.sin()
    offset = torch.tensor(float(k), dtype=t) * theta
    x1, x2 = offset.cos(), -offset.sin()
    queries = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)
    keys = torch.cat([cos, sin], dim=-1)
    return (queries @ keys.T).to(torch.float64)


def first_failure(base: float, dim: int, dtype: str, k: int, last: int) -> int | None:
    """The first query index n ≤ ``last`` whose target n − k is not the strict argmax."""
    scores = float_head_scores(base, dim, dtype, k, last)
    for n in range(k, last + 1):
        row = scores[n, :n]
        target = row[n - k]
        others = torch.cat([row[: n - k], row[n - k + 1 :]])
        if len(others) and not bool((others < target).all()):
            return n
    return None


@pytest.mark.parametrize(
    ("base", "dim", "dtype", "k"),
    [
        (10.0, 4, "float16", 1),
        (100.0, 8, "float16", 2),
        (10.0, 2, "float32", 1),
        (10.0, 4, "float32", 3),
        (10.0, 4, "bfloat16", 1),
        (10.0, 2, "bfloat16", 2),
    ],
)
def test_the_float_head_is_exact_over_the_certified_range(
    base: float, dim: int, dtype: str, k: int
) -> None:
    r = rope_range(base, dim, dtype, k, limit=20_000)
    assert 0 <= r.n_max < r.limit and r.failing_offset is not None
    assert r.gap > r.error  # the certificate, as reported
    # every query index up to the EOS of a word of length N_max picks exactly its target
    assert first_failure(base, dim, dtype, k, r.n_max + 1) is None


def test_the_certificate_is_sufficient_and_fails_where_floats_tie() -> None:
    # bfloat16, base 10, D = 2: one frequency θ = 1 in 8 significand bits: angles soon tie
    r = rope_range(10.0, 2, "bfloat16", 1, limit=5_000)
    failure = first_failure(10.0, 2, "bfloat16", 1, 400)
    assert failure is not None and failure > r.n_max + 1


def test_range_shrinks_with_precision_and_is_monotone_in_the_limit() -> None:
    f32 = rope_range(10.0, 4, "float32")
    f16 = rope_range(10.0, 4, "float16")
    assert f16.n_max < f32.n_max
    capped = rope_range(10000.0, 64, "float32", limit=1_000)
    assert capped.reached_limit and capped.n_max == 1_000
    assert rope_range(10000.0, 64, "float32", limit=2_000).n_max == 2_000


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"base": 1.0}, "base"),
        ({"dim": 5}, "dim"),
        ({"dtype": "float8"}, "dtype"),
        ({"k": 0}, "k"),
        ({"limit": 0}, "limit"),
    ],
)
def test_bad_arguments_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        rope_range(**kwargs)
    assert str(info.value).startswith(f"{field}:")


def test_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rope-range", "--base", "10", "--dim", "4", "--dtype", "float16"]) == 0
    out = capsys.readouterr().out
    assert "N_max = 17" in out
    assert main(["rope-range", "--base", "10", "--dim", "4", "--json", "--k", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n_max"] == rope_range(10.0, 4, "float32", 2).n_max and data["k"] == 2
    assert main(["rope-range", "--dim", "3"]) == 2
    assert "dim:" in capsys.readouterr().err
    assert np.isfinite(data["gap"])
