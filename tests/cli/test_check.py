"""`[expected]` claims are checked by `classify`, `languages` and `expressivity check`."""

from __future__ import annotations

import shutil
from pathlib import Path

from expressivity.catalogue import default_directory
from expressivity.catalogue_check import check_files
from expressivity.cli import main

WRONG = """\
name = "MY-LANG"
alphabet = ["a", "b", "c"]
formula = "P(a & Y b)"
description = "a then b somewhere: an LT-2 twin"
source = "test"

[expected]
r_trivial = false
locally_r_trivial = true
"""


def _folder(tmp_path: Path, claim: str) -> Path:
    folder = tmp_path / "languages"
    folder.mkdir()
    (folder / "my-lang.toml").write_text(WRONG.replace("r_trivial = false", claim))
    return folder


def test_classify_warns_on_a_wrong_claim(tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("EXPRESSIVITY_LANGUAGES", str(_folder(tmp_path, "r_trivial = true")))
    assert main(["classify", "MY-LANG"]) == 0
    captured = capsys.readouterr()
    assert "warning: MY-LANG: [expected] r_trivial = true" in captured.err
    assert "but the language is not r_trivial" in captured.err
    assert main(["languages"]) == 0
    assert "[expected] r_trivial = true" in capsys.readouterr().err


def test_classify_is_quiet_when_the_claims_hold(tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("EXPRESSIVITY_LANGUAGES", str(_folder(tmp_path, "r_trivial = false")))
    assert main(["classify", "MY-LANG"]) == 0
    assert capsys.readouterr().err == ""


def test_check_command_exit_status(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = _folder(tmp_path, "r_trivial = false") / "my-lang.toml"
    bad = tmp_path / "bad.toml"
    bad.write_text(WRONG.replace("r_trivial = false", "r_trivial = true"))
    broken = tmp_path / "broken.toml"
    broken.write_text(WRONG.replace("Y b", "Y d"))
    assert main(["check", str(good)]) == 0
    assert "ok    " in capsys.readouterr().out
    assert main(["check", str(good), str(bad), str(broken)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  MY-LANG: [expected] r_trivial = true" in out
    assert "broken.toml:3:" in out and "'d'" in out
    assert "3 files checked, 2 with problems" in out


def test_the_shipped_catalogue_passes_its_own_check(tmp_path) -> None:  # type: ignore[no-untyped-def]
    copy = tmp_path / "copy"
    shutil.copytree(default_directory(), copy)
    results = check_files([copy])
    assert results and all(r.ok for r in results), [r.problems for r in results if not r.ok]
