"""`expressivity figures` refuses to overwrite the figures of another store unless --force."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from expressivity.cli import main

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "paper_figures"


def test_the_committed_figures_are_protected(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    committed = tmp_path / "paper_figures"
    committed.mkdir()
    shutil.copy(SHIPPED / "provenance.json", committed)  # records paper_figures/quick.db
    scratch = tmp_path / "scratch.db"
    shutil.copy(SHIPPED / "quick.db", scratch)
    before = (committed / "provenance.json").read_bytes()
    assert main(["figures", str(scratch), "--out", str(committed)]) == 2
    err = capsys.readouterr().err
    assert "holds the figures of another results store (paper_figures/quick.db)" in err
    assert "--force" in err
    assert (committed / "provenance.json").read_bytes() == before
    assert sorted(p.name for p in committed.iterdir()) == ["provenance.json"]


def test_a_folder_of_the_same_store_is_not_another_store(tmp_path: Path) -> None:
    import json

    from expressivity.analysis.figures import _other_store

    out = tmp_path / "figs"
    out.mkdir()
    store = tmp_path / "a.db"
    shutil.copy(SHIPPED / "quick.db", store)
    (out / "provenance.json").write_text(json.dumps({"store": {"path": str(store)}}))
    assert _other_store(out, store) is None
    assert _other_store(out, SHIPPED / "quick.db") == str(store)
    assert _other_store(tmp_path / "empty", store) is None


@pytest.mark.slow
def test_same_store_rewrites_and_force_replaces(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    shutil.copy(SHIPPED / "quick.db", first)
    shutil.copy(SHIPPED / "quick.db", second)
    out = tmp_path / "a_figures"  # the default folder, beside the store
    args = ["--formats", "svg", "--dpi", "40"]
    assert main(["figures", str(first), *args]) == 0
    assert (out / "provenance.json").exists()
    assert main(["figures", str(second), "--out", str(out), *args]) == 2
    assert main(["figures", str(second), "--out", str(out), *args, "--force"]) == 0
    assert str(second) in (out / "provenance.json").read_text()
    capsys.readouterr()
