"""Dense and banded kernels against the explicit-loop reference: values and gradients."""

from __future__ import annotations

import pytest
import torch

from expressivity.models import masks
from expressivity.models.attention import (
    alibi_bias,
    band_plan,
    banded_attention,
    dense_attention,
    reference_attention,
)
from expressivity.models.layouts import parse_layout

PATTERNS = ["G", "L1", "L2", "L4", "D2.3", "B3", "R2", "T2", "L2+R1+T1", "B4+D1.5"]
LENGTHS = [2, 5, 13]


def qkv(length: int, *, seed: int = 0, dtype: torch.dtype = torch.float64) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(2, 2, length, 4, generator=gen, dtype=dtype).requires_grad_()
            for _ in range(3)]


def grads(out: torch.Tensor, inputs: list[torch.Tensor]) -> tuple[torch.Tensor, ...]:
    weights = torch.linspace(-1, 1, out.numel(), dtype=out.dtype).view(out.shape)
    return torch.autograd.grad((out * weights).sum(), inputs)


def assert_close(a: torch.Tensor, b: torch.Tensor, tol: float = 1e-5) -> None:
    assert torch.isfinite(a).all()
    assert (a - b).abs().max().item() < tol


@pytest.mark.parametrize("spec", PATTERNS)
@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("alibi", [False, True])
def test_kernels_match_reference(spec: str, strict: bool, alibi: bool) -> None:
    pattern = parse_layout(spec, 1, 1).layers[0][0]
    slopes = torch.tensor([0.5, 0.125], dtype=torch.float64) if alibi else None
    for length in LENGTHS:
        inputs = qkv(length)
        mask = pattern.mask(length, strict=strict)
        bias = None if slopes is None else alibi_bias(slopes, *masks.grid(length))
        ref = reference_attention(*inputs, mask, bias)
        ref_grads = grads(ref, inputs)
        dense = dense_attention(*inputs, mask, bias)
        assert_close(dense, ref)
        for a, b in zip(grads(dense, inputs), ref_grads, strict=True):
            assert_close(a, b)
        if pattern.band is None:
            continue

        def allowed(n: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
            return pattern.allowed(n, m, strict=strict)

        for block in (None, 1, max(pattern.band, 1), pattern.band + 3):
            plan = band_plan(length, pattern.band, allowed, block_size=block)
            out = banded_attention(*inputs, plan, slopes=slopes)
            assert_close(out, ref)
            for a, b in zip(grads(out, inputs), ref_grads, strict=True):
                assert_close(a, b)


@pytest.mark.parametrize("spec", ["L1", "L4", "L40", "D3.4", "B16"])
def test_banded_equals_dense_on_long_inputs_float32(spec: str) -> None:
    pattern = parse_layout(spec, 1, 1).layers[0][0]
    assert pattern.band is not None
    length = 300
    inputs = qkv(length, seed=1, dtype=torch.float32)
    dense = dense_attention(*inputs, pattern.mask(length))
    plan = band_plan(length, pattern.band, pattern.allowed)
    banded = banded_attention(*inputs, plan)
    assert_close(banded, dense)
    for a, b in zip(grads(banded, inputs), grads(dense, inputs), strict=True):
        assert_close(a, b)


def test_band_plan_memory_is_linear() -> None:
    def allowed(n: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        return masks.local_allowed(n, m, 64)

    plan = band_plan(4096, 64, allowed)
    assert plan.ok.numel() <= 4096 * 3 * 64


def test_fully_masked_rows_give_zeros_not_nan() -> None:
    inputs = qkv(4)
    mask = torch.zeros(4, 4, dtype=torch.bool)
    mask[2, :2] = True
    out = dense_attention(*inputs, mask)
    ref = reference_attention(*inputs, mask)
    assert_close(out, ref)
    assert out[:, :, [0, 1, 3]].abs().max() == 0
    for a, b in zip(grads(out, inputs), grads(ref, inputs), strict=True):
        assert_close(a, b)
    bias = torch.zeros(4, 4, dtype=torch.float64)
    assert torch.isfinite(dense_attention(*inputs, mask, bias)).all()


def test_band_plan_rejects_wrong_length() -> None:
    plan = band_plan(5, 1, lambda n, m: m < n)
    with pytest.raises(ValueError, match="length 5"):
        banded_attention(*qkv(6), plan)
