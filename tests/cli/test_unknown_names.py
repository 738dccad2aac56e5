"""Unknown catalogue names: every command says so, with close matches, before any work."""

from __future__ import annotations

import pytest

from expressivity.catalogue import get_language
from expressivity.cli import main
from expressivity.errors import CatalogueError
from expressivity.resolve import resolve


def test_lookup_suggests_close_names() -> None:
    with pytest.raises(CatalogueError, match=r"unknown language 'LT2' \(did you mean LT-2\?\)"):
        get_language("LT2")


def test_resolve_reports_an_unknown_name_not_a_missing_alphabet() -> None:
    with pytest.raises(CatalogueError, match=r"did you mean SUFFIX-a"):
        resolve("SUFIX-a")
    with pytest.raises(CatalogueError, match=r"unknown language 'NOPE-1'"):
        resolve("NOPE-1")
    with pytest.raises(CatalogueError, match=r"did you mean LT-2"):
        resolve("LT2", "a,b,c")  # neither a formula nor a regex over {a,b,c}


def test_formulas_and_regexes_are_still_read() -> None:
    assert resolve("P a", "a,b").kind == "formula"
    assert resolve("PARITY").kind == "catalogue"
    assert resolve("lt-2").name == "LT-2"


@pytest.mark.parametrize(
    "argv",
    [
        ["classify", "LT2"],
        ["compile", "LT2"],
        ["construct", "LT2"],
        ["sample", "LT2", "--out", "unused"],
        ["train", "LT2"],
    ],
)
def test_every_command_names_the_unknown_language(argv, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    if "--out" in argv:
        argv = [*argv[:-1], str(tmp_path / "out")]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "unknown language 'LT2' (did you mean LT-2?)" in captured.err
    assert captured.out == ""  # nothing started: no header, no progress


def test_train_fails_before_printing_its_header(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["train", "SUFIX-a", "--profile", "tiny"]) == 2
    captured = capsys.readouterr()
    assert "did you mean SUFFIX-a, SUFFIX-ab or PREFIX-a?" in captured.err
    assert captured.out == ""


def test_sweep_spec_names_the_close_match(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    spec = tmp_path / "s.toml"
    spec.write_text('[sweep]\nname = "s"\nprofile = "tiny"\n[axes]\nlanguages = ["LT2"]\n')
    assert main(["sweep", str(spec), "--dry-run", "--db", str(tmp_path / "r.db")]) == 2
    assert "did you mean LT-2?" in capsys.readouterr().err
