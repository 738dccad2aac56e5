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
