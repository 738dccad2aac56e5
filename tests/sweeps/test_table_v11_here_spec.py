"""experiments/table-v11-here.toml (issue 36): exactly the table v11's seed-0 attention and
encoder runs, under their run ids, so that its store sets each beside its original."""

from __future__ import annotations

from expressivity.sweeps.spec import load_sweep
from tests.sweeps.twins import EXPERIMENTS, seed_0_run_ids

MIXERS = {"mamba", "mamba-signed", "s4d", "samba-1", "jamba-2"}


def test_the_measurement_is_the_v11s_seed_0_attention_and_encoder_runs() -> None:
    here = load_sweep(EXPERIMENTS / "table-v11-here.toml").expand()
    layouts = {r.layout for r in load_sweep(EXPERIMENTS / "table-v11.toml").expand()} - MIXERS
    assert {r.run_id for r in here} == seed_0_run_ids("table-v11.toml", layouts)
    assert len(here) == 468 and {r.seed for r in here} == {0}
    assert not {r.layout for r in here} & MIXERS
