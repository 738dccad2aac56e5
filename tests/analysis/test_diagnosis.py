"""Why a cell was missed (`analysis.diagnosis`): each stage from hand-made runs, the furthest
run chosen, the numbers its note states, the counts per family, and the hand-made store."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from expressivity.analysis.comparison import disagreements
from expressivity.analysis.diagnosis import (
    DIAGNOSIS_COLUMNS,
    MECHANISMS,
    by_cell,
    cell_key,
    diagnose,
    failure_table,
    run_stage,
)
from expressivity.analysis.schema import FAILED_WITHIN

_SPEC = json.dumps({"train": {"steps": 1000}})


def _run(run_id: str, layout: str = "global", *, seed: int = 0, train: float = 1.0,
         test: float = 1.0, adversarial: float = 1.0, recognized: bool = False,
         status: str = "completed", steps: int = 1000, extra: dict | None = None,
         language: str = "LT-1", n_star: int = 41) -> dict:
    return {"run_id": run_id, "language": language, "alphabet": pd.NA, "layout": layout,
            "seed": seed, "status": status, "recognized": recognized, "train_accuracy": train,
            "test_accuracy": test, "adversarial_accuracy": adversarial, "n_star": n_star,
            "max_train_length": 40, "steps": steps, "spec": _SPEC,
            "extra": json.dumps(extra or {})}


def test_each_stage_is_the_first_check_a_run_fails() -> None:
    assert run_stage(_run("a", train=0.9, test=0.8)) == "not fitted"
    assert run_stage(_run("b", train=1.0, test=0.8)) == "length"
    assert run_stage(_run("c", train=0.9, test=1.0, adversarial=0.5)) == "pairs"
    assert run_stage(_run("d", adversarial=float("nan"))) == "short words"  # no pair: passed
    assert run_stage(_run("e", recognized=True)) is None
    assert run_stage(_run("f", status="failed", test=0.5)) is None


@given(st.lists(st.sampled_from(list(MECHANISMS)), min_size=1, max_size=5))
def test_the_cell_takes_its_furthest_run(stages: list[str]) -> None:
    numbers = {"not fitted": (0.9, 0.8, 0.5), "length": (1.0, 0.8, 0.5),
               "pairs": (1.0, 1.0, 0.5), "short words": (1.0, 1.0, 1.0)}
    runs = pd.DataFrame([_run(f"r{i}", seed=i, train=numbers[s][0], test=numbers[s][1],
                              adversarial=numbers[s][2]) for i, s in enumerate(stages)])
    (row,) = diagnose(runs).to_dict("records")
    furthest = max(stages, key=list(MECHANISMS).index)
    assert row["mechanism"] == furthest
    assert row["seed"] == stages.index(furthest)  # ties: the lowest seed


def test_a_recognized_run_leaves_its_cell_out() -> None:
    runs = pd.DataFrame([_run("a", test=0.5, train=0.5), _run("b", seed=1, recognized=True)])
    assert diagnose(runs).empty
    assert dict(diagnose(runs).dtypes.astype(str)) == DIAGNOSIS_COLUMNS


def test_notes_state_the_furthest_runs_numbers() -> None:
    runs = pd.DataFrame([
        _run("nf", "mamba", train=0.554, test=0.493, steps=150, extra={"plateaued": True}),
        _run("len", "s4d", test=0.75, n_star=57),
        _run("pairs", "full", adversarial=0.5),
        _run("short", "local-1", extra={"short_words": {"n": 511, "correct": 509,
                                                        "errors": ["", "a b"], "max_length": 8}}),
    ])
    lengths = pd.DataFrame({"run_id": "len", "length": range(41, 61), "n": 2,
                            "correct": [2] * 16 + [1, 1, 0, 0]})  # longest quarter: 56-60
    adversarial = pd.DataFrame({"run_id": ["pairs", "pairs"], "kind": ["hard", "lc26:x"],
                                "n": [128, 2], "correct": [64, 2]})
    table = diagnose(runs, lengths, adversarial).set_index("layout")
    assert table.loc["mamba", "mechanism"] == "not fitted"
    assert "plateau rule at step 150 of 1,000" in table.loc["mamba", "note"]
    assert "0.554" in table.loc["mamba", "note"]
    assert table.loc["s4d", "long_accuracy"] == pytest.approx(4 / 10)
    assert "N* = 57" in table.loc["s4d", "note"] and "0.400" in table.loc["s4d", "note"]
    assert "'hard': 64/128" in table.loc["full", "note"]
    assert "2 of 511 wrong: ε, 'a b'" in table.loc["local-1", "note"]


def test_the_stopping_rule_is_read_from_the_record() -> None:
    runs = pd.DataFrame([
        _run("p", "global", train=0.9, test=0.8, steps=300, extra={"stopped_early": True}),
        _run("b", "mamba", train=0.9, test=0.8, steps=1000),
        _run("s", "s4d", train=0.9, test=0.8, steps=400),
    ])
    notes = diagnose(runs).set_index("layout")["note"]
    assert notes["global"].endswith("stopped at step 300 of 1,000 after perfect validations")
    assert notes["mamba"].endswith("trained the whole budget of 1,000 steps")
    assert notes["s4d"].endswith("stopped at step 400 of 1,000")


def test_failure_table_counts_missed_cells_per_family() -> None:
    diagnoses = diagnose(pd.DataFrame([
        _run("a", "global", test=0.8, train=0.9),
        _run("b", "mamba", adversarial=0.5),
        _run("c", "full", test=0.9),
        _run("d", "s4d", test=0.9, train=0.5),
    ]))
    comparison = pd.DataFrame({
        "language": "LT-1", "alphabet": pd.NA, "layout": ["global", "mamba", "full", "s4d"],
        "verdict": [FAILED_WITHIN, FAILED_WITHIN, FAILED_WITHIN, "agree"],
        "verdict_at_depth": [FAILED_WITHIN, "unknown prediction", "agree", "agree"],
    })
    table = failure_table(comparison, diagnoses).set_index(["depth", "family"])
    assert table.loc[("unbounded", "all"), "missed"] == 3
    assert table.loc[("unbounded", "causal attention"), "not fitted"] == 1
    assert table.loc[("unbounded", "state space"), "pairs"] == 1
    assert table.loc[("unbounded", "encoder"), "length"] == 1
    assert table.loc[("at depth", "all"), "missed"] == 1
    assert ("at depth", "state space") not in table.index  # no missed cell there


@pytest.mark.parametrize("missing", [pd.NA, None, "", float("nan")])
def test_a_missing_alphabet_is_one_key_whatever_the_frame_holds(missing: object) -> None:
    assert cell_key("LT-1", missing, "global") == ("LT-1", "", "global")
    assert cell_key("LT-1", "a,b", "global") == ("LT-1", "a,b", "global")
    diagnoses = diagnose(pd.DataFrame([_run("a", "mamba", adversarial=0.5)]))
    diagnoses["alphabet"] = [missing]
    mechanism, note = by_cell(diagnoses)[("LT-1", "", "mamba")]
    assert mechanism == "pairs" and "adversarial pairs" in note
    comparison = pd.DataFrame({"language": ["LT-1"], "alphabet": [missing], "layout": ["mamba"],
                               "verdict": [FAILED_WITHIN]})
    table = failure_table(comparison, diagnoses).set_index(["depth", "family"])
    assert table.loc[("unbounded", "state space"), "pairs"] == 1


def test_the_example_stores_missed_cell_is_a_shortcut(report) -> None:  # type: ignore[no-untyped-def]
    table = disagreements(report.comparison, report.summary, report.diagnoses)
    prefix = table[table["language"] == "PREFIX-a"].iloc[0]
    assert prefix["mechanism"] == "pairs" and "adversarial pairs" in prefix["note"]
    beyond = table[table["language"] == "DYCK-(1,2)"].iloc[0]
    assert pd.isna(beyond["mechanism"]) and "finite tests" in beyond["note"]
    failures = report.tables()["failures"][0]
    unbounded = failures[(failures["depth"] == "unbounded") & (failures["family"] == "all")]
    assert int(unbounded["missed"].iloc[0]) == int((report.comparison["verdict"]
                                                    == FAILED_WITHIN).sum())
