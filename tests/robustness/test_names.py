"""Issue 15 item 2: catalogue names never parse as formulas or regexes; names ignore case."""

from __future__ import annotations

from pathlib import Path

import pytest

from expressivity.catalogue import CatalogueWarning, load_catalogue, load_file
from expressivity.errors import CatalogueError
from expressivity.sweeps.spec import parse_sweep


def _entry(folder: Path, file: str, name: str, formula: str = "P b") -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"{file}.toml").write_text(
        f'name = "{name}"\nalphabet = ["a", "b"]\nformula = "{formula}"\n', "utf-8"
    )


@pytest.mark.parametrize("name", ["P a", "P(a)", "a", "WX(a)", "Y^2(a)", "(a b)*", "lt-2", "F-1 "])
def test_a_name_that_could_be_a_formula_or_regex_is_refused(tmp_path: Path, name: str) -> None:
    _entry(tmp_path / "cat", "one", name)
    refused = r"one\.toml:1:1: name .* could be read as a formula"
    with pytest.raises(CatalogueError, match=refused):
        load_file(tmp_path / "cat" / "one.toml")
    with pytest.warns(CatalogueWarning, match=refused):  # a broken file is skipped, not loaded
        assert list(load_catalogue(tmp_path / "cat")) == []


@pytest.mark.parametrize(
    "name", ["LT-2", "DYCK-(1,1)", "EVEN-a", "TOMITA-7", "My_lang.v2", "X", "Pa"]
)
def test_ordinary_names_are_accepted(tmp_path: Path, name: str) -> None:
    _entry(tmp_path / "cat", "one", name)
    assert list(load_catalogue(tmp_path / "cat")) == [name]


def test_names_differing_only_in_case_are_duplicates(tmp_path: Path) -> None:
    _entry(tmp_path / "cat", "one", "LT-2", "P a")
    _entry(tmp_path / "cat", "two", "Lt-2", "P b")
    with pytest.raises(CatalogueError, match=r"duplicate language name 'Lt-2'.*ignore case"):
        load_catalogue(tmp_path / "cat")


def test_a_sweep_axis_spelling_one_name_twice_is_one_language() -> None:
    spec = parse_sweep(
        '[sweep]\nname = "x"\nprofile = "tiny"\n'
        '[axes]\nlanguages = ["LT-2", "lt-2"]\nlayouts = ["global"]\nseeds = [0]\n'
    )
    runs = spec.expand()
    assert [r.language for r in runs] == ["LT-2"]
