"""The write penalty: its value against an explicit sum, its gradient, recording, configs, runs."""

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
from expressivity.training.loop import fit
from expressivity.training.prepare import check_spec, prepare
from expressivity.training.spec import TrainConfig
from expressivity.training.write_penalty import (
    check_write_penalty,
    diagonal_mixers,
    record_writes,
    write_penalty,
)
from tests.small_models import small_model


def _explicit(model: Recognizer, words: list[np.ndarray]) -> float:
    """Σ over every mixer, position 0..n+1, channel e and state n of |Δ_e B_e,n u_t,e|, each
    word run alone and the write recomputed from the mixer's input by a loop, over the count."""
    inputs: dict[int, torch.Tensor] = {}
    hooks = [m.register_forward_hook(lambda mod, args, out: inputs.__setitem__(id(mod), args[0]))
             for m in diagonal_mixers(model)]
    total, count = 0.0, 0
    try:
        for word in words:
            tokens, lengths = encode_batch([word], 3)
            with torch.no_grad():
                model(tokens, lengths)
            for mixer in diagonal_mixers(model):
                mixer.writes = None
                x = inputs[id(mixer)][0]  # (n + 2, d_in): no padding in a batch of one
                assert x.shape[0] == len(word) + 2
                u = mixer.in_proj(x).detach()
                delta = torch.nn.functional.softplus(mixer.log_dt).detach()
                b = (torch.view_as_complex(mixer.B) if mixer.complex else mixer.B[..., 0]).detach()
                for t in range(u.shape[0]):
                    for e in range(u.shape[1]):
                        for n in range(b.shape[1]):
                            total += float(abs(delta[e] * b[e, n] * u[t, e]))
                count += u.numel()
    finally:
        for hook in hooks:
            hook.remove()
    return total / count


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=4), st.integers(0, 2**16))
def test_the_penalty_is_the_mean_write_size_over_real_positions(lengths: list[int],
                                                                 seed: int) -> None:
    rng = np.random.default_rng(seed)
    words = [rng.integers(0, 3, n) for n in lengths]
    model = small_model("SDC" if seed % 2 else "s4d", seed % 3)
    record_writes(model)
    tokens, batch_lengths = encode_batch(words, 3)
    model(tokens, batch_lengths)
    batched = float(write_penalty(model, batch_lengths).detach())
    assert all(m.writes is None for m in diagonal_mixers(model))  # taken, not kept
    assert math.isclose(batched, _explicit(model, words), rel_tol=1e-9)


def test_the_penalty_reaches_the_input_projection_and_not_the_gate_or_the_write_weights() -> None:
    model = small_model("s4d")
    record_writes(model)
    tokens, lengths = encode_batch([np.array([0, 1, 2, 1]), np.array([2])], 3)
    model(tokens, lengths)
    write_penalty(model, lengths).backward()
    last = diagonal_mixers(model)[-1]
    grad = last.in_proj.weight.grad
    assert grad is not None and float(grad.abs().sum()) > 0
    for held in (last.log_dt, last.B, last.A_log, last.C):  # Δ and B held; A, C not in it
        assert held.grad is None or float(held.grad.abs().sum()) == 0.0
    assert last.out_proj.weight.grad is None
    assert model.classifier.weight.grad is None


def test_nothing_is_kept_unless_asked_or_outside_training() -> None:
    model = small_model("s4d")
    tokens, lengths = encode_batch([np.array([0, 1, 2])], 3)
    model(tokens, lengths)
    assert all(m.writes is None for m in diagonal_mixers(model))
    record_writes(model)
    model.eval()
    model(tokens, lengths)
    assert all(m.writes is None for m in diagonal_mixers(model))
    with pytest.raises(RuntimeError, match="kept no writes"):
        write_penalty(model, lengths)
    with pytest.raises(RuntimeError, match="no time-invariant mixer"):
        write_penalty(small_model("mamba"), lengths)


def test_the_record_changes_no_output() -> None:
    model = small_model("s4d", 1)
    tokens, lengths = encode_batch([np.array([0, 1, 2, 2, 0]), np.array([1])], 3)
    plain = model(tokens, lengths).detach()
    record_writes(model)
    assert torch.equal(model(tokens, lengths).detach(), plain)


@pytest.mark.parametrize("layout", ["global", "mamba", "samba-1", "jamba-2", "deltanet", "s4d",
                                    "SDC"])
def test_a_penalty_needs_a_time_invariant_mixer(layout: str) -> None:
    config = ModelConfig.from_dict({"layout": layout})
    check_write_penalty(0.0, config)  # nothing asked, nothing to check
    if layout in ("s4d", "SDC"):
        check_write_penalty(0.5, config)
    else:
        with pytest.raises(ConfigError, match=f"layout '{layout}' has none"):
            check_write_penalty(0.5, config)
        with pytest.raises(ConfigError, match="write_penalty"):
            check_spec(run_spec("LAST", layout, profile="tiny", write_penalty=0.5))


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf")])
def test_a_bad_penalty_is_a_config_error(bad: float) -> None:
    with pytest.raises(ConfigError, match="write_penalty"):
        TrainConfig(write_penalty=bad)


def test_the_penalty_enters_the_run_id_only_when_positive() -> None:
    spec = run_spec("LAST", "s4d", profile="tiny")
    assert spec.with_train(write_penalty=0.0).run_id == spec.run_id
    assert spec.with_train(write_penalty=0.5).run_id != spec.run_id
    assert (spec.with_train(write_penalty=0.5).run_id
            != spec.with_train(write_penalty=1.0).run_id)


def fixed_batch_writes(model: torch.nn.Module) -> torch.Tensor:
    """Run ``model`` in training mode, keeping its writes (`record_writes`), on a fixed batch
    of 12 words over two letters; the batch's lengths."""
    rng = np.random.default_rng(7)
    tokens, lengths = encode_batch([rng.integers(0, 2, n) for n in range(1, 13)], 2)
    model.train()
    record_writes(model)
    with torch.no_grad():
        model(tokens, lengths)
    return lengths


def _mean_write(model: torch.nn.Module) -> float:
    lengths = fixed_batch_writes(model)
    return float(write_penalty(model, lengths))


def test_training_with_the_penalty_shrinks_the_writes() -> None:
    spec = run_spec("LT-1", "s4d", profile="tiny", steps=30, patience=0)
    plain = fit(prepare(spec)).model
    penalized = fit(prepare(spec.with_train(write_penalty=10.0))).model
    assert _mean_write(penalized) < 0.5 * _mean_write(plain)


def test_a_penalized_run_completes_and_records_the_data_loss() -> None:
    spec = run_spec("LAST", "s4d", profile="tiny", steps=20, patience=0, eval_every=5)
    plain = train(spec, quiet=True)
    record = train(spec.with_train(write_penalty=10.0), quiet=True)
    assert record.status == "completed", record.error
    losses = [h["loss"] for h in record.extra["history"]]
    assert losses and all(math.isfinite(v) and v >= 0 for v in losses)
    assert record.extra["history"] != plain.extra["history"]


def test_a_penalized_run_never_trains_in_an_ensemble() -> None:
    """An ensemble's step takes the data loss only. That is safe while ensembles refuse SSM
    heads, which the write penalty needs (`check_write_penalty`); this fails if ensembles ever
    fold mixers without the penalty."""
    from expressivity.training.ensemble import train_ensemble

    penalized = [run_spec("LAST", "s4d", profile="tiny", seed=s, write_penalty=1.0)
                 for s in (0, 1)]
    with pytest.raises(ConfigError, match="ensembles fold attention heads only"):
        train_ensemble(penalized, quiet=True)


@pytest.mark.parametrize("language", ["LT-1", "PT-2", "LDP-1"])
def test_theorem_16_4_counts_are_written_by_their_letters_only(language: str) -> None:
    """Remark 19.9 (docs/theory.md §19.9) asks a count (gate exactly 1) to be written by the
    letters it counts and by no other; the S4D recognizers of Theorem 16.4
    (`models.construct.diagonal`) are: every count channel's write, read by `record_writes`,
    is 0 or 1 at every position (its signal), and LT-1's first count is 1 exactly at the a's."""
    from expressivity.models.construct import construct_language

    cm, source = construct_language(language, None, "s4d")
    model = cm.model.train()
    record_writes(model)
    rng = np.random.default_rng(0)
    words = [rng.integers(0, len(source.alphabet), n) for n in (1, 7, 30, 64)]
    tokens, lengths = encode_batch(words, len(source.alphabet))
    with torch.no_grad():
        model(tokens, lengths)
    counts = 0
    for mixer in diagonal_mixers(model):
        assert mixer.writes is not None
        gate = mixer.gate().detach()
        for e in range(gate.shape[0]):
            if not bool((gate[e] == 1).any()):
                continue
            counts += 1
            writes = mixer.writes[..., e]
            assert bool(((writes.abs() < 1e-6) | ((writes - 1).abs() < 1e-6)).all()), (e, writes)
    assert counts > 0
    if language == "LT-1":
        first = diagonal_mixers(model)[0]
        assert first.writes is not None
        a = source.alphabet.index("a")
        for row, word in enumerate(words):
            letters = first.writes[row, 1 : len(word) + 1, 0]
            assert torch.equal(letters, torch.as_tensor(word == a, dtype=letters.dtype))
