"""A sweep's [rule] judged from its store: met, not met (with every reason) or pending."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from expressivity.analysis.lever_pairing import lever_cells, lever_pairs, mcnemar_exact
from expressivity.analysis.levers import lever_table
from expressivity.analysis.rule import RULE_COLUMNS, decide, judge_rule, sweep_rules
from expressivity.sweeps.grid import SweepSpec, lever_runs
from expressivity.sweeps.rule import Rule
from expressivity.sweeps.spec import parse_sweep
from tests.sweeps.test_levers import SPEC

RULED = SPEC + '\n[rule]\nlever = "hard"\nbaseline = "baseline"\nalpha = 0.05\n'


@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 20), st.integers(0, 20),
       st.sampled_from([0.01, 0.025, 0.05, 0.2]))
def test_decide_is_the_rule_as_written(base: int, lever: int, no_cells: int, held: int,
                                       alpha: float) -> None:
    held = min(held, no_cells)
    verdict = decide(Rule("L", "B", alpha), base, lever, no_cells, held)
    p = mcnemar_exact(base, lever)
    met = lever > base and p < alpha and held == no_cells
    assert (verdict == "met") == met
    if not met:
        assert verdict.startswith("not met: ")
        assert ("gains" in verdict) == (lever <= base)
        assert ("is not below" in verdict) == (p >= alpha)
        assert ("not held" in verdict) == (held < no_cells)


def test_known_verdicts() -> None:
    rule = Rule("hard-step-1", "v7", 0.05)
    # the held-out check of docs/guide/ssm.md: 11 gained, 4 lost
    assert decide(rule, 4, 11, 22, 22) == "not met: p = 0.12 is not below 0.05"
    assert decide(rule, 0, 6, 22, 22) == "met"  # p = 2/64
    assert decide(rule, 0, 6, 22, 21) == ('not met: 1 of its 22 certified "no" cells not held')
    assert decide(rule, 9, 1, 0, 0).startswith("not met: `hard-step-1` gains 1 cells and "
                                                "loses 9")


def _swept(tmp_path: Path, text: str, fail: tuple[str, ...] = ()) -> tuple[SweepSpec, Path]:
    from functools import partial

    from expressivity.sweeps.runner import run_sweep
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    spec = parse_sweep(text, "a.toml")
    db = tmp_path / "r.db"
    run_sweep(spec, db, executor=InlineExecutor(), train_fn=partial(fake_train, fail=fail),
              progress=False, group="off")
    return spec, db


def _runs(db: Path) -> pd.DataFrame:
    from expressivity.sweeps.store import ResultsStore

    with ResultsStore(db, create=False) as store:
        return store.runs()


def test_a_complete_sweep_is_judged_from_its_pairs(tmp_path: Path) -> None:
    spec, db = _swept(tmp_path, RULED)
    runs = _runs(db)
    row = judge_rule(runs, spec)
    assert set(row) == set(RULE_COLUMNS)
    assert (row["runs"], row["completed"]) == (8, 8)  # 2 cells × 2 seeds × 2 levers
    cells = lever_cells(runs, spec)
    pair = lever_pairs({"baseline": cells["baseline"], "hard": cells["hard"]}).iloc[0]
    assert (row["only_baseline"], row["only_lever"]) == (pair["only_a"], pair["only_b"])
    learned = lever_table(runs, spec).set_index("lever")
    assert row["baseline_learned"] == learned.loc["baseline", "yes_learned"]
    assert row["lever_learned"] == learned.loc["hard", "yes_learned"]
    assert (row["no_cells"], row["no_held"]) == (learned.loc["hard", "no_cells"],
                                                 learned.loc["hard", "no_held"])
    assert spec.rule is not None
    assert row["verdict"] == decide(spec.rule, int(pair["only_a"]), int(pair["only_b"]),
                                    int(learned.loc["hard", "no_cells"]),
                                    int(learned.loc["hard", "no_held"]))


def test_a_rule_on_part_of_its_runs_is_pending(tmp_path: Path) -> None:
    spec, db = _swept(tmp_path, RULED, fail=("PREFIX-a",))
    row = judge_rule(_runs(db), spec)
    assert row["verdict"] == "pending: 4 of the 8 runs of `baseline` and `hard` completed"
    assert row["p_value"] is None and row["yes_cells"] is None


def test_judging_needs_a_rule_and_a_store_without_one_has_none() -> None:
    with pytest.raises(ValueError, match="has no \\[rule\\]"):
        judge_rule(pd.DataFrame(columns=["run_id", "status"]), parse_sweep(SPEC, "a.toml"))
    empty = sweep_rules(pd.DataFrame(columns=["run_id", "status"]),
                        {"ablation": parse_sweep(SPEC, "a.toml")})
    assert empty.empty and list(empty.columns) == list(RULE_COLUMNS)


def test_the_figures_state_the_rule_and_its_verdict(tmp_path: Path) -> None:
    from expressivity.analysis.figures import write_figures

    _, db = _swept(tmp_path, RULED)
    write_figures(db, tmp_path / "out", formats=("svg",))
    page = (tmp_path / "out" / "README.md").read_text()
    assert "## The rule" in page
    assert "- **ablation**: `hard` learns more proven-yes cells than `baseline`" in page
    assert "**met**" in page or "**not met**:" in page
    assert (tmp_path / "out" / "tables" / "rules.csv").exists()


def test_the_cli_states_the_rule_before_and_judges_it_after(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from expressivity.cli import main
    from expressivity.cli.results import rule_lines
    from expressivity.sweeps.store import ResultsStore

    spec_file = tmp_path / "a.toml"
    spec_file.write_text(RULED)
    assert main(["sweep", str(spec_file), "--db", str(tmp_path / "dry.db"), "--dry-run"]) == 0
    assert ("rule: `hard` learns more proven-yes cells than `baseline`"
            in capsys.readouterr().out)
    spec, db = _swept(tmp_path, RULED)
    with ResultsStore(db, create=False) as store:
        lines = rule_lines(store.sweeps(), store.runs())
    assert spec.rule is not None
    assert lines == [f"rule of ablation ({spec.rule.text}): "
                     f"{judge_rule(_runs(db), spec)['verdict']}"]
    assert main(["results", str(db), "--no-theory"]) == 0
    assert lines[0] in capsys.readouterr().out


def test_the_baseline_is_the_rules_whatever_the_specs_order(tmp_path: Path) -> None:
    reversed_rule = RULED.replace('lever = "hard"\nbaseline = "baseline"',
                                  'lever = "baseline"\nbaseline = "hard"')
    spec, db = _swept(tmp_path, reversed_rule)
    ruled_spec = parse_sweep(RULED, "a.toml")
    forward, backward = judge_rule(_runs(db), ruled_spec), judge_rule(_runs(db), spec)
    assert (backward["only_baseline"], backward["only_lever"]) == (forward["only_lever"],
                                                                   forward["only_baseline"])
    assert backward["baseline_learned"] == forward["lever_learned"]


def test_a_seed_made_unnecessary_is_not_waited_for(tmp_path: Path) -> None:
    """Under "until-recognized" a cell recognized by an earlier seed runs no later seed, and
    the rule is judged once the runs the policy makes are stored (it was pending for ever)."""
    text = RULED.replace('name = "ablation"', 'name = "ablation"\nseed_policy = "until-recognized"')
    text = text.replace("seeds = [0, 1]", "seeds = [0, 1, 2, 3]")
    spec, db = _swept(tmp_path, text)
    runs = _runs(db)
    row = judge_rule(runs, spec)
    stored = set(runs["run_id"])
    made = {r.run_id for name in ("baseline", "hard")
            for r in lever_runs(spec)[name] if r.run_id in stored}
    assert len(made) < 16  # some seed was skipped: 2 cells × 4 seeds × 2 levers otherwise
    assert (row["runs"], row["completed"]) == (len(made), len(made))
    assert not str(row["verdict"]).startswith("pending")
    all_seeds = judge_rule(runs, replace(spec, seed_policy="all"))
    assert str(all_seeds["verdict"]).startswith("pending")  # the old reading waits for ever
