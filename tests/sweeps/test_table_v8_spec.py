"""experiments/table-v8.toml (issue 36): the table v7 with `hard-forget-1-late` for the four
selective layouts, and nothing else changed; its new runs are those its held-out check and
pilot trained."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from expressivity.sweeps.cells import spec_cell
from expressivity.sweeps.spec import load_sweep
from expressivity.training.spec import RunSpec

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
SELECTIVE = {"mamba", "mamba-signed", "samba-1", "jamba-2"}
LEVER = {"train_hard_pairs": 256, "train_adversarial_pairs": 8}
PENALTY = {"step_penalty": 1.0, "step_penalty_form": "forget", "step_penalty_start": 1000}


def _runs(name: str) -> list[RunSpec]:
    return list({r.run_id: r for r in load_sweep(EXPERIMENTS / name).expand()}.values())


def test_the_v8_is_the_v7_with_the_forgetting_penalty_for_the_selective_layouts() -> None:
    v7, v8 = _runs("table-v7.toml"), _runs("table-v8.toml")
    assert len(v7) == len(v8) == 26 * 23 * 3  # 11 causal + 7 encoder + 5 mixer cells, 3 seeds
    changed = {r.run_id for r in v8} - {r.run_id for r in v7}
    selective = {r.run_id for r in v8 if r.layout in SELECTIVE}
    assert changed == selective and len(selective) == 26 * 4 * 3  # every other run is reused
    twins = {(r.language, r.layout, r.seed): r for r in v7}
    for r in v8:
        if r.layout not in SELECTIVE:
            continue
        twin = twins[(r.language, r.layout, r.seed)]
        assert {k: r.data.get(k) for k in LEVER} == LEVER
        train, twin_train = asdict(r.train), asdict(twin.train)
        assert {k: train[k] for k in PENALTY} == PENALTY
        assert r.model == twin.model and spec_cell(r).label == spec_cell(twin).label
        assert {k: v for k, v in train.items() if k not in PENALTY} == {
            k: v for k, v in twin_train.items() if k not in PENALTY}
        assert {k: v for k, v in r.data.items() if k not in LEVER} == {
            k: v for k, v in twin.data.items() if k not in LEVER}


def test_the_v8s_new_runs_are_the_held_out_check_s_and_the_pilot_s() -> None:
    v8 = {r.run_id: r for r in _runs("table-v8.toml") if r.layout in SELECTIVE}
    lever = {r.run_id for name in ("ssm-forget-penalty-heldout.toml", "ssm-forget-penalty.toml")
             for r in _runs(name) if r.train.step_penalty_form == "forget"
             and r.train.step_penalty_start == 1000}
    reused = set(v8) & lever
    assert {(v8[i].layout, v8[i].seed) for i in reused} == (
        {(layout, 2) for layout in SELECTIVE} | {("mamba-signed", 0), ("mamba-signed", 1)})
    assert len(reused) == 26 * (4 + 2)
