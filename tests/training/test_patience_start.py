"""The patience rule's start (`train.patience_start`) and its replay on histories."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.errors import ConfigError
from expressivity.training import run_spec, train
from expressivity.training.spec import TrainConfig
from expressivity.training.state import RunState, note_validation
from expressivity.training.stopping import patience_stop, perfect_validation

# Σ*a read by one 1-local head: the tiny profile fits it within 30 steps (tests/training/test_loop)
EASY = ("SUFFIX-a", "local-1")


def test_a_late_patience_stops_after_its_start_on_a_prefix_of_the_unstopped_run() -> None:
    early = train(run_spec(*EASY, profile="tiny"), quiet=True)
    late = train(run_spec(*EASY, profile="tiny", patience_start=early.steps), quiet=True)
    plain = train(run_spec(*EASY, profile="tiny", patience=0, steps=late.steps + 20), quiet=True)
    assert early.extra["stopped_early"] and late.extra["stopped_early"]
    assert early.steps < late.steps < plain.steps
    first = [h["step"] for h in late.extra["history"] if h["step"] > early.steps]
    assert late.steps == first[1]  # the second perfect validation after the start stops it
    history = late.extra["history"]
    assert history == plain.extra["history"][: len(history)]  # the same steps, bitwise
    cfg = late.spec.train
    assert patience_stop(cfg, plain.extra["history"]) == late.steps
    assert patience_stop(early.spec.train, plain.extra["history"]) == early.steps
    assert patience_stop(plain.spec.train, plain.extra["history"]) is None


def _note(state: RunState, cfg: TrainConfig, entry: dict[str, float]) -> None:
    run = SimpleNamespace(spec=SimpleNamespace(train=cfg))
    state.step = int(entry["step"])
    state.batch_accuracy = entry["batch_accuracy"]
    note_validation(run, state, {"val_short": entry["val_short"],  # type: ignore[arg-type]
                                 "val_long": entry["val_long"]})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), max_size=12),
       st.integers(0, 3), st.integers(0, 130))
def test_the_replay_stops_where_training_stops(
        marks: list[tuple[bool, bool, bool]], patience: int, start: int) -> None:
    cfg = TrainConfig(steps=200, eval_every=10, patience=patience,
                      patience_start=start if patience else 0)
    history = [{"step": 10 * (i + 1), "batch_accuracy": float(a), "val_short": float(b),
                "val_long": float(c), "loss": 0.1} for i, (a, b, c) in enumerate(marks)]
    state, stopped = RunState(), None
    for entry in history:
        _note(state, cfg, entry)
        if state.done:
            stopped = state.step
            break
    assert patience_stop(cfg, history) == stopped
    if stopped is not None:
        window = [h for h in history if h["step"] <= stopped][-patience:]
        assert all(perfect_validation(h) and h["step"] > cfg.patience_start for h in window)


def test_a_start_needs_the_rule_on_and_a_step_before_the_budget() -> None:
    with pytest.raises(ConfigError, match="patience = 0"):
        TrainConfig(patience=0, patience_start=10)
    with pytest.raises(ConfigError, match="not before the budget"):
        TrainConfig(steps=100, patience_start=100)
    with pytest.raises(ConfigError, match="patience_start: must be >= 0"):
        TrainConfig(patience_start=-1)
    spec = run_spec(*EASY, profile="tiny")
    assert spec.with_train(patience_start=0).run_id == spec.run_id  # old runs keep their ids
    assert spec.with_train(patience_start=30).run_id != spec.run_id
