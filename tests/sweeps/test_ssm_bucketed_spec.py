"""experiments/ssm-bucketed.toml (issue 36): its `v10` lever is the table v10's seed-0 runs of
the state-space mixers, run id for run id, and `bucketed` changes nothing but the sampler."""

from __future__ import annotations

from tests.sweeps.twins import assert_train_twins, seed_0_run_ids

MIXERS = {"mamba", "mamba-signed", "jamba-2", "samba-1", "s4d"}


def test_the_pilot_reuses_the_v10s_seed_0_runs_and_changes_only_the_batches() -> None:
    v10 = assert_train_twins("ssm-bucketed.toml", "v10", "bucketed",
                             {"batching": ("bucketed", "uniform")})
    seed0 = seed_0_run_ids("table-v10.toml", MIXERS)
    assert {r.run_id for r in v10} == seed0 and len(seed0) == 26 * 5
