"""A reader that stops early (`| head -1`) ends the command quietly, as with Unix tools."""

from __future__ import annotations

import subprocess
import sys


def test_closed_stdout_prints_no_traceback() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "expressivity.cli", "languages", "--no-check"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert err == ""


def test_pipe_into_head() -> None:
    out = subprocess.run(
        f"{sys.executable} -m expressivity.cli languages | head -1",
        shell=True, capture_output=True, text=True, check=True, timeout=60,
    )
    assert out.stdout.count("\n") == 1 and "Traceback" not in out.stderr
