"""experiments/ssm-patience-late.toml (issue 36): its `v9` lever is the table v9's seed-0
state-space runs, run id for run id, and `patience-late` changes nothing but the patience rule."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from expressivity.sweeps.grid import lever_runs
from expressivity.sweeps.spec import load_sweep

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
MIXERS = {"mamba", "mamba-signed", "s4d", "samba-1", "jamba-2"}


def test_the_pilot_reuses_the_v9s_seed_0_mixer_runs_and_changes_only_patience() -> None:
    levers = lever_runs(load_sweep(EXPERIMENTS / "ssm-patience-late.toml"))
    table = {r.run_id: r for r in load_sweep(EXPERIMENTS / "table-v9.toml").expand()}
    seed0 = {i for i, r in table.items() if r.layout in MIXERS and r.seed == 0}
    assert {r.run_id for r in levers["v9"]} == seed0 and len(seed0) == 26 * 5
    twins = {(r.language, r.layout): r for r in levers["v9"]}
    for r in levers["patience-late"]:
        twin = twins[(r.language, r.layout)]
        train, twin_train = asdict(r.train), asdict(twin.train)
        assert (train["patience"], train["patience_start"]) == (2, 1000)
        assert (twin_train["patience"], twin_train["patience_start"]) == (0, 0)
        rest = ("patience", "patience_start")
        assert {k: v for k, v in train.items() if k not in rest} == {
            k: v for k, v in twin_train.items() if k not in rest}
        assert (r.model, r.data, r.seed) == (twin.model, twin.data, twin.seed)
