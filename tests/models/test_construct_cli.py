"""The ``expressivity construct`` command: size, agreement check, precision, save, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from expressivity.cli import COMMANDS, main


def test_construct_is_a_registered_command() -> None:
    assert "construct" in COMMANDS


def test_construct_prints_size_coordinates_and_check(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["construct", "P(b & Y a)", "--alphabet", "a,b,c", "--check-up-to", "5",
               "--random", "2", "--max-length", "60", "--precision"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "2 layers" in out and "layer 1 head 1 [L1]: Y a" in out and "x[" in out
    assert "agrees with the DFA" in out
    assert "float32 60, bfloat16 60, float16 60" in out


def test_construct_synthesizes_and_saves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "model.pt"
    rc = main(["construct", "re:a b (a|b)*", "-a", "a,b", "-q", "--check-up-to", "6",
               "--random", "2", "--max-length", "40", "--save", str(target)])
    out = capsys.readouterr().out
    assert rc == 0 and target.exists()
    assert "synthesized from the DFA" in out and "x[" not in out


def test_construct_reports_disagreement_with_low_sharpness(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc = main(["construct", "LT-1", "-q", "--sharpness", "0.5", "--check-up-to", "6",
               "--random", "4", "--max-length", "80"])
    assert rc == 1 and "DISAGREES" in capsys.readouterr().out


@pytest.mark.parametrize("text", ["a S b0", "F a", "RDP-1"])
def test_construct_refuses_formulas_outside_the_fragment(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["construct", text, "-a", "a,b0,b1,c"]) == 2
    assert "outside LTL[P,Y]" in capsys.readouterr().err


def test_construct_output_is_consistent(capsys: pytest.CaptureFixture[str]) -> None:
    import re

    assert main(["construct", "P(b & Y a)", "--alphabet", "a,b,c", "--check-up-to", "4",
                 "--random", "0"]) == 0
    out = capsys.readouterr().out
    assert out.count("P(b & Y a) over") == 1  # the language line is printed once
    assert "2 layers, 1 head per layer (2 active)" in out and "heads/layer" not in out
    head_layers = {int(n) for n in re.findall(r"layer (\d+) head", out)}
    coordinate_layers = {int(n) for n in re.findall(r"\(layer (\d+) ", out)}
    assert head_layers == coordinate_layers == {1, 2}  # one numbering, from 1
    assert main(["construct", "LT-2", "-q", "--check-up-to", "3", "--random", "0"]) == 0
    out = capsys.readouterr().out
    assert "language   LT-2 over {a,b,c} (catalogue)" in out
    assert "formula    P(b & Y a)" in out


def test_construct_checks_every_float_format(capsys) -> None:  # type: ignore[no-untyped-def]
    """Issue 29: the README promises the check in float32, bfloat16 and float16."""
    from expressivity.cli import main

    assert main(["construct", "P(b & Y a)", "--alphabet", "a,b,c", "--check-up-to", "5",
                 "--random", "2", "--max-length", "60", "-q"]) == 0
    checks = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("check")]
    assert [ln.rsplit(", ", 1)[1] for ln in checks] == ["float32)", "bfloat16)", "float16)"]
    assert all("agrees with the DFA" in ln for ln in checks)
