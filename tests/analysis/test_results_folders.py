"""`readme.results_folders`: the results pages under paper_figures/, never a sweep's working
folders."""

from __future__ import annotations

from pathlib import Path

from expressivity.analysis.readme import WORKING_FOLDERS, results_folders


def _page(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text("# Figures and tables\n", "utf-8")
    return folder


def test_pages_are_named_by_their_path_and_working_folders_are_not_entered(
        tmp_path: Path) -> None:
    _page(tmp_path)
    table = _page(tmp_path / "table-v7")
    nested = _page(tmp_path / "learnability" / "slice")
    for suffix in WORKING_FOLDERS:  # a README inside a sweep's working folder is no page
        _page(tmp_path / f"table-v7{suffix}" / "deep")
    (tmp_path / "empty").mkdir()
    found = results_folders(tmp_path)
    assert found == {"quick": tmp_path, "learnability/slice": nested, "table-v7": table}
    assert list(found) == ["quick", "learnability/slice", "table-v7"]


def test_no_top_level_page_no_quick(tmp_path: Path) -> None:
    page = _page(tmp_path / "depth")
    assert results_folders(tmp_path) == {"depth": page}
