"""The one training loop: a scripted stepper shows the driver's order of events; threads."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch

from expressivity.checkpoint import checkpoint_path, load_checkpoint
from expressivity.training import RunRecord, RunSpec, run_spec, train
from expressivity.training.driver import drive
from expressivity.training.ensemble import train_ensemble
from expressivity.training.member import Member
from expressivity.training.state import RunState, compute_threads
from expressivity.training.train_config import TrainConfig


class Script:
    """A stepper that logs every call; member ``fails_at[i]`` fails at that step."""

    def __init__(self, fails_at: dict[int, int], accuracy: float = 0.5,
                 interrupt_at: int | None = None) -> None:
        self.fails_at, self.accuracy, self.interrupt_at = fails_at, accuracy, interrupt_at
        self.log: list[tuple[Any, ...]] = []

    def gradients(self, members: Sequence[Member], step: int) -> tuple[Any, list[int]]:
        bad = {m.index: f"boom {step}" for m in members if self.fails_at.get(m.index) == step}
        self.log.append(("gradients", step, [m.index for m in members]))
        if bad:
            return bad, []
        if step == self.interrupt_at:
            raise KeyboardInterrupt
        return [(self.accuracy, 0.25) for _ in members], [10 for _ in members]

    def update(self, members: Sequence[Member], step: int) -> None:
        self.log.append(("update", step))

    def predict(self, members: Sequence[Member], splits: Sequence[str]
                ) -> dict[int, dict[str, np.ndarray]]:
        self.log.append(("validate", members[0].state.step, [m.index for m in members]))
        return {m.index: {} for m in members}

    def fail(self, member: Member, error: str) -> None:
        self.log.append(("fail", member.index, error))

    def finish(self, members: Sequence[Member]) -> None:
        self.log.append(("finish", members[0].state.step, [m.index for m in members]))

    def leave(self, keep: Sequence[Member]) -> None:
        self.log.append(("leave", [m.index for m in keep]))

    def checkpoint(self, members: Sequence[Member], step: int) -> None:
        self.log.append(("checkpoint", step, [m.index for m in members]))

    def interrupted(self, members: Sequence[Member]) -> None:
        self.log.append(("interrupted", [m.index for m in members]))

    def close(self, members: Sequence[Member]) -> None:
        self.log.append(("close",))


def _member(i: int, steps: int, eval_every: int, patience: int = 0, every: int = 0) -> Member:
    cfg = TrainConfig(steps=steps, eval_every=eval_every, patience=patience, warmup_steps=0,
                      checkpoint_every=every)
    run: Any = SimpleNamespace(spec=SimpleNamespace(train=cfg), splits={})
    return Member(i, run, RunState())


def test_the_driver_redoes_a_step_without_failed_members_and_lets_finished_ones_leave() -> None:
    members = [_member(0, 4, 2), _member(1, 2, 2), _member(2, 4, 2)]
    script = Script({2: 1})
    drive(members, script, desc="test")  # type: ignore[arg-type]
    assert script.log == [
        ("gradients", 0, [0, 1, 2]), ("update", 0),
        ("gradients", 1, [0, 1, 2]), ("fail", 2, "boom 1"), ("leave", [0, 1]),
        ("gradients", 1, [0, 1]), ("update", 1),
        ("validate", 2, [0, 1]), ("finish", 2, [1]), ("leave", [0]),
        ("gradients", 2, [0]), ("update", 2),
        ("gradients", 3, [0]), ("update", 3),
        ("validate", 4, [0]), ("finish", 4, [0]), ("leave", []),
        ("close",),
    ]
    assert [m.state.step for m in members] == [4, 2, 1]
    assert members[0].state.tokens == 40 and members[0].state.loss_count == 0  # validated
    assert [(h["step"], h["loss"]) for h in members[0].state.history] == [(2, 0.25), (4, 0.25)]
    assert members[2].state.history == [] and not members[2].state.done


def test_periodic_checkpoints_cover_the_members_still_active() -> None:
    members = [_member(0, 5, 5, every=2), _member(1, 3, 5, every=2)]
    script = Script({})
    drive(members, script, desc="test")  # type: ignore[arg-type]
    assert [e for e in script.log if e[0] in ("checkpoint", "finish")] == [
        ("checkpoint", 2, [0, 1]), ("finish", 3, [1]), ("checkpoint", 4, [0]),
        ("finish", 5, [0])]


def test_perfect_validations_stop_a_member_on_patience() -> None:
    members = [_member(0, 100, 1, patience=2)]
    script = Script({}, accuracy=1.0)  # every split missing: validation accuracy 1
    drive(members, script, desc="test")  # type: ignore[arg-type]
    assert members[0].state.step == 2 and members[0].state.stopped_early


def test_ctrl_c_after_a_complete_step_asks_for_a_checkpoint() -> None:
    members = [_member(0, 5, 5)]
    script = Script({}, interrupt_at=2)
    with pytest.raises(KeyboardInterrupt):
        drive(members, script, desc="test")  # type: ignore[arg-type]
    assert script.log[-1] == ("interrupted", [0]) and members[0].state.step == 2


def test_compute_threads_restores_the_callers_setting_even_on_errors() -> None:
    before = torch.get_num_threads()
    with compute_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(RuntimeError), compute_threads(1):
        raise RuntimeError
    assert torch.get_num_threads() == before


def _spec(layout: str, **changes: object) -> RunSpec:
    return run_spec("SUFFIX-a", layout, profile="tiny", **changes)  # type: ignore[arg-type]


def _metrics(r: RunRecord) -> tuple[object, ...]:
    return (r.run_id, r.status, r.steps, r.lengths, r.adversarial, r.train_accuracy,
            r.val_accuracy, r.extra["accuracy"], r.extra["history"])


@pytest.mark.parametrize("readout", ["cls", "mean", "last"])
def test_ensemble_members_are_bitwise_their_single_runs_for_each_readout(
        readout: str, tmp_path: Path) -> None:
    # layouts with a global token (BOS): every readout, ``cls`` included, reads a symbol
    # (a causal layout cannot serve ``cls``: `models.readout_reach.readout_problem`)
    specs = [_spec(layout, seed=i, steps=20, patience=0, model={"readout": readout})
             for i, layout in enumerate(("longformer-1-1", "bigbird-2-1-1"))]
    records = train_ensemble(specs, out_dir=tmp_path / "e", quiet=True)
    for spec, record in zip(specs, records, strict=True):
        single = train(spec, out_dir=tmp_path / "s", quiet=True)
        assert record.status == single.status == "completed"
        assert record.extra["model"]["readout"] == readout
        assert _metrics(record) == _metrics(single)
        w1, w2 = (load_checkpoint(checkpoint_path(tmp_path / d, spec.run_id)).model
                  for d in ("e", "s"))
        assert all(torch.equal(w1[k], w2[k]) for k in w2)
