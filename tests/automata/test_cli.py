"""`expressivity compile`: the table, the DOT file, the picture and the errors."""

from __future__ import annotations

import shutil

import pytest

from expressivity.automata.compile import compile_formula
from expressivity.cli import main
from expressivity.logic.parser import parse
from expressivity.resolve import resolve
from tests.automata.conftest import ABC


def test_compile_formula_prints_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", "P(b & Y a)", "--alphabet", "a,b,c"]) == 0
    out = capsys.readouterr().out
    assert "3 states" in out
    assert "->" in out and "*2" in out.replace(" ", "")


def test_compile_regex_writes_dot_and_png(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    dot, png = tmp_path / "d.dot", tmp_path / "d.png"
    args = ["compile", "(a b)*", "-a", "a,b", "--dot", str(dot)]
    if shutil.which("dot"):
        args += ["--png", str(png)]
    assert main(args) == 0
    assert "regex" in capsys.readouterr().out
    assert dot.read_text().startswith("digraph")
    if shutil.which("dot"):
        assert png.read_bytes()[:4] == b"\x89PNG"


def test_bad_text_exits_with_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", "(a b", "-a", "a,b"]) == 2
    assert "error" in capsys.readouterr().err


def test_resolve_reads_formulas_then_regexes() -> None:
    assert resolve("P(b & Y a)", "a,b,c").dfa == compile_formula(parse("P(b & Y a)"), ABC)
    assert resolve(".* a b .*", "a,b,c").dfa == resolve("P(b & Y a)", "a,b,c").dfa
