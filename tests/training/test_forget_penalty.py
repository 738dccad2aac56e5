"""The step penalty's form "forget": 1 − |gate| against an explicit loop, its shape, configs."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.errors import ConfigError
from expressivity.models.config import ModelConfig
from expressivity.models.tokens import encode_batch
from expressivity.models.transformer import Recognizer
from expressivity.training import run_spec, train
from expressivity.training.prepare import check_spec
from expressivity.training.spec import TrainConfig
from expressivity.training.step_penalty import (
    check_step_penalty,
    forgetting,
    paying_channels,
    record_step_sizes,
    selective_mixers,
    step_penalty,
)
from tests.small_models import small_model


def _explicit(model: Recognizer, words: list[np.ndarray], channels: float) -> float:
    """Σ over every mixer, position 0..n+1 of each word run alone, and paying channel e of
    the mean over states n of 1 − |g|, g the gate the mixer itself computes at (t, e, n),
    over the count."""
    total, count = 0.0, 0
    for word in words:
        tokens, lengths = encode_batch([word], 3)
        model(tokens, lengths)
        for mixer in selective_mixers(model):
            assert mixer.step_sizes is not None
            delta = mixer.step_sizes[0].detach()  # (n + 2, E): the reference reads values only
            assert delta.shape[0] == len(word) + 2
            paying = paying_channels(delta.shape[1], channels)
            a_abs = torch.exp(mixer.A_log).detach()
            for t in range(delta.shape[0]):
                for e in range(paying):
                    states = []
                    for n in range(a_abs.shape[1]):
                        g = math.exp(-float(delta[t, e]) * float(a_abs[e, n]))
                        states.append(1 - abs(2 * g - 1 if mixer.signed else g))
                    total += sum(states) / len(states)
                    count += 1
            mixer.step_sizes = None
    return total / count


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(0, 10), min_size=1, max_size=4), st.integers(0, 2**16),
       st.sampled_from([1.0, 0.5]))
def test_the_form_forget_is_the_mean_loss_of_gate_magnitude(lengths: list[int], seed: int,
                                                            channels: float) -> None:
    rng = np.random.default_rng(seed)
    words = [rng.integers(0, 3, n) for n in lengths]
    model = small_model(("mamba", "mamba-signed", "jamba-2")[seed % 3], seed % 2)
    record_step_sizes(model)
    tokens, batch_lengths = encode_batch(words, 3)
    model(tokens, batch_lengths)
    batched = float(step_penalty(model, batch_lengths, channels=channels,
                                 form="forget").detach())
    assert all(m.step_sizes is None for m in selective_mixers(model))
    assert math.isclose(batched, _explicit(model, words, channels), rel_tol=1e-9)


def test_the_cost_is_the_forward_gates_own_magnitude() -> None:
    """`forgetting` reads the gate the mixer scans with: 1 − |a| of `SelectiveSSM.gates`."""
    for layout in ("mamba", "mamba-signed"):
        model = small_model(layout)
        mixer = selective_mixers(model)[0]
        u = torch.randn(2, 5, mixer.d_inner, dtype=torch.float64)
        a, _, _ = mixer.gates(u)
        delta = torch.nn.functional.softplus(
            mixer.dt_proj(mixer.x_proj(u)[..., :mixer.dt_rank]))
        assert torch.allclose(forgetting(mixer, delta), (1 - a.abs()).mean(-1), atol=1e-12)


def test_a_hold_and_an_exact_flip_cost_nothing_and_a_reset_costs_one() -> None:
    mixer = selective_mixers(small_model("mamba-signed"))[0]
    e = mixer.d_inner
    small, flip = torch.full((1, 1, e), 1e-12), torch.full((1, 1, e), 1e3)
    reset = (math.log(2) / torch.exp(mixer.A_log[:, 0].detach())).view(1, 1, e).double()
    assert float(forgetting(mixer, small.double()).max()) < 1e-9  # g = 1: a hold
    assert float(forgetting(mixer, flip.double()).max()) < 1e-9  # g = −1: a counter's flip
    # at Δ|A_0| = ln 2 the first state's gate is 0: it costs 1 (the other states less)
    first = 1 - (2 * torch.exp(-reset.unsqueeze(-1) * torch.exp(mixer.A_log.detach())) - 1).abs()
    assert torch.allclose(first[..., 0], torch.ones_like(first[..., 0]))
    unsigned = selective_mixers(small_model("mamba"))[0]
    assert float(forgetting(unsigned, flip.double()).min()) > 1 - 1e-9  # a reset for (0, 1)


def test_the_gradient_points_away_from_the_barrier_at_ln_2() -> None:
    """Signed: below Δ|A| = ln 2 the penalty pulls Δ down (towards a hold), above it up
    (towards an exact flip); docs/theory.md §19.10."""
    mixer = selective_mixers(small_model("mamba-signed"))[0]
    a_abs = torch.exp(mixer.A_log.detach())
    barrier = float((math.log(2) / a_abs).min()), float((math.log(2) / a_abs).max())
    for value, sign in ((0.5 * barrier[0], 1.0), (4.0 * barrier[1], -1.0)):
        delta = torch.full((1, 1, mixer.d_inner), value, dtype=torch.float64,
                           requires_grad=True)
        forgetting(mixer, delta).sum().backward()
        assert delta.grad is not None
        assert bool((sign * delta.grad > 0).all())  # descent moves Δ by −grad


def test_the_gradient_reaches_the_step_size_weights_and_not_a() -> None:
    model = small_model("mamba-signed")
    record_step_sizes(model)
    tokens, lengths = encode_batch([np.array([0, 1, 2, 1]), np.array([2])], 3)
    model(tokens, lengths)
    step_penalty(model, lengths, form="forget").backward()
    last = selective_mixers(model)[-1]
    assert last.A_log.grad is None  # A held: the last mixer's Δ does not depend on its A
    assert last.dt_proj.bias.grad is not None and float(last.dt_proj.bias.grad.abs().sum()) > 0


def test_form_configs_are_checked() -> None:
    config = ModelConfig.from_dict({"layout": "mamba-signed"})
    with pytest.raises(ConfigError, match="step_penalty_form"):
        TrainConfig(step_penalty=1.0, step_penalty_form="size")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="qualifies a penalty that is off"):
        check_step_penalty(0.0, config, form="forget")
    with pytest.raises(ConfigError, match="step_penalty_cap"):
        check_step_penalty(1.0, config, cap=1.0, form="forget")
    with pytest.raises(ConfigError, match="step_penalty_form"):
        check_step_penalty(1.0, config, form="size")
    check_step_penalty(1.0, config, start=5, steps=10, channels=0.5, form="forget")
    with pytest.raises(ConfigError, match="step_penalty_cap"):
        check_spec(run_spec("LAST", "mamba", profile="tiny", step_penalty=1.0,
                            step_penalty_cap=1.0, step_penalty_form="forget"))
    with pytest.raises(ValueError, match="form"):
        step_penalty(small_model(), torch.tensor([1]), form="size")


def test_the_form_enters_the_run_id_only_when_not_step() -> None:
    spec = run_spec("LAST", "mamba", profile="tiny", step_penalty=1.0)
    assert spec.with_train(step_penalty_form="step").run_id == spec.run_id
    assert spec.with_train(step_penalty_form="forget").run_id != spec.run_id


def test_a_run_with_the_form_forget_trains_otherwise_than_with_the_form_step() -> None:
    spec = run_spec("LAST", "mamba-signed", profile="tiny", steps=20, patience=0,
                    eval_every=5, step_penalty=1.0)
    step = train(spec, quiet=True)
    forget = train(spec.with_train(step_penalty_form="forget"), quiet=True)
    assert step.status == forget.status == "completed", (step.error, forget.error)
    assert step.extra["history"][0] != forget.extra["history"][0]
    assert all(math.isfinite(h["loss"]) for h in forget.extra["history"])
