"""The gathered-keys kernel (random keys, global tokens) against dense attention and the loop."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.models import ModelConfig, Recognizer, encode_batch, masks
from expressivity.models.attention import alibi_bias, dense_attention, reference_attention
from expressivity.models.gather import gather_attention, gather_plan, gatherable, key_padding
from expressivity.models.layouts import Pattern, parse_layout

PATTERNS = ["R1", "R3", "T1", "T3", "L2+R1+T1", "L3+T2", "D2.2+R2", "B4+R1+T1", "L1+R1+R2",
            "T1+T2"]


def _pattern(spec: str, seed: int = 0) -> Pattern:
    return parse_layout(spec, 1, 1, seed=seed).layers[0][0]


def _qkv(length: int, seed: int, dtype: torch.dtype = torch.float64) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(3, 2, length, 4, generator=gen, dtype=dtype).requires_grad_()
            for _ in range(3)]


def _grads(out: torch.Tensor, inputs: list[torch.Tensor]) -> tuple[torch.Tensor, ...]:
    weights = torch.linspace(-1, 1, out.numel(), dtype=out.dtype).view(out.shape)
    return torch.autograd.grad((out * weights).sum(), inputs)


def _dense_mask(pattern: Pattern, length: int, lengths: torch.Tensor, strict: bool
                ) -> torch.Tensor:
    """What `SelfAttention` gives the dense kernel: sink rule, then keys up to each EOS."""
    mask = pattern.mask(length, strict=strict)[None, None]
    if pattern.causal:
        return mask
    key_ok = torch.arange(length) <= (lengths + 1)[:, None]
    return mask & key_ok[:, None, None, :]


@settings(max_examples=60, deadline=None)
@given(spec=st.sampled_from(PATTERNS), length=st.integers(1, 30), strict=st.booleans(),
       alibi=st.booleans(), seed=st.integers(0, 10**6), data=st.data())
def test_gathered_keys_equal_dense_attention_in_values_and_gradients(
    spec: str, length: int, strict: bool, alibi: bool, seed: int, data: st.DataObject,
) -> None:
    pattern = _pattern(spec, seed % 97)
    words = data.draw(st.lists(st.integers(0, max(0, length - 2)), min_size=3, max_size=3))
    lengths = torch.tensor(words)
    inputs = _qkv(length, seed)
    slopes = torch.tensor([0.5, 0.125], dtype=torch.float64) if alibi else None
    bias = None if slopes is None else alibi_bias(slopes, *masks.grid(length))
    mask = _dense_mask(pattern, length, lengths, strict)
    dense = dense_attention(*inputs, mask, bias, check_empty=False)
    plan = gather_plan(pattern, length, strict=strict)
    out = gather_attention(*inputs, plan, key_padding(lengths, length), slopes=slopes)
    assert torch.isfinite(out).all()
    assert torch.allclose(out, dense, atol=1e-10)
    for a, b in zip(_grads(out, inputs), _grads(dense, inputs), strict=True):
        assert torch.allclose(a, b, atol=1e-10)


@pytest.mark.parametrize("spec", ["R2", "L2+R1+T1"])
def test_gathered_keys_equal_the_loop_reference(spec: str) -> None:
    pattern, length = _pattern(spec), 9
    lengths = torch.tensor([7, 3, 0])
    inputs = _qkv(length, 1)
    ref = reference_attention(*inputs, _dense_mask(pattern, length, lengths, True))
    out = gather_attention(*inputs, gather_plan(pattern, length), key_padding(lengths, length))
    assert torch.allclose(out, ref, atol=1e-10)


def test_plan_memory_is_linear_in_length() -> None:
    pattern = _pattern("L3+R2+T1")
    for length in (1024, 4096):
        plan = gather_plan(pattern, length)
        assert plan.keys.shape == (length, 4 + 2 + 1 + 1)
        assert plan.hub_ok is not None and plan.hub_ok.shape == (1, length)
    # every allowed key of a row is listed exactly once
    length = 200
    plan = gather_plan(pattern, length)
    listed = torch.zeros(length, length, dtype=torch.long)
    rows = torch.arange(length)[:, None].expand_as(plan.keys)
    listed.index_put_((rows[plan.ok], plan.keys[plan.ok]), torch.tensor(1), accumulate=True)
    want = pattern.mask(length)
    assert torch.equal(listed[1:].bool(), want[1:]) and listed.max() == 1


def test_gatherable_patterns_and_errors() -> None:
    assert gatherable(_pattern("R2")) and gatherable(_pattern("L2+T1"))
    assert not gatherable(_pattern("G+R1")) and not gatherable(_pattern("L2"))
    with pytest.raises(ValueError, match="global atom"):
        gather_plan(_pattern("L2"), 8)
    plan = gather_plan(_pattern("T1"), 8)
    with pytest.raises(ValueError, match="length 8"):
        gather_attention(*_qkv(9, 0), plan, key_padding(torch.tensor([1, 2, 3]), 9))
    with pytest.raises(ValueError, match="key-padding"):
        gather_attention(*_qkv(8, 0), plan)


@pytest.mark.parametrize("layout", ["longformer-2-1", "bigbird-2-1-2", "2xG,L1+T1,R1", "R2"])
def test_sparse_kernel_equals_dense_in_the_model(layout: str) -> None:
    rng = np.random.default_rng(0)
    tokens, lengths = encode_batch([rng.integers(0, 3, size=n) for n in (30, 17, 0, 25)], 3)

    def model(**overrides: object) -> Recognizer:
        config = ModelConfig.preset("cpu", layout=layout, positional="alibi", **overrides)
        return Recognizer(config, 3, seed=0).double()

    dense, sparse = model(kernel="dense"), model(kernel="sparse")
    assert torch.allclose(dense(tokens, lengths), sparse(tokens, lengths), atol=1e-10)
    auto = model(banded_min_len=8)  # "auto" switches to the linear-memory kernels at 8 tokens
    got, want = auto(tokens, lengths), dense(tokens, lengths)
    assert torch.allclose(got, want, atol=1e-10)
    got.sum().backward()
    want.sum().backward()
    for (name, a), b in zip(auto.named_parameters(), dense.parameters(), strict=True):
        assert a.grad is not None and b.grad is not None
        assert torch.allclose(a.grad, b.grad, atol=1e-9), name
