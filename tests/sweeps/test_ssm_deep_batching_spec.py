"""experiments/ssm-deep-batching.toml (issue 36): the 10 deepest state-space cells, seeds 0-2;
`bucketed` is the table v11's runs of them and `uniform` the table v10's, run id for run id,
and the two differ in nothing but the sampler."""

from __future__ import annotations

from expressivity.sweeps.grid import lever_runs
from expressivity.sweeps.spec import load_sweep
from tests.sweeps.twins import EXPERIMENTS, assert_train_twins, runs_by_key

DEEP = {"TOMITA-7", "LDP-2"}
MIXERS = {"mamba", "mamba-signed", "jamba-2", "samba-1", "s4d"}


def _table_run_ids(table: str) -> set[str]:
    return {r.run_id for (language, layout, _, _), r in runs_by_key(table).items()
            if language in DEEP and layout in MIXERS}


def test_the_levers_are_the_v10s_and_the_v11s_runs_of_the_deepest_cells() -> None:
    uniform = assert_train_twins("ssm-deep-batching.toml", "uniform", "bucketed",
                                 {"batching": ("bucketed", "uniform")})
    assert {r.run_id for r in uniform} == _table_run_ids("table-v10.toml")
    assert len(uniform) == 2 * 5 * 3
    assert min(r.model["n_layers"] for r in uniform) == 4  # the v10's and v11's depths


def test_the_bucketed_lever_is_the_v11s_runs() -> None:
    levers = lever_runs(load_sweep(EXPERIMENTS / "ssm-deep-batching.toml"))
    assert {r.run_id for r in levers["bucketed"]} == _table_run_ids("table-v11.toml")
