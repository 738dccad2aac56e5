"""experiments/table-v11.toml (issue 36): the table v10 with length-bucketed batches for the
state-space cells; every other run the v10's, and the state-space seed-0 runs the pilot's."""

from __future__ import annotations

from dataclasses import replace

from expressivity.sweeps.grid import lever_runs
from expressivity.sweeps.spec import load_sweep
from tests.sweeps.twins import EXPERIMENTS, runs_by_key, seed_0_run_ids

MIXERS = {"mamba", "mamba-signed", "s4d", "samba-1", "jamba-2"}


def test_the_v11_is_the_v10_with_bucketed_batches_for_the_state_space_cells() -> None:
    v10, v11 = runs_by_key("table-v10.toml"), runs_by_key("table-v11.toml")
    assert v10.keys() == v11.keys() and len(v11) == 26 * 23 * 3
    changed = 0
    for key, run in v11.items():
        twin = v10[key]
        if run.layout not in MIXERS:
            assert run.run_id == twin.run_id, key  # reused: the v10's run
            continue
        changed += 1
        assert (run.train.batching, twin.train.batching) == ("bucketed", "uniform"), key
        assert replace(run, train=replace(run.train, batching="uniform")) == twin, key
        assert run.run_id != twin.run_id
    assert changed == 26 * 5 * 3
    assert all(r.train.batching == "uniform" for r in v10.values())


def test_the_state_space_seed_0_runs_are_the_pilots_bucketed_runs() -> None:
    levers = lever_runs(load_sweep(EXPERIMENTS / "ssm-bucketed.toml"))
    pilot = {r.run_id for r in levers["bucketed"]}
    assert seed_0_run_ids("table-v11.toml", MIXERS) == pilot and len(pilot) == 26 * 5
