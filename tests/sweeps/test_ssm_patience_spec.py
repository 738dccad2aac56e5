"""experiments/ssm-patience-late.toml (issue 36): its `v9` lever is the table v9's seed-0
state-space runs, run id for run id, and `patience-late` changes nothing but the patience rule."""

from __future__ import annotations

from tests.sweeps.twins import assert_train_twins, seed_0_run_ids

MIXERS = {"mamba", "mamba-signed", "s4d", "samba-1", "jamba-2"}


def test_the_pilot_reuses_the_v9s_seed_0_mixer_runs_and_changes_only_patience() -> None:
    v9 = assert_train_twins("ssm-patience-late.toml", "v9", "patience-late",
                            {"patience": (2, 0), "patience_start": (1000, 0)})
    seed0 = seed_0_run_ids("table-v9.toml", MIXERS)
    assert {r.run_id for r in v9} == seed0 and len(seed0) == 26 * 5
