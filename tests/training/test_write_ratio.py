"""The write penalty's form "ratio": its value against an explicit loop, its invariance to
scale, its gradient, configs and a run (docs/theory.md §19.11)."""

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
from expressivity.training import run_spec, train
from expressivity.training.loop import fit
from expressivity.training.prepare import check_spec, prepare
from expressivity.training.spec import TrainConfig
from expressivity.training.write_penalty import (
    check_write_penalty,
    diagonal_mixers,
    record_writes,
    write_penalty,
    write_sparsity,
)
from tests.small_models import small_model
from tests.training.test_write_penalty import fixed_batch_writes

shapes = st.tuples(st.integers(1, 4), st.integers(0, 6), st.integers(1, 3))


def _explicit(writes: list[np.ndarray], lengths: list[int]) -> float:
    """Per channel, ‖w‖₁/(√n ‖w‖₂) over the positions 0..length+1 of each row, by loops."""
    ratios = []
    for w in writes:
        for e in range(w.shape[2]):
            values = [float(w[b, t, e]) for b, n in enumerate(lengths) for t in range(n + 2)]
            l2 = math.sqrt(sum(v * v for v in values))
            ratios.append(sum(values) / (math.sqrt(len(values)) * l2) if l2 else 0.0)
    return sum(ratios) / len(ratios)


@st.composite
def batches(draw: st.DrawFn) -> tuple[list[np.ndarray], list[int]]:
    rows, longest, _ = draw(shapes)
    lengths = draw(st.lists(st.integers(0, longest), min_size=rows, max_size=rows))
    lengths[0] = longest  # the batch is as long as its longest row
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    writes = []
    for _ in range(draw(st.integers(1, 3))):
        w = np.abs(rng.normal(size=(rows, longest + 2, draw(st.integers(1, 4)))))
        w[rng.random(w.shape) < 0.3] = 0.0  # some zeros, some silent channels
        writes.append(w)
    return writes, lengths


@settings(max_examples=40, deadline=None)
@given(batches())
def test_the_ratio_is_the_explicit_loop(batch: tuple[list[np.ndarray], list[int]]) -> None:
    writes, lengths = batch
    value = write_sparsity([torch.tensor(w) for w in writes], torch.tensor(lengths))
    assert math.isclose(float(value), _explicit(writes, lengths), rel_tol=1e-12, abs_tol=1e-15)


@settings(max_examples=40, deadline=None)
@given(batches(), st.floats(1e-3, 1e3))
def test_scaling_a_channel_pays_nothing(batch: tuple[list[np.ndarray], list[int]],
                                        scale: float) -> None:
    """The same value for w and c·w (per channel), and a gradient orthogonal to w in each
    channel (Euler's relation for a function homogeneous of degree 0): shrinking is free."""
    writes, lengths = batch
    tensors = [torch.tensor(w, requires_grad=True) for w in writes]
    value = write_sparsity(tensors, torch.tensor(lengths))
    scaled = [torch.tensor(w * scale ** np.arange(w.shape[2])) for w in writes]
    assert math.isclose(value.item(), float(write_sparsity(scaled, torch.tensor(lengths))),
                        rel_tol=1e-9)
    value.backward()
    for w in tensors:
        assert w.grad is not None and bool(torch.isfinite(w.grad).all())
        radial = (w.grad * w.detach()).sum((0, 1))
        assert float(radial.abs().max()) < 1e-9


def test_the_bounds_one_spread_and_one_over_root_n_at_a_single_position() -> None:
    lengths = torch.tensor([3, 1])  # n = 5 + 3 real positions
    spread = torch.zeros(2, 5, 2)
    spread[0, :, 0] = 2.0
    spread[1, :3, 0] = 2.0
    spread[0, 4, 1] = 7.0  # channel 1: one position only
    spread[1, 3:, :] = 100.0  # padding, not counted
    value = write_sparsity([spread], lengths)
    assert math.isclose(float(value), (1.0 + 1 / math.sqrt(8)) / 2, rel_tol=1e-6)


def test_a_silent_channel_counts_zero_and_passes_no_gradient() -> None:
    w = torch.zeros(2, 4, 2)
    w[:, :, 1] = 1.0
    w.requires_grad_(True)
    value = write_sparsity([w], torch.tensor([2, 2]))
    value.backward()
    assert math.isclose(value.item(), 0.5, rel_tol=1e-6)  # (0 + 1) / 2
    assert w.grad is not None and float(w.grad[..., 0].abs().sum()) == 0.0


def test_through_a_model_it_reaches_the_input_projection_only() -> None:
    model = small_model("s4d")
    record_writes(model)
    tokens, lengths = encode_batch([np.array([0, 1, 2, 1]), np.array([2])], 3)
    model(tokens, lengths)
    kept = [m.writes.detach().clone() for m in diagonal_mixers(model) if m.writes is not None]
    value = write_penalty(model, lengths, form="ratio")
    assert math.isclose(value.item(), float(write_sparsity(kept, lengths)), rel_tol=1e-6)
    assert 0 < value.item() <= 1
    value.backward()
    last = diagonal_mixers(model)[-1]
    grad = last.in_proj.weight.grad
    assert grad is not None and float(grad.abs().sum()) > 0
    for held in (last.log_dt, last.B, last.A_log, last.C):
        assert held.grad is None or float(held.grad.abs().sum()) == 0.0
    with pytest.raises(ValueError, match="form"):
        write_penalty(model, lengths, form="l2")  # type: ignore[arg-type]


def test_form_configs_are_checked() -> None:
    config = ModelConfig.from_dict({"layout": "s4d"})
    with pytest.raises(ConfigError, match="write_penalty_form"):
        TrainConfig(write_penalty=1.0, write_penalty_form="l2")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="qualifies a penalty that is off"):
        check_write_penalty(0.0, config, form="ratio")
    with pytest.raises(ConfigError, match="write_penalty_form"):
        check_write_penalty(1.0, config, form="l2")
    check_write_penalty(1.0, config, start=5, steps=10, form="ratio")
    with pytest.raises(ConfigError, match="qualifies a penalty that is off"):
        check_spec(run_spec("LAST", "s4d", profile="tiny", write_penalty_form="ratio"))


def test_the_form_enters_the_run_id_only_when_not_l1() -> None:
    spec = run_spec("LAST", "s4d", profile="tiny", write_penalty=1.0)
    assert spec.with_train(write_penalty_form="l1").run_id == spec.run_id
    assert spec.with_train(write_penalty_form="ratio").run_id != spec.run_id


def _sparsity_and_size(model: torch.nn.Module) -> tuple[float, float]:
    """The ratio of the writes on a fixed batch and their root mean square."""
    lengths = fixed_batch_writes(model)
    kept = [m.writes for m in diagonal_mixers(model) if m.writes is not None]
    rms = math.sqrt(sum(float(w.square().sum()) for w in kept) / sum(w.numel() for w in kept))
    return float(write_sparsity(kept, lengths)), rms


def test_training_with_the_ratio_sparsifies_without_silencing() -> None:
    """At λ = 10 the L1 silences the writes (their root mean square falls about 50-fold here,
    §19.9's collapse); the ratio makes them sparser and keeps them an order of magnitude above
    that, as scaling pays nothing (their mean falls with their support)."""
    spec = run_spec("LT-1", "s4d", profile="tiny", steps=30, patience=0)
    plain = _sparsity_and_size(fit(prepare(spec)).model)
    l1 = _sparsity_and_size(fit(prepare(spec.with_train(write_penalty=10.0))).model)
    ratio = _sparsity_and_size(fit(prepare(spec.with_train(
        write_penalty=10.0, write_penalty_form="ratio"))).model)
    assert ratio[0] < 0.75 * plain[0]
    assert l1[1] < 0.1 * plain[1]
    assert ratio[1] > 10 * l1[1]


def test_a_ratio_run_completes_and_records_the_data_loss() -> None:
    spec = run_spec("LAST", "s4d", profile="tiny", steps=20, patience=0, eval_every=5,
                    write_penalty=1.0)
    l1 = train(spec, quiet=True)
    record = train(spec.with_train(write_penalty_form="ratio"), quiet=True)
    assert record.status == "completed", record.error
    losses = [h["loss"] for h in record.extra["history"]]
    assert losses and all(math.isfinite(v) and v >= 0 for v in losses)
    assert record.extra["history"] != l1.extra["history"]
