"""experiments/ssm-bucketed.toml (issue 36): its `v10` lever is the table v10's seed-0 runs of
the state-space mixers, run id for run id, and `bucketed` changes nothing but the sampler."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from expressivity.sweeps.grid import lever_runs
from expressivity.sweeps.spec import load_sweep

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
MIXERS = {"mamba", "mamba-signed", "jamba-2", "samba-1", "s4d"}


def test_the_pilot_reuses_the_v10s_seed_0_runs_and_changes_only_the_batches() -> None:
    levers = lever_runs(load_sweep(EXPERIMENTS / "ssm-bucketed.toml"))
    table = {r.run_id: r for r in load_sweep(EXPERIMENTS / "table-v10.toml").expand()}
    seed0 = {i for i, r in table.items() if r.layout in MIXERS and r.seed == 0}
    assert {r.run_id for r in levers["v10"]} == seed0 and len(seed0) == 26 * 5
    twins = {(r.language, r.layout): r for r in levers["v10"]}
    assert len(levers["bucketed"]) == len(twins)
    for r in levers["bucketed"]:
        twin = twins[(r.language, r.layout)]
        train, twin_train = asdict(r.train), asdict(twin.train)
        assert (train["batching"], twin_train["batching"]) == ("bucketed", "uniform")
        assert {k: v for k, v in train.items() if k != "batching"} == {
            k: v for k, v in twin_train.items() if k != "batching"}
        assert (r.model, r.data, r.seed) == (twin.model, twin.data, twin.seed)
