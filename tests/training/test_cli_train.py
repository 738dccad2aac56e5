"""`expressivity train`: the per-length table, the verdict, and clean config errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from expressivity.cli import main


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`train` keeps each run in ./runs/train.db: run the commands in a scratch folder."""
    monkeypatch.chdir(tmp_path)


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


def test_train_keeps_the_run_where_predict_and_extract_find_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 29: a single run's id is printed, and `predict ID` works on it with no flags
    (default store runs/train.db), or with --dir for `train --out DIR`."""
    import sqlite3

    argv = ["train", "SUFFIX-a", "--layout", "local-1", "--profile", "tiny", "-q"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    run_id = out.split("run ", 1)[1].split(":", 1)[0]
    assert f"kept run {run_id} in runs/train.db" in out
    stored = sqlite3.connect(tmp_path / "runs" / "train.db").execute(
        "SELECT checkpoint FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    assert stored == (f"train.runs/{run_id}.pt",)  # relative to the store's folder
    assert main(["predict", run_id[:6], "aba", "abb"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("aba  accept") and lines[1].startswith("abb  reject")
    assert main(["results", "runs/train.db", "--runs"]) == 0
    listing = capsys.readouterr().out
    assert run_id in listing and "recognized" in listing and "local-1" in listing
    assert main([*argv, "--out", "mine", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    other = out.split("run ", 1)[1].split(":", 1)[0]
    assert "--dir mine" in out
    assert main(["predict", other, "ab", "--dir", "mine"]) == 0
    assert capsys.readouterr().out.startswith("ab")
    assert main(["predict", other, "ab"]) == 2  # not in the default store: a clean error
    assert "no run" in capsys.readouterr().err


def test_train_logic_ltlf_keeps_the_ltlf_text(capsys: pytest.CaptureFixture[str]) -> None:
    """The run's language is `ltlf:φ` (its own run id; resolved with LTLf's semantics)."""
    argv = ["train", "F(a & X F b)", "--alphabet", "a,b,c", "--logic", "ltlf", "--profile",
            "tiny", "--steps", "3", "-q"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ltlf:F(a & X F b) with global attention" in out
    assert "theory: global recognizes it? yes" in out  # LTLf's F(a & X F b) is PT-2
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
