"""`expressivity masks`: the second source's two example masks print exactly; bad input is a
clear error; --plot writes a picture."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from expressivity.cli import main

ROOT = Path(__file__).resolve().parents[2]

#: A window of size 2 (each token sees itself and its two neighbours) and global tokens at
#: positions 0 and 2, over BOS, w1..w3, EOS: the survey's two examples.
WINDOW = """\
    BOS  w1  w2  w3 EOS
BOS   1   1   0   0   0
w1    1   1   1   0   0
w2    0   1   1   1   0
w3    0   0   1   1   1
EOS   0   0   0   1   1"""
GLOBAL_0_2 = """\
    BOS  w1  w2  w3 EOS
BOS   1   1   1   1   1
w1    1   1   1   0   0
w2    1   1   1   1   1
w3    1   0   1   1   0
EOS   1   0   1   0   1"""


@pytest.mark.parametrize(("spelling", "grid"), [("W1", WINDOW), ("AT0+AT2", GLOBAL_0_2),
                                                ("window-1", WINDOW)])
def test_the_two_example_masks(spelling: str, grid: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["masks", spelling, "--length", "5"]) == 0
    out = capsys.readouterr().out
    assert grid in out
    assert "1 distinct head pattern(s) over 5 tokens (BOS, w1, w2, w3, EOS)" in out


def test_the_guide_shows_the_cli_output(capsys: pytest.CaptureFixture[str]) -> None:
    guide = (ROOT / "docs" / "guide" / "encoders.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n\$ (expressivity masks [^\n]+)\n(.*?)```", guide, re.S)
    assert len(blocks) >= 2
    for command, shown in blocks:
        assert main(command.split()[1:]) == 0
        assert capsys.readouterr().out == shown


def test_swin_prints_one_pattern_per_layer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["masks", "swin-2", "--length", "6"]) == 0
    out = capsys.readouterr().out
    assert "pattern SW2 (layer 0 heads 0-3)" in out and "pattern SWS2 (layer 1 heads 0-3)" in out
    assert main(["masks", "swin-2", "--length", "6", "--layer", "1"]) == 0
    assert "SW2 (" not in capsys.readouterr().out


def test_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "masks.png"
    assert main(["masks", "bigbird-enc-2-1-1", "--length", "9", "--plot", str(target)]) == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {target}" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "what"), [
    (["masks", "W1", "--length", "1"], "--length"),
    (["masks", "W1", "--layer", "5"], "--layer"),
    (["masks", "BW0"], "needs numbers >= 1"),
    (["masks", "SF2.3"], "needs 1 <= c <= l"),
    (["masks", "Q7"], "unknown atom"),
])
def test_bad_input_is_a_clear_error(argv: list[str], what: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and what in err and "Traceback" not in err
