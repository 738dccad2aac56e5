"""The learning-rate schedule's decay start (warmup-stable-decay) against an explicit reference."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from expressivity.errors import ConfigError
from expressivity.training import run_spec
from expressivity.training.optim import learning_rate
from expressivity.training.spec import TrainConfig


def _reference(lr: float, warm: int, start: int, steps: int, step: int) -> float:
    """The rate written out case by case: warmup, stable, cosine decay to zero at ``steps``."""
    if step < warm:
        return lr * (step + 1) / warm
    begin = max(warm, start)
    if step < begin:
        return lr
    p = min(1.0, (step - begin) / max(1, steps - begin))
    return lr * (1 + math.cos(math.pi * p)) / 2


def test_a_decay_start_holds_the_rate_then_decays_to_zero() -> None:
    cfg = TrainConfig(lr=1.0, schedule="cosine", warmup_steps=10, steps=110, decay_start=60)
    assert learning_rate(cfg, 0) == pytest.approx(0.1)
    assert [learning_rate(cfg, s) for s in (9, 10, 35, 59, 60)] == [1.0] * 5
    assert learning_rate(cfg, 85) == pytest.approx(0.5)
    assert learning_rate(cfg, 110) == pytest.approx(0.0)


@given(warm=st.integers(0, 50), start=st.integers(0, 199), steps=st.integers(200, 400),
       lr=st.floats(1e-5, 1.0))
def test_the_schedule_is_the_reference_and_never_rises_after_the_warmup(
        warm: int, start: int, steps: int, lr: float) -> None:
    cfg = TrainConfig(lr=lr, schedule="cosine", warmup_steps=warm, steps=steps, decay_start=start)
    rates = [learning_rate(cfg, s) for s in range(steps + 1)]
    assert rates == pytest.approx([_reference(lr, warm, start, steps, s)
                                   for s in range(steps + 1)])
    after = rates[warm:]
    assert all(b <= a + 1e-12 for a, b in pairwise(after))
    if start <= warm:  # a start inside the warmup is the plain cosine schedule
        plain = TrainConfig(lr=lr, schedule="cosine", warmup_steps=warm, steps=steps)
        assert rates == [learning_rate(plain, s) for s in range(steps + 1)]


@pytest.mark.parametrize(("changes", "message"), [
    ({"schedule": "constant", "decay_start": 10}, "decay_start: 10 starts a cosine decay"),
    ({"schedule": "cosine", "steps": 100, "decay_start": 100}, "not before the budget of 100"),
    ({"schedule": "cosine", "decay_start": -1}, "decay_start"),
])
def test_a_decay_start_that_cannot_act_is_refused(changes: dict[str, object],
                                                   message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        TrainConfig(**changes)  # type: ignore[arg-type]


def test_the_decay_start_enters_the_run_id_only_when_set() -> None:
    spec = run_spec("SUFFIX-a", "local-1", profile="tiny", schedule="cosine")
    assert spec.with_train(decay_start=0).run_id == spec.run_id
    assert spec.with_train(decay_start=30).run_id != spec.run_id
    assert "decay_start" in str(spec.with_train(decay_start=30).to_dict()["train"])
