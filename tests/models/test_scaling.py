"""Length-aware attention (attention_scale): every kernel against the explicit-loop reference."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.models import ModelConfig, Recognizer, attend, encode_batch, masks, scaling
from expressivity.models.attention import band_plan, reference_attention
from expressivity.models.blocks import SelfAttention
from expressivity.models.layouts import parse_layout
from expressivity.models.scaling import (
    SSMAX_INIT,
    band_key_counts,
    mask_key_counts,
    one_key_weight,
)

LAYOUTS = ["global", "local-2", "hybrid-1", "dilated-2-2", "block-3", "longformer-2-1",
           "bigbird-2-1-1"]


def _attention(layout: str, scale: str, kernel: str = "dense") -> SelfAttention:
    config = ModelConfig(n_layers=1, d_model=8, n_heads=2, d_ff=8, layout=layout,
                         attention_scale=scale, kernel=kernel)  # type: ignore[arg-type]
    model = Recognizer(config, 2, seed=3)
    attn = model.blocks[0].attn
    if attn.length_scale is not None:  # distinct s per head, so that the head order matters
        with torch.no_grad():
            attn.length_scale.copy_(torch.tensor([0.7, 2.5]))
    return attn


def _reference(attn: SelfAttention, x: torch.Tensor, lengths: torch.Tensor,
               scale: str) -> torch.Tensor:
    b_sz, t_sz, _ = x.shape
    q, k, v = (attn._split(f(x)) for f in (attn.q, attn.k, attn.v))
    key_ok = torch.arange(t_sz) <= (lengths + 1)[:, None]
    mask = torch.stack([masks.add_sink(p.allowed(*masks.grid(t_sz)) & key_ok[:, None, :])
                        for p in attn.patterns], dim=1)  # (B, H, T, T)
    s = None
    if scale == "log-n":
        s = torch.ones(attn.n_heads)
    elif scale == "ssmax":
        assert attn.length_scale is not None
        s = attn.length_scale.detach()
    out = reference_attention(q, k, v, mask, None, s)
    return attn.o(out.transpose(1, 2).reshape(b_sz, t_sz, -1))


def _batch(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    rng = np.random.default_rng(seed)
    words = [rng.integers(0, 2, n) for n in (0, 1, 3, 9, 14)]
    return encode_batch(words, 2)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("scale", ["none", "log-n", "ssmax"])
@pytest.mark.parametrize("kernel", ["dense", "banded"])
def test_every_kernel_matches_the_reference(layout: str, scale: str, kernel: str) -> None:
    attn = _attention(layout, scale, kernel)
    tokens, lengths = _batch()
    x = torch.randn(tokens.shape[0], tokens.shape[1], 8, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ref = _reference(attn, x, lengths, scale)
        out = attn(x, lengths)
        rows = attn(x, lengths, rows=lengths + 1)[:, 0]
    for b, n in enumerate(lengths.tolist()):  # rows up to each word's EOS (padding ignored)
        torch.testing.assert_close(out[b, : n + 2], ref[b, : n + 2], rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(rows[b], ref[b, n + 1], rtol=1e-5, atol=1e-6)


def test_scaling_changes_the_output_and_none_adds_no_parameter() -> None:
    tokens, lengths = _batch()
    outs = {}
    for scale in ("none", "log-n", "ssmax"):
        config = ModelConfig(n_layers=2, d_model=8, n_heads=2, d_ff=8,
                             attention_scale=scale)  # type: ignore[arg-type]
        model = Recognizer(config, 2, seed=0)
        names = [n for n, _ in model.named_parameters()]
        assert any(n.endswith("length_scale") for n in names) == (scale == "ssmax")
        with torch.no_grad():
            outs[scale] = model(tokens, lengths)
    assert not torch.allclose(outs["none"], outs["log-n"])
    torch.testing.assert_close(outs["ssmax"], outs["log-n"])  # s starts at 1
    assert SSMAX_INIT == 1.0
    default = Recognizer(ModelConfig(n_layers=2, d_model=8, n_heads=2, d_ff=8), 2, seed=0)
    with torch.no_grad():
        assert torch.equal(default(tokens, lengths), outs["none"])  # bitwise the default


def test_ssmax_scales_are_learned() -> None:
    config = ModelConfig(n_layers=1, d_model=8, n_heads=2, d_ff=8, attention_scale="ssmax")
    model = Recognizer(config, 2, seed=0)
    tokens, lengths = _batch()
    model(tokens, lengths).sum().backward()
    grad = model.blocks[0].attn.length_scale.grad  # type: ignore[union-attr]
    assert grad is not None and grad.abs().sum() > 0


@pytest.mark.parametrize(("n", "margin", "s"), [(1, 0.3, 1.0), (10, 2.0, 1.0), (500, 0.5, 3.0)])
def test_one_key_weight_is_the_softmax_of_the_probe(n: int, margin: float, s: float) -> None:
    logits = torch.zeros(n, dtype=torch.float64)
    logits[0] = margin
    for scale, factor in (("none", 1.0), ("log-n", s * math.log(n))):
        weight = torch.softmax(logits * factor, 0)[0].item()
        assert one_key_weight(n, margin, s, scale) == pytest.approx(weight, rel=1e-12)
    assert one_key_weight(10**6, 1.0, 1.5) > one_key_weight(10**3, 1.0, 1.5)  # sΔ > 1: → 1
    assert one_key_weight(10**6, 1.0, 0.5) < one_key_weight(10**3, 1.0, 0.5)  # sΔ < 1: → 0


@pytest.mark.parametrize("language", ["LT-2", "DYCK-(1,1)", "PT-2", "SUFFIX-ab", "PREFIX-a"])
@pytest.mark.parametrize("scale", ["log-n", "ssmax"])
def test_the_construction_stays_exact_with_length_aware_logits(language: str, scale: str) -> None:
    from expressivity.extraction.agreement import check_agreement
    from expressivity.models.construct import construct_language

    cm, source = construct_language(language, attention_scale=scale)  # type: ignore[arg-type]
    assert cm.config.attention_scale == scale
    check = check_agreement(cm.model, source.dfa, up_to=6, n_random=8, max_length=300)
    assert check.agrees, (language, check.first)


@settings(max_examples=40, deadline=None)
@given(spec=st.sampled_from(["L1", "L2", "L4", "D2.3", "B3", "B4+D1.5", "L2+D1.3"]),
       length=st.integers(1, 40), strict=st.booleans(), block=st.sampled_from([None, 1, 3, 8]))
def test_banded_key_counts_equal_the_dense_masks(spec: str, length: int, strict: bool,
                                                 block: int | None) -> None:
    pattern = parse_layout(spec, 1, 1).layers[0][0]
    assert pattern.band is not None

    def allowed(n: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        return pattern.allowed(n, m, strict=strict)

    plan = band_plan(length, pattern.band, allowed, block_size=block)
    dense = mask_key_counts(pattern.mask(length, strict=strict))
    assert torch.equal(band_key_counts(plan).to(dense.dtype), dense)


#: How the scaling docs name each attention kernel of the planner (a new kind must be added).
_KERNEL_NAMES = {"dense": "dense", "encoder": "encoder", "banded": "banded",
                 "gather": "gathered-key"}


def test_the_docs_name_every_attention_kernel_as_scaled() -> None:
    """Each attention kernel the planner runs (`attend.APPLY`, mixers aside) is scaled
    (`test_planner`), and `models.scaling` and the models guide say so for each."""
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "models.md").read_text()
    scaled = guide[guide.index("## Length-aware attention"):]
    for kind in sorted(set(attend.APPLY) - {"mixer"}):
        name = _KERNEL_NAMES[kind]
        assert name in " ".join(str(scaling.__doc__).split()), name
        assert name in " ".join(scaled.split()), name


@pytest.mark.parametrize("layout", ["bigbird-enc-2-1-1", "swin-2", "window-1", "global",
                                    "bigbird-2-2-1", "longformer-2-1"])
def test_a_scale_free_head_never_counts_its_keys(layout: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """`attend._scaled` calls the key count only for a scale: counting an encoder's
    (B, H, T, T) mask was half its evaluation (benchmarks/eval_scale.py); under "log-n" the
    count is read."""
    from tests.small_models import small_config

    words = [np.array(w) for w in ([0, 1, 2, 1], [2], [1, 1, 0, 2, 2, 0, 1], [])]
    tokens, lengths = encode_batch(words, 3)
    calls: list[int] = []
    lazy = attend._scaled

    def counting(q: torch.Tensor, counts: Callable[[], torch.Tensor], *rest: Any
                 ) -> torch.Tensor:
        def counted() -> torch.Tensor:
            calls.append(1)
            return counts()
        return lazy(q, counted, *rest)

    monkeypatch.setattr(attend, "_scaled", counting)
    for scale in ("none", "log-n"):
        calls.clear()
        model = Recognizer(small_config(layout, attention_scale=scale), 3, seed=0).eval()
        with torch.no_grad():
            out = model(tokens, lengths)
        assert torch.isfinite(out).all()
        assert bool(calls) == (scale == "log-n")
