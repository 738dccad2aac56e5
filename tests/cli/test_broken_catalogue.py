"""A broken catalogue file is named (file, line, column) and skipped; other lookups go on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from expressivity.catalogue import (
    CatalogueWarning,
    default_directory,
    get_language,
    load_catalogue,
    load_file,
)
from expressivity.cli import main
from expressivity.errors import CatalogueError

OUTSIDE = 'name = "BAD"\nalphabet = ["a", "b"]\ndescription = "x"\nformula = "P(a & Y c)"\n'
SYNTAX = 'name = "WORSE"\nalphabet = ["a", "b"]\nregex = a b\n'


def _catalogue(tmp_path: Path) -> Path:
    folder = tmp_path / "languages"
    folder.mkdir()
    shutil.copy(default_directory() / "suffix-a.toml", folder)
    (folder / "bad.toml").write_text(OUTSIDE)
    (folder / "worse.toml").write_text(SYNTAX)
    return folder


def test_errors_name_the_line_and_column_of_the_file(tmp_path: Path) -> None:
    folder = _catalogue(tmp_path)
    with pytest.raises(CatalogueError, match=r"bad\.toml:4:20: formula of BAD: .*'c'"):
        load_file(folder / "bad.toml")
    with pytest.raises(CatalogueError, match=r"worse\.toml:3:9: invalid TOML"):
        load_file(folder / "worse.toml")


def test_a_broken_file_is_skipped_with_a_warning(tmp_path: Path) -> None:
    folder = _catalogue(tmp_path)
    with pytest.warns(CatalogueWarning) as caught:
        catalogue = load_catalogue(folder)
    assert set(catalogue) == {"SUFFIX-a"}
    messages = " ".join(str(w.message) for w in caught)
    assert "bad.toml:4:20" in messages and "worse.toml:3:9" in messages
    assert get_language("SUFFIX-a", folder).name == "SUFFIX-a"
    with pytest.raises(CatalogueError, match="2 catalogue files could not be read"):
        get_language("BAD", folder)


def test_commands_warn_and_go_on(tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("EXPRESSIVITY_LANGUAGES", str(_catalogue(tmp_path)))
    assert main(["classify", "SUFFIX-a"]) == 0
    captured = capsys.readouterr()
    assert "SUFFIX-a over Σ = {a,b,c}" in captured.out
    assert "warning: skipped " in captured.err and "bad.toml:4:20" in captured.err
    assert "Traceback" not in captured.err
