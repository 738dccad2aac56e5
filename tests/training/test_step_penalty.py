"""The step-size penalty: its value against an explicit sum, recording, configs, training."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.errors import ConfigError
from expressivity.models.config import ModelConfig
from expressivity.models.ssm.mixers import SelectiveSSM
from expressivity.models.tokens import encode_batch
from expressivity.models.transformer import Recognizer
from expressivity.training import run_spec, train
from expressivity.training.loop import fit
from expressivity.training.prepare import check_spec, prepare
from expressivity.training.spec import TrainConfig
from expressivity.training.step_penalty import (
    check_step_penalty,
    paying_channels,
    record_step_sizes,
    selective_mixers,
    step_penalty,
)
from tests.small_models import small_model


def _explicit(model: Recognizer, words: list[np.ndarray], cap: float = 0.0) -> float:
    """Σ Δ (min(Δ, cap) with a cap) over every mixer, position 0..n+1 and channel of each word
    run alone, over the count."""
    total, count = 0.0, 0
    for word in words:
        tokens, lengths = encode_batch([word], 3)
        model(tokens, lengths)
        for mixer in selective_mixers(model):
            assert mixer.step_sizes is not None
            delta = mixer.step_sizes[0]  # (n + 2, E): no padding in a batch of one
            assert delta.shape[0] == len(word) + 2
            values = delta.detach().flatten().tolist()
            total += sum(min(v, cap) if cap > 0 else v for v in values)
            count += delta.numel()
            mixer.step_sizes = None
    return total / count


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=5), st.integers(0, 2**16),
       st.sampled_from([0.0, 0.004, 0.01, 1.0]))
def test_the_penalty_is_the_mean_step_size_over_real_positions(lengths: list[int],
                                                               seed: int, cap: float) -> None:
    rng = np.random.default_rng(seed)
    words = [rng.integers(0, 3, n) for n in lengths]
    layout = "jamba-2" if seed % 2 else "mamba-signed" if seed % 3 else "mamba"
    model = small_model(layout, seed % 3)
    record_step_sizes(model)
    tokens, batch_lengths = encode_batch(words, 3)
    model(tokens, batch_lengths)
    batched = float(step_penalty(model, batch_lengths, cap=cap).detach())
    assert all(m.step_sizes is None for m in selective_mixers(model))  # taken, not kept
    assert math.isclose(batched, _explicit(model, words, cap), rel_tol=1e-9)


def test_a_step_size_above_the_cap_costs_the_cap_and_has_no_gradient() -> None:
    model = small_model("mamba-signed")
    record_step_sizes(model)
    tokens, lengths = encode_batch([np.array([0, 1, 2, 1]), np.array([2])], 3)
    with torch.no_grad():
        for mixer in selective_mixers(model):
            mixer.dt_proj.bias.fill_(5.0)  # Δ ≈ 5 at every position: a flip, not a memory
    model(tokens, lengths)
    deltas = [m.step_sizes for m in selective_mixers(model)]
    assert all(d is not None and float(d.detach().min()) > 1.0 for d in deltas)
    value = step_penalty(model, lengths, cap=1.0)
    assert float(value.detach()) == pytest.approx(1.0, abs=1e-12)
    value.backward()
    for mixer in selective_mixers(model):
        grad = mixer.dt_proj.bias.grad
        assert grad is None or float(grad.abs().sum()) == 0.0
    model.zero_grad()
    model(tokens, lengths)  # the uncapped penalty pulls the same step sizes down
    step_penalty(model, lengths).backward()
    grad = selective_mixers(model)[0].dt_proj.bias.grad
    assert grad is not None and float(grad.min()) > 0


def test_nothing_is_kept_unless_asked_or_outside_training() -> None:
    model = small_model()
    tokens, lengths = encode_batch([np.array([0, 1, 2])], 3)
    model(tokens, lengths)
    assert all(m.step_sizes is None for m in selective_mixers(model))
    record_step_sizes(model)
    model.eval()
    model(tokens, lengths)
    assert all(m.step_sizes is None for m in selective_mixers(model))
    with pytest.raises(RuntimeError, match="kept no step sizes"):
        step_penalty(model, lengths)


def test_the_penalty_has_a_gradient_on_the_step_size_weights_only_upstream() -> None:
    model = small_model()
    record_step_sizes(model)
    tokens, lengths = encode_batch([np.array([0, 1, 2, 1]), np.array([2])], 3)
    model(tokens, lengths)
    step_penalty(model, lengths).backward()
    mixer = selective_mixers(model)[-1]
    assert isinstance(mixer, SelectiveSSM)
    assert mixer.dt_proj.bias.grad is not None and float(mixer.dt_proj.bias.grad.abs().sum()) > 0
    assert mixer.out_proj.weight.grad is None  # Δ does not depend on what the mixer writes
    assert model.classifier.weight.grad is None


@pytest.mark.parametrize("layout", ["global", "s4d", "deltanet", "samba-1", "mamba",
                                    "mamba-signed", "jamba-2"])
def test_a_penalty_needs_a_selective_mixer(layout: str) -> None:
    config = ModelConfig.from_dict({"layout": layout})
    check_step_penalty(0.0, config)  # nothing asked, nothing to check
    if layout in ("global", "s4d", "deltanet"):
        with pytest.raises(ConfigError, match=f"layout '{layout}' has none"):
            check_step_penalty(0.5, config)
        with pytest.raises(ConfigError, match="step_penalty"):
            check_spec(run_spec("LAST", layout, profile="tiny", step_penalty=0.5))
    else:
        check_step_penalty(0.5, config)


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf")])
def test_a_bad_penalty_is_a_config_error(bad: float) -> None:
    with pytest.raises(ConfigError, match="step_penalty"):
        TrainConfig(step_penalty=bad)
    with pytest.raises(ConfigError, match="step_penalty_cap"):
        TrainConfig(step_penalty=1.0, step_penalty_cap=bad)


def test_a_cap_without_a_penalty_is_a_config_error() -> None:
    config = ModelConfig.from_dict({"layout": "mamba"})
    with pytest.raises(ConfigError, match="qualifies a penalty that is off"):
        check_step_penalty(0.0, config, 1.0)
    with pytest.raises(ConfigError, match="qualifies a penalty that is off"):
        check_spec(run_spec("LAST", "mamba", profile="tiny", step_penalty_cap=1.0))
    check_step_penalty(1.0, config, 1.0)


def test_the_penalty_enters_the_run_id_only_when_positive() -> None:
    spec = run_spec("LAST", "mamba", profile="tiny")
    assert spec.with_train(step_penalty=0.0).run_id == spec.run_id
    assert "step_penalty" not in str(spec.run_id)
    assert spec.with_train(step_penalty=0.5).run_id != spec.run_id
    penalized = spec.with_train(step_penalty=0.5)
    assert penalized.with_train(step_penalty_cap=0.0).run_id == penalized.run_id
    assert penalized.with_train(step_penalty_cap=1.0).run_id != penalized.run_id


def _mean_step(model: torch.nn.Module) -> float:
    rng = np.random.default_rng(7)
    tokens, lengths = encode_batch([rng.integers(0, 2, n) for n in range(1, 13)], 2)
    model.train()
    record_step_sizes(model)
    with torch.no_grad():
        model(tokens, lengths)
        return float(step_penalty(model, lengths))


def test_training_with_the_penalty_shrinks_the_step_sizes() -> None:
    spec = run_spec("LT-1", "mamba", profile="tiny", steps=30, patience=0)
    plain = fit(prepare(spec)).model
    penalized = fit(prepare(spec.with_train(step_penalty=10.0))).model
    assert _mean_step(penalized) < 0.5 * _mean_step(plain)


@pytest.mark.parametrize("cap", [0.0, 1.0])
def test_a_penalized_run_completes_and_records_the_data_loss(cap: float) -> None:
    spec = run_spec("LAST", "mamba", profile="tiny", steps=20, patience=0, step_penalty=1.0,
                    step_penalty_cap=cap)
    record = train(spec, quiet=True)
    assert record.status == "completed", record.error
    losses = [h["loss"] for h in record.extra["history"]]
    assert losses and all(math.isfinite(v) and v >= 0 for v in losses)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 300), st.floats(0.001, 1.0))
def test_the_paying_channels_are_the_ceiling_of_the_fraction(n: int, fraction: float) -> None:
    k = paying_channels(n, fraction)
    assert 1 <= k <= n
    assert k / n >= fraction - 1e-9  # at least the fraction pays
    assert k == 1 or (k - 1) / n < fraction - 1e-12  # and one fewer would be too few


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=4), st.integers(0, 2**16),
       st.sampled_from([0.25, 0.5, 0.75]), st.sampled_from([0.0, 0.01]))
def test_a_fraction_of_the_channels_pays_the_mean_over_those_channels(
        lengths: list[int], seed: int, fraction: float, cap: float) -> None:
    rng = np.random.default_rng(seed)
    words = [rng.integers(0, 3, n) for n in lengths]
    model = small_model("mamba-signed" if seed % 2 else "jamba-2", seed % 3)
    record_step_sizes(model)
    tokens, batch_lengths = encode_batch(words, 3)
    model(tokens, batch_lengths)
    batched = float(step_penalty(model, batch_lengths, cap=cap, channels=fraction).detach())
    total, count = 0.0, 0
    for word in words:  # each word alone, its Δ summed by hand over the first channels
        tokens, one = encode_batch([word], 3)
        model(tokens, one)
        for mixer in selective_mixers(model):
            assert mixer.step_sizes is not None
            k = paying_channels(mixer.d_inner, fraction)
            values = mixer.step_sizes[0, :, :k].detach().flatten().tolist()
            total += sum(min(v, cap) if cap > 0 else v for v in values)
            count += len(values)
            mixer.step_sizes = None
    assert math.isclose(batched, total / count, rel_tol=1e-9)


def test_the_free_channels_own_step_size_weights_get_no_gradient_from_the_penalty() -> None:
    model = small_model("mamba-signed")
    record_step_sizes(model)
    tokens, lengths = encode_batch([np.array([0, 1, 2, 1]), np.array([2])], 3)
    model(tokens, lengths)
    step_penalty(model, lengths, channels=0.5).backward()
    first, last = selective_mixers(model)
    for mixer in (first, last):
        k = paying_channels(mixer.d_inner, 0.5)
        assert 0 < k < mixer.d_inner
        bias = mixer.dt_proj.bias.grad
        assert bias is not None and float(bias[:k].min()) > 0  # the paying ones pulled down
    k = paying_channels(last.d_inner, 0.5)
    bias, weight = last.dt_proj.bias.grad, last.dt_proj.weight.grad
    assert bias is not None and weight is not None
    assert float(bias[k:].abs().max()) == 0.0  # the last mixer's free channels: untouched
    assert float(weight[k:].abs().max()) == 0.0
    # an earlier mixer's free channels reach the penalty only through what they write into
    # a later mixer's paying step sizes (docs/theory.md §19.7): a path, so a gradient
    k = paying_channels(first.d_inner, 0.5)
    assert first.dt_proj.bias.grad is not None
    assert float(first.dt_proj.bias.grad[k:].abs().max()) > 0.0


def test_a_channel_fraction_is_checked_and_enters_the_run_id_below_1() -> None:
    for bad in (0.0, -0.5, 1.5, float("nan")):
        with pytest.raises(ConfigError, match="step_penalty_channels"):
            TrainConfig(step_penalty=1.0, step_penalty_channels=bad)
    config = ModelConfig.from_dict({"layout": "mamba"})
    with pytest.raises(ConfigError, match="leave step_penalty_channels at 1"):
        check_step_penalty(0.0, config, channels=0.5)
    with pytest.raises(ConfigError, match="qualifies a penalty that is off"):
        check_spec(run_spec("LAST", "mamba", profile="tiny", step_penalty_channels=0.5))
    check_step_penalty(1.0, config, channels=0.5)
    spec = run_spec("LAST", "mamba", profile="tiny", step_penalty=1.0)
    assert spec.with_train(step_penalty_channels=1.0).run_id == spec.run_id
    assert spec.with_train(step_penalty_channels=0.5).run_id != spec.run_id


def test_a_run_with_free_channels_trains_otherwise_than_one_where_all_pay() -> None:
    spec = run_spec("LAST", "mamba", profile="tiny", steps=10, patience=0, eval_every=5,
                    step_penalty=10.0)
    every = train(spec, quiet=True)
    half = train(spec.with_train(step_penalty_channels=0.5), quiet=True)
    assert every.status == half.status == "completed", (every.error, half.error)
    assert every.extra["history"][0]["step"] == half.extra["history"][0]["step"] == 5
    assert every.extra["history"] != half.extra["history"]


def test_a_penalized_run_never_trains_in_an_ensemble() -> None:
    """An ensemble's step takes the data loss only (`training.ensemble_step`). That is safe
    while ensembles refuse SSM heads, which every penalty needs (`check_step_penalty`), so a
    sweep trains penalized runs one by one; this fails if ensembles ever fold mixers without
    the penalty."""
    from expressivity.training.ensemble import train_ensemble

    penalized = [run_spec("LAST", "mamba-signed", profile="tiny", seed=s, step_penalty=1.0)
                 for s in (0, 1)]
    with pytest.raises(ConfigError, match="ensembles fold attention heads only"):
        train_ensemble(penalized, quiet=True)
