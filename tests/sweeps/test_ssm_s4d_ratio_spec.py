"""experiments/ssm-s4d-ratio.toml (issue 36): `v11` is the table v11's s4d runs under their run
ids, and each ratio lever differs from it only in the write penalty, λ and form."""

from __future__ import annotations

from expressivity.sweeps.grid import lever_runs
from expressivity.sweeps.spec import load_sweep
from tests.sweeps.twins import EXPERIMENTS, assert_train_twins


def test_v11_is_the_tables_s4d_runs() -> None:
    v11 = {r.run_id for r in load_sweep(EXPERIMENTS / "table-v11.toml").expand()
           if r.layout == "s4d"}
    pilot = lever_runs(load_sweep(EXPERIMENTS / "ssm-s4d-ratio.toml"))
    assert {r.run_id for r in pilot["v11"]} == v11 and len(v11) == 26 * 3


def test_the_ratio_levers_change_the_write_penalty_only() -> None:
    for lever, lam in (("ratio-0.1", 0.1), ("ratio-1", 1.0)):
        assert_train_twins("ssm-s4d-ratio.toml", "v11", lever,
                           {"write_penalty": (lam, 0.0), "write_penalty_form": ("ratio", "l1")})
