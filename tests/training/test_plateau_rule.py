"""The plateau rule: "gain" as before, "improving" never stops a run whose loss still falls."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from expressivity.analysis.plateau import plateau_audit
from expressivity.errors import ConfigError
from expressivity.training import run_spec
from expressivity.training.stopping import progressed
from expressivity.training.train_config import TrainConfig


def test_gain_asks_for_delta_and_improving_for_any_progress() -> None:
    gain = TrainConfig(plateau=2, plateau_delta=0.02)
    improving = TrainConfig(plateau=2, plateau_delta=0.02, plateau_rule="improving")
    # accuracy up by 0.01 (< delta), loss flat: only "improving" counts it
    assert not progressed(gain, 0.80, 0.5, 0.81, 0.5)
    assert progressed(improving, 0.80, 0.5, 0.81, 0.5)
    # accuracy flat, loss down 10 %: a run still learning
    assert not progressed(gain, 0.80, 0.5, 0.80, 0.45)
    assert progressed(improving, 0.80, 0.5, 0.80, 0.45)
    # accuracy flat, loss down 1 % (< delta): stale under both
    assert not progressed(improving, 0.80, 0.5, 0.80, 0.495)
    assert progressed(gain, 0.80, 0.5, 0.83, 0.5) and progressed(improving, -1.0, math.inf, 0.5, 1)


def test_the_default_rule_keeps_run_ids() -> None:
    spec = run_spec("LT-1", "global", profile="standard")
    assert spec.train.plateau_rule == "gain"
    assert spec.with_train(plateau_rule="improving").run_id != spec.run_id
    off = run_spec("LT-1", "global", profile="quick")
    assert off.with_train(plateau_rule="improving").run_id == off.run_id  # rule off: no effect
    with pytest.raises(ConfigError, match="plateau_rule"):
        TrainConfig(plateau_rule="never")  # type: ignore[arg-type]


def _run(run_id: str, history: list[tuple[float, float]], plateaued: bool = True) -> dict:
    spec = run_spec("LT-1", "global", profile="standard")
    hist = [{"step": 50 * (i + 1), "loss": loss, "val_short": acc, "val_long": acc,
             "batch_accuracy": 0.9} for i, (acc, loss) in enumerate(history)]
    return {"run_id": run_id, "language": "LT-1", "alphabet": None, "layout": "global",
            "seed": 0, "steps": 50 * len(history), "recognized": False, "status": "completed",
            "spec": json.dumps(spec.to_dict()),
            "extra": json.dumps({"plateaued": plateaued, "history": hist})}


def test_the_audit_finds_runs_stopped_while_their_loss_fell() -> None:
    runs = pd.DataFrame([
        _run("falling", [(0.7, 0.6), (0.75, 0.5), (0.755, 0.4), (0.76, 0.3)]),
        _run("stalled", [(0.7, 0.6), (0.75, 0.5), (0.75, 0.5), (0.75, 0.499)]),
        _run("finished", [(0.7, 0.6), (1.0, 0.1)], plateaued=False),
    ])
    audit = plateau_audit(runs)
    assert list(audit["run_id"]) == ["falling", "stalled"]
    assert list(audit["improving_at_stop"]) == [True, False]
