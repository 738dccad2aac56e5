"""experiments/table-v12.toml (issue 36): the table v11's runs, every one, under their run ids
(only where they were made changes), and its reused seed-0 runs are table-v11-here's."""

from __future__ import annotations

from expressivity.sweeps.spec import load_sweep
from tests.sweeps.twins import EXPERIMENTS, runs_by_key, seed_0_run_ids

MIXERS = {"mamba", "mamba-signed", "s4d", "samba-1", "jamba-2"}


def test_the_v12_is_the_v11_run_for_run() -> None:
    v11, v12 = runs_by_key("table-v11.toml"), runs_by_key("table-v12.toml")
    assert v11.keys() == v12.keys() and len(v12) == 26 * 23 * 3
    assert all(v12[key] == run for key, run in v11.items())


def test_its_seed_0_attention_and_encoder_runs_are_the_measurement_made_here() -> None:
    here = {r.run_id for r in load_sweep(EXPERIMENTS / "table-v11-here.toml").expand()}
    layouts = {r.layout for r in load_sweep(EXPERIMENTS / "table-v12.toml").expand()} - MIXERS
    assert seed_0_run_ids("table-v12.toml", layouts) == here
