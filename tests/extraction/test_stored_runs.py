"""Stores keep checkpoint paths relative to themselves, so a store moves with its .runs folder."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from expressivity.checkpoint import recorded_path, stored_path
from expressivity.cli import main
from expressivity.extraction.runs import load_run


def test_paths_under_the_store_are_recorded_relative(tmp_path: Path) -> None:
    store = tmp_path / "a" / "s.db"
    inside = tmp_path / "a" / "s.runs" / "x.pt"
    assert recorded_path(str(inside), store) == "s.runs/x.pt"
    assert stored_path("s.runs/x.pt", store) == tmp_path / "a" / "s.runs" / "x.pt"
    outside = tmp_path / "elsewhere" / "x.pt"
    assert recorded_path(str(outside), store) == str(outside)  # kept absolute
    assert stored_path(str(outside), store) == outside
    assert recorded_path("", store) == ""


def test_a_moved_store_and_an_old_absolute_path_still_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["train", "SUFFIX-a", "--layout", "local-1", "--profile", "tiny", "-q",
                 "--steps", "5"]) == 0
    run_id = capsys.readouterr().out.split("run ", 1)[1].split(":", 1)[0]
    moved = tmp_path / "clone" / "results"
    shutil.copytree(tmp_path / "runs", moved)
    shutil.rmtree(tmp_path / "runs")
    assert load_run(moved / "train.db", run_id).checkpoint == moved / "train.runs" / f"{run_id}.pt"
    with sqlite3.connect(moved / "train.db") as conn:  # as a store written elsewhere recorded it
        conn.execute("UPDATE runs SET checkpoint = ?",
                     (f"/home/someone/old/train.runs/{run_id}.pt",))
    assert load_run(moved / "train.db", run_id).checkpoint == moved / "train.runs" / f"{run_id}.pt"


def test_the_checkpoints_the_readme_cites_are_committed(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 29: `predict 60a583796568d547 --db paper_figures/catalogue-quick/...` and the LT-1
    example run from a checkout: their checkpoints lie beside the committed stores."""
    root = Path(__file__).resolve().parents[2] / "paper_figures"
    quick = str(root / "catalogue-quick" / "catalogue-quick.db")
    assert main(["predict", "60a583796568d547", "--db", quick, "eps", "aaa"]) == 0
    eps, aaa = capsys.readouterr().out.splitlines()
    assert eps.split("logit")[1].split()[0] == aaa.split("logit")[1].split()[0]  # the tie
    full = str(root / "catalogue" / "catalogue.db")
    middle = "b" * 40 + "a" + "c" * 40  # length 81: accepted; the shortcut breaks beyond
    assert main(["predict", "6594c24c2b705f77", "--db", full, middle]) == 0
    assert " accept " in capsys.readouterr().out
