"""experiments/ssm-s4d-glu.toml (issue 36): `v12` is the table v12's s4d runs under their run
ids, and `gelu-glu` differs from it only in the S4D output map."""

from __future__ import annotations

from dataclasses import asdict

from expressivity.sweeps.grid import lever_runs
from expressivity.sweeps.spec import load_sweep
from tests.sweeps.twins import EXPERIMENTS


def test_v12_is_the_tables_s4d_runs() -> None:
    v12 = {r.run_id for r in load_sweep(EXPERIMENTS / "table-v12.toml").expand()
           if r.layout == "s4d"}
    pilot = lever_runs(load_sweep(EXPERIMENTS / "ssm-s4d-glu.toml"))
    assert {r.run_id for r in pilot["v12"]} == v12 and len(v12) == 26 * 3


def test_gelu_glu_changes_the_output_map_only() -> None:
    levers = lever_runs(load_sweep(EXPERIMENTS / "ssm-s4d-glu.toml"))
    twins = {(r.language, r.seed): r for r in levers["v12"]}
    assert len(levers["gelu-glu"]) == len(twins) == 26 * 3
    for r in levers["gelu-glu"]:
        twin = twins[(r.language, r.seed)]
        assert r.model == {**twin.model, "s4d_output": "gelu-glu"}
        assert "s4d_output" not in twin.model
        assert (asdict(r.train), r.data, r.layout) == (asdict(twin.train), twin.data, twin.layout)
        assert r.run_id != twin.run_id
