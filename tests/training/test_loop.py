"""The training loop on the tiny profile: learning, determinism, resume, failures, early stop."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from expressivity.checkpoint import checkpoint_path, load_checkpoint
from expressivity.errors import ConfigError
from expressivity.training import RunRecord, RunSpec, run_spec, train
from expressivity.training.optim import batch_indices, learning_rate
from expressivity.training.prepare import check_spec
from expressivity.training.spec import TrainConfig
from expressivity.training.state import RunState, note_validation

# Σ*a read by one 1-local head: the tiny profile learns it in a few dozen steps.
EASY = ("SUFFIX-a", "local-1")


def _spec(**train_changes: object) -> RunSpec:
    return run_spec(*EASY, profile="tiny", **train_changes)  # type: ignore[arg-type]


def _metrics(r: RunRecord) -> tuple[object, ...]:
    history = [{k: v for k, v in h.items()} for h in r.extra["history"]]
    return (r.status, r.steps, r.lengths, r.adversarial, r.train_accuracy, r.val_accuracy,
            r.extra["accuracy"], history)


def _weights(out: Path, spec: RunSpec) -> dict[str, torch.Tensor]:
    return load_checkpoint(checkpoint_path(out, spec.run_id)).model


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunRecord, Path]:
    """One uninterrupted tiny run without early stopping (patience 0: all 40 steps)."""
    out = tmp_path_factory.mktemp("reference")
    record = train(_spec(steps=40, patience=0), out_dir=out, quiet=True)
    assert record.status == "completed", record.error
    return record, out


def test_tiny_run_learns_a_trivial_language_perfectly() -> None:
    record = train(_spec(), quiet=True)
    assert record.status == "completed", record.error
    assert record.test_accuracy == 1.0 and record.adversarial_accuracy == 1.0
    assert record.recognized and record.n_star == 16
    assert [m.length for m in record.lengths] == [13, 14, 15, 16]
    assert record.n_parameters > 0 and record.tokens_per_second > 0


def test_early_stopping_after_patience_perfect_validations() -> None:
    record = train(_spec(), quiet=True)
    history = record.extra["history"]
    assert record.extra["stopped_early"] and record.steps < 60
    assert [h["step"] for h in history] == list(range(10, record.steps + 1, 10))
    perfect = [h["batch_accuracy"] == h["val_short"] == h["val_long"] == 1.0 for h in history]
    assert perfect[-2:] == [True, True]  # the streak reached patience = 2 ...
    assert not any(perfect[i] and perfect[i + 1] for i in range(len(perfect) - 2))  # ... just now


def _validate(state: RunState, train: TrainConfig, short: float, long: float) -> None:
    run = SimpleNamespace(spec=SimpleNamespace(train=train))
    state.step += train.eval_every
    note_validation(run, state, {"val_short": short, "val_long": long})  # type: ignore[arg-type]


def test_plateau_stops_after_validations_without_gain() -> None:
    cfg = TrainConfig(plateau=2, plateau_delta=0.01, patience=2)
    state = RunState(batch_accuracy=0.9)
    for short, long, stale in [(0.6, 0.6, 0), (0.7, 0.6, 0), (0.705, 0.6, 1), (0.8, 0.7, 0),
                               (0.8, 0.705, 1)]:
        _validate(state, cfg, short, long)
        assert (state.stale, state.done) == (stale, False)
    _validate(state, cfg, 0.5, 0.5)  # a drop counts as no gain; the best stays 0.7525
    assert state.done and state.plateaued and not state.stopped_early
    assert state.best == pytest.approx(0.7525)


def test_plateau_off_never_stops_and_perfect_validations_are_never_stale() -> None:
    state = RunState(batch_accuracy=0.5)
    for _ in range(20):
        _validate(state, TrainConfig(plateau=0), 0.5, 0.5)
    assert not state.done and state.stale == 19
    state = RunState(batch_accuracy=1.0)
    for _ in range(3):  # perfect but not yet patience: no gain, yet not stale
        _validate(state, TrainConfig(plateau=1, patience=5), 1.0, 1.0)
    assert not state.done and state.stale == 0


def test_a_stalled_run_gives_up_its_budget() -> None:
    # Σ*a is not in LTL[P]: global attention on the tiny profile stalls below perfect.
    spec = run_spec("SUFFIX-a", "global", profile="tiny", patience=0, plateau=2,
                    plateau_delta=1.0)
    record = train(spec, quiet=True)
    assert record.status == "completed", record.error
    assert record.extra["plateaued"] and record.steps == 30
    assert len(record.extra["history"]) == 3


def test_the_plateau_fields_enter_the_run_id_only_when_the_rule_is_on() -> None:
    base = _spec()
    assert _spec(plateau_delta=0.5).run_id == base.run_id  # rule off: as before the rule
    assert _spec(plateau=3).run_id != base.run_id
    assert _spec(plateau=3).run_id != _spec(plateau=3, plateau_delta=0.5).run_id


def test_same_seed_gives_identical_metrics_and_weights(
    reference: tuple[RunRecord, Path], tmp_path: Path
) -> None:
    first, out = reference
    again = train(first.spec, out_dir=tmp_path, quiet=True)
    assert _metrics(again) == _metrics(first)
    w1, w2 = _weights(out, first.spec), _weights(tmp_path, first.spec)
    assert all(torch.equal(w1[k], w2[k]) for k in w1)


def test_another_seed_gives_other_weights(
    reference: tuple[RunRecord, Path], tmp_path: Path
) -> None:
    first, out = reference
    other = run_spec(*EASY, profile="tiny", seed=1, steps=40, patience=0)
    train(other, out_dir=tmp_path, quiet=True)
    w1, w2 = _weights(out, first.spec), _weights(tmp_path, other)
    assert not all(torch.equal(w1[k], w2[k]) for k in w1)


def test_training_leaves_the_global_rng_and_threads_alone() -> None:
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    threads = torch.get_num_threads()
    train(_spec(steps=5, patience=0, threads=1), quiet=True)
    assert torch.equal(torch.rand(3), expected)
    assert torch.get_num_threads() == threads


class _Killed(BaseException):
    """A hard stop: no checkpoint is written, as when a job is killed."""


def _stop_at(step: int, exc: type[BaseException]):  # type: ignore[no-untyped-def]
    def hook(s: int) -> None:
        if s == step:
            raise exc

    return hook


@pytest.mark.parametrize(
    ("exc", "every", "resumed_from"),
    [(KeyboardInterrupt, 0, 17), (_Killed, 5, 15)],
)
def test_resume_after_interruption_equals_the_uninterrupted_run(
    reference: tuple[RunRecord, Path], tmp_path: Path, exc: type[BaseException], every: int,
    resumed_from: int,
) -> None:
    first, out = reference
    spec = first.spec.with_train(checkpoint_every=every)
    full = train(spec, out_dir=tmp_path / "full", quiet=True)  # checkpoint_every is in the spec
    assert _metrics(full) == _metrics(first)
    with pytest.raises(exc):
        train(spec, out_dir=tmp_path, quiet=True, on_step=_stop_at(17, exc))
    assert load_checkpoint(checkpoint_path(tmp_path, spec.run_id)).step == resumed_from
    steps: list[int] = []
    resumed = train(spec, out_dir=tmp_path, quiet=True, on_step=steps.append)
    assert steps[0] == resumed_from + 1
    assert _metrics(resumed) == _metrics(first)
    w1, w2 = _weights(out, first.spec), _weights(tmp_path, spec)
    assert all(torch.equal(w1[k], w2[k]) for k in w1)


def test_checkpoint_round_trip_is_weights_only_loadable(reference: tuple[RunRecord, Path]) -> None:
    record, out = reference
    path = checkpoint_path(out, record.spec.run_id)
    raw = torch.load(path, weights_only=True)
    assert raw["format"] == 1 and isinstance(raw["config"], str)
    ckpt = load_checkpoint(path)
    assert ckpt.done and ckpt.step == 40
    assert ckpt.config["spec"] == record.spec.to_dict()
    assert ckpt.dataset_hash == record.extra["dataset_hash"] == ckpt.config["dataset_hash"]
    assert ckpt.config["model"]["layout"] == "local-1"
    assert set(ckpt.rng) == {"cpu"} and ckpt.optimizer["state"]
    assert record.checkpoint == str(path)
    # a finished run is only re-evaluated, to the same numbers
    steps: list[int] = []
    again = train(record.spec, out_dir=out, quiet=True, on_step=steps.append)
    assert steps == [] and _metrics(again) == _metrics(record)


def test_a_checkpoint_resumes_under_another_thread_count(
    reference: tuple[RunRecord, Path],
) -> None:
    record, out = reference
    spec = record.spec.with_train(threads=2)  # same run id: threads are how, not what
    assert spec.run_id == record.spec.run_id
    again = train(spec, out_dir=out, quiet=True)
    assert again.status == "completed" and again.lengths == record.lengths


def test_checkpoint_of_another_format_is_a_config_error(tmp_path: Path) -> None:
    torch.save({"format": 99}, tmp_path / "x.pt")
    with pytest.raises(ConfigError, match="format 99"):
        load_checkpoint(tmp_path / "x.pt")


def test_nan_loss_is_a_failed_record_not_a_crash() -> None:
    record = train(_spec(lr=1e30, patience=0), quiet=True)
    assert record.status == "failed" and not record.recognized
    assert "loss" in record.error or "gradient" in record.error
    assert "lr=1e+30" in record.error and "traceback" in record.extra


def test_an_exception_inside_a_run_is_a_failed_record() -> None:
    def boom(step: int) -> None:
        raise RuntimeError(f"disk full at step {step}")

    record = train(_spec(), quiet=True, on_step=boom)
    assert record.status == "failed" and record.steps == 1
    assert record.error == "RuntimeError: disk full at step 1"


def test_invalid_configs_name_the_field() -> None:
    with pytest.raises(ConfigError, match="plateau: must be >= 0"):
        TrainConfig(plateau=-1)
    with pytest.raises(ConfigError, match=r"model\.n_heads"):
        check_spec(RunSpec("SUFFIX-a", profile="tiny", model={"n_heads": "two"}))
    with pytest.raises(ConfigError, match=r"model: unknown field.*n_layer"):
        check_spec(RunSpec("SUFFIX-a", profile="tiny", model={"n_layer": 2}))
    with pytest.raises(ConfigError, match="train_size"):
        check_spec(RunSpec("SUFFIX-a", profile="tiny", data={"train_size": -1}))
    with pytest.raises(ConfigError, match="layout"):
        check_spec(RunSpec("SUFFIX-a", layout="sideways", profile="tiny"))
    with pytest.raises(ConfigError, match="profile: unknown profile 'huge'"):
        check_spec(RunSpec("SUFFIX-a", profile="huge"))
    with pytest.raises(ConfigError, match="lr"):
        TrainConfig(lr=0.0)
    with pytest.raises(ConfigError, match=r"train\.batch_size"):
        run_spec("SUFFIX-a", profile="tiny", batch_size="big")
    record = train(RunSpec("SUFFIX-a", profile="tiny", model={"d_model": 0}), quiet=True)
    assert record.status == "failed" and "d_model" in record.error


def test_cuda_request_without_cuda_fails_cleanly() -> None:
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    record = train(_spec(device="cuda"), quiet=True)
    assert record.status == "failed" and "CUDA is not available" in record.error


def test_batches_walk_through_fixed_epoch_permutations() -> None:
    n, b = 10, 4
    stream = np.concatenate([batch_indices(7, s, b, n) for s in range(5)])  # 20 = two epochs
    assert sorted(stream[:10]) == list(range(10)) and sorted(stream[10:]) == list(range(10))
    assert np.array_equal(batch_indices(7, 3, b, n), batch_indices(7, 3, b, n))
    assert not np.array_equal(stream[:10], stream[10:])


def test_learning_rate_schedules() -> None:
    const = TrainConfig(lr=1.0, schedule="constant", warmup_steps=4, steps=100)
    assert [learning_rate(const, s) for s in (0, 3, 4, 99)] == [0.25, 1.0, 1.0, 1.0]
    cos = TrainConfig(lr=1.0, schedule="cosine", warmup_steps=0, steps=100)
    assert learning_rate(cos, 0) == 1.0 and learning_rate(cos, 50) == pytest.approx(0.5)
    assert learning_rate(cos, 100) == pytest.approx(0.0)
