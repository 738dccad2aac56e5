"""`expressivity train`: the per-length table, the verdict, and clean config errors."""

from __future__ import annotations

import json

import pytest

from expressivity.cli import main


def test_train_prints_the_table_and_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["train", "SUFFIX-a", "--layout", "local-1", "--profile", "tiny", "-q", "--verbose"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "SUFFIX-a with local-1 attention" in out and "profile tiny" in out
    assert "length" in out and "    16 " in out
    assert "N*=16" in out and "RECOGNIZED" in out


def test_train_json_record(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["train", "SUFFIX-a", "--layout", "local-1", "--profile", "tiny", "--steps", "3", "-q"]
    assert main([*args, "--json"]) == 0
    out = capsys.readouterr().out
    record = json.loads(out[out.index("{") :])
    assert record["status"] == "completed" and record["steps"] == 3
    assert record["spec"]["train"]["steps"] == 3


def test_bad_layout_is_a_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "SUFFIX-a", "--layout", "sideways", "--profile", "tiny"]) == 2
    assert "layout" in capsys.readouterr().err


def test_train_prints_a_compact_summary_and_the_prediction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["train", "SUFFIX-a", "--layout", "local-1", "--profile", "tiny", "-q"]) == 0
    out = capsys.readouterr().out
    assert "test lengths 13-16: 4 of 4 perfect" in out
    assert "    16 " not in out and " TP " not in out  # no per-length rows by default
    assert "RECOGNIZED" in out
    assert "theory: local-1 recognizes it? yes (LTL[Y] = definite: yes); agrees" in out


def test_every_thins_failing_rows_too() -> None:
    from expressivity.training.evaluate import length_table
    from expressivity.training.spec import LengthMetric, RunRecord, run_spec

    spec = run_spec("SUFFIX-a", "global", "tiny")
    failing = tuple(LengthMetric(n, 10, 5) for n in range(41, 101))  # 60 imperfect lengths
    table = length_table(RunRecord("x", spec, "completed", lengths=failing), every=10)
    rows = [r for r in table.splitlines() if r.strip()[:1].isdigit()]
    assert [int(r.split()[0]) for r in rows] == [41, 51, 61, 71, 81, 91, 100]


def test_train_at_start_trains_the_anchored_language(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["train", "a & X b", "--alphabet", "a,b", "--profile", "tiny", "--steps", "3", "-q"]
    assert main([*argv, "--at", "start"]) == 0
    captured = capsys.readouterr()
    assert "run " in captured.out
    assert "ltl:start & (a & X b) | P(start & (a & X b)) with global attention" in captured.out
    assert "warning" not in captured.err


def test_train_takes_the_length_aware_and_plateau_levers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["train", "SUFFIX-a", "--layout", "local-1", "--profile", "tiny", "--steps", "5",
            "-q", "--attention-scale", "ssmax", "--plateau-rule", "improving", "--json"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    record = json.loads(out[out.index("{") :])
    assert record["spec"]["model"] == {"attention_scale": "ssmax"}
    assert record["spec"]["train"]["plateau_rule"] == "improving"
    assert record["extra"]["short_words"]["n"] == 511
    assert main(argv[:-1]) == 0
    assert "theory: local-1+ssmax recognizes it? yes" in capsys.readouterr().out
