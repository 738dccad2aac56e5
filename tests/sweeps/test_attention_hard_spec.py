"""experiments/attention-hard.toml (issue 36): its `v7` lever is the table v7's own runs of
its 8 layouts (reused, not retrained), and `hard` differs from them in the training pairs only."""

from __future__ import annotations

from pathlib import Path

from expressivity.sweeps.cells import spec_cell
from expressivity.sweeps.grid import lever_runs
from expressivity.sweeps.spec import load_sweep
from expressivity.training.spec import RunSpec

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
LAYOUTS = {"global", "hybrid-1", "hybrid-2", "hybrid-4", "full", "longformer-enc-1", "swin-2",
           "strided-2"}
LEVER = {"train_hard_pairs": 256, "train_adversarial_pairs": 8}


def _runs(name: str, lever: str = "") -> list[RunSpec]:
    return lever_runs(load_sweep(EXPERIMENTS / name))[lever]


def test_the_pilot_s_baseline_is_the_table_v7_s_runs_of_its_layouts() -> None:
    v7 = {r.run_id for r in _runs("table-v7.toml") if r.layout in LAYOUTS and r.seed in (0, 1)}
    assert {r.run_id for r in _runs("attention-hard.toml", "v7")} == v7
    assert len(v7) == 26 * 8 * 2  # one reading per layout: each system's own


def test_hard_changes_the_training_pairs_and_nothing_else() -> None:
    twins = {(r.language, r.layout, r.seed): r for r in _runs("attention-hard.toml", "v7")}
    hard = _runs("attention-hard.toml", "hard")
    assert len(hard) == 26 * 8 * 2
    for r in hard:
        twin = twins[(r.language, r.layout, r.seed)]
        assert {k: r.data.get(k) for k in LEVER} == LEVER
        assert r.model == twin.model and r.train == twin.train
        assert spec_cell(r).label == spec_cell(twin).label
        assert {k: v for k, v in r.data.items() if k not in LEVER} == {
            k: v for k, v in twin.data.items() if k not in LEVER}


def test_the_held_out_check_is_seed_2_of_the_same_cells() -> None:
    pilot = {(r.language, r.layout): r for r in _runs("attention-hard.toml", "hard")}
    v7 = {r.run_id for r in _runs("table-v7.toml") if r.layout in LAYOUTS and r.seed == 2}
    assert {r.run_id for r in _runs("attention-hard-heldout.toml", "v7")} == v7
    held_out = _runs("attention-hard-heldout.toml", "hard")
    assert len(held_out) == 26 * 8 and {r.seed for r in held_out} == {2}
    for r in held_out:  # the pilot's protocol, at the seed the pilot never ran
        twin = pilot[(r.language, r.layout)]
        assert (r.model, r.train, r.data) == (twin.model, twin.train, twin.data)
    assert load_sweep(EXPERIMENTS / "attention-hard-heldout.toml").rule is not None
