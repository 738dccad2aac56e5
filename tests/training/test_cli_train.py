"""`expressivity train`: the per-length table, the verdict, and clean config errors."""

from __future__ import annotations

import json

import pytest

from expressivity.cli import main


def test_train_prints_the_table_and_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "SUFFIX-a", "--layout", "local-1", "--profile", "tiny", "-q"]) == 0
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
