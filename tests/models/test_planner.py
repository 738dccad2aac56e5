"""The head planner: every plan equals explicit-loop attention; plans are shared and exact."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.models import ModelConfig, Recognizer, encode_batch, masks
from expressivity.models.attend import attend, attend_rows
from expressivity.models.attention import alibi_bias, reference_attention
from expressivity.models.layouts import Pattern, parse_layout
from expressivity.models.planner import PlanKey, plan_heads
from expressivity.models.positions import alibi_slopes

#: One layer each: dense, banded and gathered-key patterns, causal and not, mixed in a layer.
LAYERS = ["G", "L2", "D2.2", "B3", "L1+R2", "L1+T1", "2xG,1xL2,1xL1+R1+T2", "2xB2,2xL3+T1"]


def _patterns(layer: str) -> tuple[Pattern, ...]:
    return parse_layout(layer, 1, 4, seed=5).layers[0]


def _reference(key: PlanKey, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
               lengths: torch.Tensor, scale: torch.Tensor | None) -> torch.Tensor:
    """Loop attention with each head's mask (sink rule), keys up to each row's EOS for
    non-causal heads, ALiBi and the length scale."""
    t_sz = key.length
    key_ok = torch.arange(t_sz) <= (lengths + 1)[:, None]  # (B, T)
    rows = []
    for p in key.patterns:
        mask = p.mask(t_sz, strict=key.strict)[None]
        rows.append(mask & key_ok[:, None] if not p.causal else mask.expand(len(lengths), -1, -1))
    mask = torch.stack(rows, dim=1)  # (B, H, T, T)
    bias = alibi_bias(alibi_slopes(key.n_heads), *masks.grid(t_sz)) if key.alibi else None
    return reference_attention(q, k, v, mask, bias, scale)


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("kernel", ["auto", "dense", "banded", "sparse"])
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**16), length=st.integers(1, 14), alibi=st.booleans(),
       strict=st.booleans(), scaled=st.sampled_from(["none", "log-n", "ssmax"]))
def test_every_plan_equals_loop_attention(layer: str, kernel: str, seed: int, length: int,
                                          alibi: bool, strict: bool, scaled: str) -> None:
    key = PlanKey(_patterns(layer), length, "cpu", strict, alibi, kernel, banded_min_len=8)
    plan = plan_heads(key)
    assert sorted(h for g in plan.groups for h in g.heads) == list(range(4))
    gen = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(3, 4, length, 4, generator=gen) for _ in range(3))
    lengths = torch.randint(0, max(length - 1, 1), (3,), generator=gen).clamp(max=length - 2)
    lengths = lengths.clamp(min=0) if length >= 2 else torch.zeros(3, dtype=torch.long)
    s = torch.rand(4, generator=gen) + 0.5 if scaled == "ssmax" else None
    out = attend(q, k, v, plan, lengths, scale_mode=scaled, scale=s)
    ref_scale = None if scaled == "none" else (s if s is not None else torch.ones(4))
    ref = _reference(key, q, k, v, lengths, ref_scale)
    for b, n in enumerate(lengths.tolist()):  # the real rows: BOS .. EOS
        real = min(n + 2, length)
        torch.testing.assert_close(out[b, :, :real], ref[b, :, :real], rtol=1e-5, atol=1e-5)
    rows = (lengths + 1).clamp(max=length - 1)
    one = attend_rows(q[torch.arange(3), :, rows].unsqueeze(2), k, v, key, lengths, rows,
                      scale_mode=scaled, scale=s)
    torch.testing.assert_close(one[:, :, 0], out[torch.arange(3), :, rows], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("kernel", "length", "kinds"), [
    ("auto", 7, {"dense"}), ("auto", 8, {"dense", "banded", "gather"}),
    ("dense", 40, {"dense"}), ("banded", 7, {"dense", "banded"}),
    ("sparse", 7, {"dense", "banded", "gather"}),
])
def test_the_kernel_setting_chooses_the_group_kinds(kernel: str, length: int,
                                                     kinds: set[str]) -> None:
    patterns = _patterns("1xG,1xL2,1xL1+R1,1xL1+T1")
    plan = plan_heads(PlanKey(patterns, length, kernel=kernel, banded_min_len=8))
    assert {g.kind for g in plan.groups} == kinds
    dense = [g for g in plan.groups if g.kind == "dense"]
    assert len(dense) <= 1  # every dense head shares one call


def test_equal_keys_share_one_plan() -> None:
    a = PlanKey(_patterns("L2"), 9, kernel="banded")
    b = PlanKey(_patterns("L2"), 9, kernel="banded")
    assert a == b and plan_heads(a) is plan_heads(b)
    assert plan_heads(PlanKey(_patterns("L2"), 10, kernel="banded")) is not plan_heads(a)


def test_per_head_lengths_equal_per_row_lengths_bitwise() -> None:
    """The ensemble passes every folded head its member's lengths (B, H): with equal lengths
    per head that is bitwise the single model's (B,) call."""
    gen = torch.Generator().manual_seed(0)
    key = PlanKey(_patterns("2xG,1xL2,1xL1+R1+T2"), 11, kernel="sparse", alibi=True)
    q, k, v = (torch.randn(2, 4, 11, 4, generator=gen) for _ in range(3))
    lengths = torch.tensor([3, 9])
    one = attend(q, k, v, plan_heads(key), lengths)
    per_head = attend(q, k, v, plan_heads(key), lengths[:, None].expand(2, 4))
    assert torch.equal(one, per_head)


def test_folded_members_repeat_the_alibi_slopes() -> None:
    patterns = _patterns("G") * 2  # two members of four heads
    key = PlanKey(patterns, 5, alibi=True, member_heads=4)
    slopes = key.slopes(tuple(range(8)))
    assert slopes is not None and torch.equal(slopes, alibi_slopes(4).repeat(2))


def test_a_plan_refuses_other_shapes() -> None:
    key = PlanKey(_patterns("G"), 5)
    q = torch.zeros(1, 4, 6, 2)
    with pytest.raises(ValueError, match="plan is for 4 heads x 5 tokens"):
        attend(q, q, q, plan_heads(key), torch.tensor([3]))


@pytest.mark.parametrize("scale", ["log-n", "ssmax"])
@pytest.mark.parametrize("layout", ["longformer-2-1", "bigbird-2-1-1"])
def test_gathered_key_heads_are_length_scaled_like_dense_ones(scale: str, layout: str) -> None:
    """Regression: the gathered-key kernel once skipped the length scaling, so "sparse" and
    long "auto" inputs computed another function than "dense"."""
    words = [torch.randint(0, 2, (n,), generator=torch.Generator().manual_seed(n)).numpy()
             for n in (0, 3, 9, 14)]
    tokens, lengths = encode_batch(words, 2)
    logits = {}
    for kernel in ("dense", "sparse"):
        config = ModelConfig.preset("cpu", layout=layout, kernel=kernel, attention_scale=scale)
        model = Recognizer(config, 2, seed=4)
        with torch.no_grad():
            logits[kernel] = model.forward_hidden(tokens, lengths)[-1]
    for b, n in enumerate(lengths.tolist()):
        torch.testing.assert_close(logits["sparse"][b, : n + 2], logits["dense"][b, : n + 2],
                                   rtol=1e-5, atol=1e-5)
