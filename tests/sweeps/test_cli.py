"""The ``expressivity sweep`` and ``expressivity results`` commands."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from expressivity.cli import build_parser, main
from expressivity.sweeps.ensembles import MAX_AUTO_GROUP
from expressivity.sweeps.runner import run_sweep
from tests.sweeps.conftest import InlineExecutor
from tests.sweeps.fake import fake_train

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


@pytest.mark.parametrize(
    ("name", "runs"),
    [("quick", 18), ("paper_lc25", 180), ("paper_lc26", 840), ("catalogue-quick", 286),
     ("catalogue", 858), ("paper_full", 4290), ("positions", 216), ("catalogue-followup", 24)],
)
def test_dry_run_counts_runs_and_estimates_compute(
    name: str, runs: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.db"
    assert main(["sweep", str(EXPERIMENTS / f"{name}.toml"), "--db", str(db), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"{runs} runs" in out and f"{runs} to run" in out
    assert "core-hours" in out and "FLOPs" in out
    assert not db.exists()


def test_dry_run_gives_the_hours_at_a_benchmarked_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec, db = str(EXPERIMENTS / "paper_full.toml"), str(tmp_path / "r.db")
    assert main(["sweep", spec, "--db", db, "--dry-run", "--rate", "1000"]) == 0
    out = capsys.readouterr().out
    # 4,290 runs × 1,000,000 budget steps at 1,000 runs·steps per second
    assert "optimizer steps  4,290,000,000" in out
    assert "1,191.7 hours at 1000 runs·steps/s" in out
    assert main(["sweep", spec, "--db", db, "--dry-run", "--rate", "0"]) != 0
    assert "rate: runs·steps per second must be > 0, got 0.0" in capsys.readouterr().err


def test_results_prints_the_summary_table(
    small_spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.db"
    run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False)
    capsys.readouterr()
    assert main(["results", str(db), "--matrix"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0].split()
    assert header == [
        "language", "layout", "runs", "failed", "mean_accuracy", "max_accuracy", "n_star",
        "adversarial_accuracy", "perfect_on_test", "untested_short", "recognized", "d*",
        "at_depth", "predicted", "vs_theory",
    ]
    assert sum(line.startswith(("PREFIX-a", "SUFFIX-a")) for line in out.splitlines()) == 6
    assert main(["results", str(db), "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("language,layout,runs")
    assert main(["results", str(db), "--sweep", "nope"]) == 1


def test_bad_inputs_exit_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["results", str(tmp_path / "missing.db")]) == 2
    assert "no such results store" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text('[sweep]\nname = "b"\n[axes]\nlanguages = ["NOPE"]\n', encoding="utf-8")
    assert main(["sweep", str(bad), "--dry-run"]) == 2
    assert f"{bad}:4:" in capsys.readouterr().err


def test_sweep_runs_a_tiny_spec_and_prints_the_recognition_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "one.toml"
    spec.write_text(
        '[sweep]\nname = "one"\nprofile = "tiny"\n[base]\n"train.steps" = 20\n'
        '[axes]\nlanguages = ["SUFFIX-a"]\nlayouts = ["local-1"]\n',
        encoding="utf-8",
    )
    db = tmp_path / "r.db"
    args = ["sweep", str(spec), "--db", str(db), "--jobs", "1", "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "1 completed and 0 failed now" in out
    assert "SUFFIX-a" in out and "local-1" in out
    assert main(args) == 0  # resumed: nothing to do, same table
    again = capsys.readouterr().out
    assert "1 completed, 0 failed before; 0 to run" in again and "SUFFIX-a" in again


def test_dry_run_prints_the_theory_of_every_cell(
    small_spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sweep", str(small_spec), "--db", str(tmp_path / "r.db"), "--dry-run",
                 "--theory"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("theory ("):].splitlines()
    assert table[1].split() == ["language", "global", "local-1"]
    # Σ*a is definite (local-1: yes) and not R-trivial (global: no); aΣ* the other way round
    assert table[2].split() == ["SUFFIX-a", "no", "yes"]
    assert table[3].split() == ["PREFIX-a", "yes", "no"]
    assert table[4] == "4 cells: 2 yes, 2 no, 0 unknown"
    assert not (tmp_path / "r.db").exists()


def test_the_group_help_says_what_auto_does() -> None:
    """'auto' is one run at a time on a CPU and batched ensembles on a GPU
    (`auto_group_size`), at most `MAX_AUTO_GROUP` members: the help says so."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    group = next(a for a in commands.choices["sweep"]._actions if "--group" in a.option_strings)
    text = " ".join(str(group.help).split())
    assert "one by one on a CPU" in text and "on a GPU" in text, text
    assert f"at most {MAX_AUTO_GROUP})" in text and "fits memory" not in text, text
