"""Recognizers with SSM heads: EOS-row path vs full pass, padding, seeds, scans, float64."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from expressivity.errors import ConfigError
from expressivity.models.config import ModelConfig
from expressivity.models.ensemble import EnsembleRecognizer
from expressivity.models.tokens import encode_batch
from expressivity.models.transformer import Recognizer
from tests.small_models import small_config

LAYOUTS = ["mamba", "mamba-signed", "s4d", "SDC", "deltanet", "samba-1", "jamba-2",
           "2xM,2xL1", "2xMS,1xG,1xL2"]


def _batch(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    rng = np.random.default_rng(seed)
    words = [rng.integers(0, 3, n) for n in (0, 1, 5, 9, 3)]
    return encode_batch(words, 3)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_eos_rows_match_the_full_pass(layout: str) -> None:
    model = Recognizer(small_config(layout), 3, seed=1).double()
    tokens, lengths = _batch()
    full = model.forward_hidden(tokens, lengths)[-1][torch.arange(5), lengths + 1]
    torch.testing.assert_close(model(tokens, lengths), model.classify(full))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_word_alone_and_in_a_padded_batch_agree(layout: str) -> None:
    model = Recognizer(small_config(layout), 3, seed=2).double()
    tokens, lengths = _batch()
    batch = model(tokens, lengths)
    for i in range(5):
        alone = model(tokens[i : i + 1, : int(lengths[i]) + 2], lengths[i : i + 1])
        torch.testing.assert_close(alone, batch[i : i + 1])


@pytest.mark.parametrize("layout", ["mamba", "mamba-signed", "s4d", "SDC"])
def test_scans_give_one_model(layout: str) -> None:
    tokens, lengths = _batch(3)
    models = [Recognizer(small_config(layout, ssm_scan=how), 3, seed=4).double()
              for how in ("chunked", "parallel", "sequential", "fused")]
    outs = [m(tokens, lengths) for m in models]
    for out in outs[1:]:
        torch.testing.assert_close(out, outs[0])
    ref, fused = (torch.autograd.grad(out.square().sum(), list(m.parameters()), allow_unused=True)
                  for m, out in ((models[2], outs[2]), (models[3], outs[3])))
    for g_ref, g_fused in zip(ref, fused, strict=True):  # the hand-written gradient is autograd's
        assert (g_ref is None) == (g_fused is None)
        if g_ref is not None:
            torch.testing.assert_close(g_fused, g_ref, rtol=1e-9, atol=1e-12)


def test_seeds_make_the_weights() -> None:
    a, b = (Recognizer(small_config("2xMS,2xL1"), 3, seed=5) for _ in range(2))
    c = Recognizer(small_config("2xMS,2xL1"), 3, seed=6)
    sa, sb, sc = (m.state_dict() for m in (a, b, c))
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    mixer_keys = [k for k in sa if ".mixers." in k]
    assert mixer_keys and any(not torch.equal(sa[k], sc[k]) for k in mixer_keys)


def test_float64_mode() -> None:
    model = Recognizer(small_config("mamba", dtype="float64"), 3, seed=0)
    assert all(p.dtype == torch.float64 for p in model.parameters())
    tokens, lengths = _batch()
    assert model(tokens, lengths).dtype == torch.float64
    with pytest.raises(ConfigError, match="dtype"):
        small_config("mamba", dtype="bfloat16")


def test_ssm_heads_learn() -> None:
    """A gradient reaches every mixer parameter."""
    model = Recognizer(small_config("2xM,2xL1"), 3, seed=0)
    tokens, lengths = _batch()
    model(tokens, lengths).square().sum().backward()
    grads = [p.grad for n, p in model.named_parameters() if ".mixers." in n]
    assert grads and all(g is not None and bool(g.abs().sum() > 0) for g in grads)


def test_ensembles_refuse_ssm_heads() -> None:
    with pytest.raises(ConfigError, match="SSM heads"):
        EnsembleRecognizer([small_config("mamba"), small_config("mamba")], 3, seeds=[0, 1])


def test_the_configured_step_size_range_reaches_every_mixer_and_is_checked() -> None:
    from expressivity.models.ssm.init import DT_RANGE

    config = ModelConfig(n_layers=2, d_model=16, n_heads=2, d_ff=32, layout="jamba-2",
                         ssm_dt_min=1e-4, ssm_dt_max=1e-2)
    model = Recognizer(config, alphabet_size=2, seed=0)
    mixers = [m for block in model.blocks for m in block.attn.mixers]
    assert mixers and all(m.dt_range == (1e-4, 1e-2) for m in mixers)
    default = Recognizer(config.replace(ssm_dt_min=DT_RANGE[0], ssm_dt_max=DT_RANGE[1]),
                         alphabet_size=2, seed=0)
    assert all(m.dt_range == DT_RANGE for b in default.blocks for m in b.attn.mixers)
    # the default is the model without the fields: the same weights as before they existed
    plain = Recognizer(ModelConfig(n_layers=2, d_model=16, n_heads=2, d_ff=32,
                                   layout="jamba-2"), alphabet_size=2, seed=0)
    for (k, p), q in zip(default.state_dict().items(), plain.state_dict().values(), strict=True):
        assert torch.equal(p, q), k
    for bad, match in (({"ssm_dt_min": 1e-5}, "dt_init_floor"), ({"ssm_dt_max": 20.0}, "to 10"),
                       ({"ssm_dt_min": 0.2, "ssm_dt_max": 0.1}, "exceeds ssm_dt_max"),
                       ({"ssm_dt_min": True}, "must be a number")):
        with pytest.raises(ConfigError, match=match):
            ModelConfig(layout="mamba", **bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("layout", ["mamba", "mamba-signed", "s4d", "jamba-2", "sdc"])
def test_a_slow_first_state_changes_only_its_initial_a(layout: str) -> None:
    from expressivity.models.ssm.init import s4d_magnitudes

    spelled = "2xSDC" if layout == "sdc" else layout
    config = ModelConfig(n_layers=2, d_model=16, n_heads=2, d_ff=32, layout=spelled)
    plain = Recognizer(config, alphabet_size=2, seed=0)
    slow = Recognizer(config.replace(ssm_slow_scale=1e-3), alphabet_size=2, seed=0)
    mixers = [m for block in slow.blocks for m in block.attn.mixers]
    assert mixers and all(m.slow_scale == 1e-3 for m in mixers)
    for (k, p), q in zip(plain.state_dict().items(), slow.state_dict().values(), strict=True):
        if not k.endswith("A_log"):
            assert torch.equal(p, q), k  # Δ, B, C, D and every other weight as before
            continue
        magnitudes = torch.exp(p)
        assert torch.allclose(torch.exp(q[:, 0]), magnitudes[:, 0] * 1e-3)
        assert torch.equal(q[:, 1:], p[:, 1:])
    # S4D-real's 1..N (Mamba) and S4D-Lin's 1/2: the default is the initialisation before
    assert s4d_magnitudes(4).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert s4d_magnitudes(3, complex_=True).tolist() == [0.5, 0.5, 0.5]
    assert s4d_magnitudes(2, 0.25).tolist() == [0.25, 2.0]


def test_a_slow_first_state_keeps_a_letter_that_s4d_init_forgets() -> None:
    """At Mamba's largest initial Δ (0.1), S4D's first state keeps exp(−0.1·500) of a letter
    after 500 letters; the slow state keeps ≥ 0.95 of it."""
    from expressivity.models.ssm.mixers import DiagonalSSM

    for scale, least, most in ((1.0, 0.0, 1e-20), (1e-3, 0.95, 1.0)):
        ssm = DiagonalSSM(1, 1, d_state=2, expand=1, dt_range=(0.1, 0.1), slow_scale=scale)
        with torch.no_grad():
            kept = ssm.gate()[0, 0] ** 500
        assert least <= float(kept) <= most


def test_the_fast_block_reaches_every_mixer_and_is_checked() -> None:
    config = ModelConfig(n_layers=2, d_model=16, n_heads=2, d_ff=32, layout="jamba-2",
                         ssm_fast_fraction=0.25, ssm_fast_dt_min=2.0, ssm_fast_dt_max=8.0)
    model = Recognizer(config, alphabet_size=2, seed=0)
    mixers = [m for block in model.blocks for m in block.attn.mixers]
    assert mixers and all(m.fast_fraction == 0.25 and m.fast_range == (2.0, 8.0)
                          for m in mixers)
    plain = Recognizer(config.replace(ssm_fast_fraction=0.0), alphabet_size=2, seed=0)
    bare = Recognizer(ModelConfig(n_layers=2, d_model=16, n_heads=2, d_ff=32, layout="jamba-2"),
                      alphabet_size=2, seed=0)
    for (k, p), q in zip(plain.state_dict().items(), bare.state_dict().values(), strict=True):
        assert torch.equal(p, q), k  # a fraction of 0 is the initialisation before the fields
    for bad, match in (({"ssm_fast_fraction": 1.5}, "from 0"),
                       ({"ssm_fast_fraction": -0.1}, "from 0"),
                       ({"ssm_fast_fraction": True}, "must be a number"),
                       ({"ssm_fast_dt_max": 20.0}, "to 10"),
                       ({"ssm_fast_dt_min": 5.0, "ssm_fast_dt_max": 2.0},
                        "exceeds ssm_fast_dt_max")):
        with pytest.raises(ConfigError, match=match):
            ModelConfig(layout="mamba", **bad)  # type: ignore[arg-type]


def test_the_slow_scale_is_checked() -> None:
    for bad, match in (({"ssm_slow_scale": 0.0}, "from 1e-06 to 1"),
                       ({"ssm_slow_scale": 2.0}, "from 1e-06 to 1"),
                       ({"ssm_slow_scale": True}, "must be a number")):
        with pytest.raises(ConfigError, match=match):
            ModelConfig(layout="mamba", **bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("scale", ["log-n", "ssmax"])
def test_length_aware_logits_act_on_jamba_s_global_layer_only(scale: str) -> None:
    # docs/theory.md §9, "Mixers and their hybrids": a 1-local row has one key (factor 0),
    # so samba-1 computes exactly what it computes unscaled; jamba-2's global rows do not.
    rng = np.random.default_rng(3)
    tokens, lengths = encode_batch([rng.integers(0, 3, n) for n in (0, 1, 7, 40, 120)], 3)
    for layout, same in (("samba-1", True), ("jamba-2", False), ("mamba", True)):
        plain, scaled = (Recognizer(small_config(layout, attention_scale=s), 3, seed=4).eval()
                         for s in ("none", scale))
        with torch.no_grad():
            assert torch.equal(plain(tokens, lengths), scaled(tokens, lengths)) is same, layout
