"""The `python -m expressivity.analysis.…` scripts report bad input as one line, no traceback."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from expressivity.errors import StoreError, script_status


@pytest.mark.parametrize("module, extra", [("memory", []), ("edit_positions", []),
                                           ("channel_steps", [])])
def test_a_missing_store_is_one_error_line(module: str, extra: list[str], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    main = importlib.import_module(f"expressivity.analysis.{module}").main
    argv = [str(tmp_path / "missing.db"), *extra, "--out", str(tmp_path / "out.md")]
    assert script_status(lambda: main(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "missing.db" in err and "Traceback" not in err
    assert not (tmp_path / "out.md").exists()


def test_the_certificate_probe_names_a_missing_figures_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from expressivity.analysis.certificate_probe import main

    argv = ["store.db", "--figures", str(tmp_path), "--out", str(tmp_path / "out.md")]
    assert script_status(lambda: main(argv)) == 2
    err = capsys.readouterr().err
    assert "predicted_vs_observed.csv: no such table" in err and "--figures" in err


@pytest.mark.parametrize("module", ["rerun", "replication"])
def test_the_two_store_scripts_exit_with_the_error_line(
        module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main = importlib.import_module(f"expressivity.analysis.{module}").main
    argv = [str(tmp_path / "a.db"), str(tmp_path / "b.db"), "--out", str(tmp_path / "out.md")]
    assert script_status(lambda: main(argv)) == 2  # `rerun.stored_runs`' StoreError
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "a.db" in err and "Traceback" not in err
    assert not (tmp_path / "out.md").exists()


def test_the_status_of_a_script_that_succeeds_or_fails_otherwise_is_its_own() -> None:
    assert script_status(lambda: 0) == 0 and script_status(lambda: 3) == 3
    with pytest.raises(ZeroDivisionError):  # a bug is not bad input: it keeps its traceback
        script_status(lambda: 1 // 0)

    def refuse() -> int:
        raise StoreError("no store")

    assert script_status(refuse) == 2


def test_python_dash_m_exits_with_the_error_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "expressivity.analysis.edit_positions",
                           str(tmp_path / "none.db"), "--out", str(tmp_path / "x.md")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr
