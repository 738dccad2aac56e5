"""The documentation site: a short README whose links resolve, every results folder in the nav,
and (slow tier) a strict build opened in a real headless browser."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from expressivity.analysis.readme import results_folders

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def _links(markdown: str) -> list[str]:
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", markdown) if "://" not in t]


def _nav_pages() -> list[str]:
    return re.findall(r"([\w./-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), flags=re.M)


def _results_folders() -> dict[str, Path]:
    return results_folders(ROOT / "paper_figures")


def test_the_readme_is_short_and_its_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.encode()) <= 10 * 1024
    for target in _links(text):
        assert (ROOT / target.split("#")[0]).exists(), target


def _source(page: Path, target: str) -> Path:
    """The committed file a docs link reaches; pages under results/<name>/ are generated from
    paper_figures (docs/hooks/results.py), so they map to that folder."""
    path = (page.parent / target).resolve()
    parts = path.relative_to(DOCS.resolve()).parts if path.is_relative_to(DOCS.resolve()) else ()
    folders = _results_folders()
    for name, folder in folders.items():
        depth = 1 + len(Path(name).parts)
        if parts[:depth] == ("results", *Path(name).parts) and len(parts) > depth:
            rest = Path(*parts[depth:])
            return folder / ("README.md" if rest == Path("index.md") else rest)
    return path


def test_every_docs_link_resolves() -> None:
    for page in DOCS.rglob("*.md"):
        for target in _links(page.read_text(encoding="utf-8")):
            path = target.split("#")[0]
            if path:
                source = _source(page, path)
                generated = source.resolve().is_relative_to(DOCS.resolve()) and (
                    source.resolve().relative_to(DOCS.resolve()).as_posix() in _generated_pages())
                assert generated or source.exists(), f"{page}: {target}"


def test_every_results_folder_has_a_page_in_the_nav_and_the_results_index() -> None:
    nav = set(_nav_pages())
    index = (DOCS / "results" / "index.md").read_text(encoding="utf-8")
    for name, folder in _results_folders().items():
        assert f"results/{name}/index.md" in nav, name
        readme = folder.relative_to(ROOT) / "README.md"
        assert f"](../../{readme.as_posix()})" in index, name
    for page in nav:
        results = re.fullmatch(r"results/(.+)/index\.md", page)
        if results:  # generated from a committed results folder
            assert results.group(1) in _results_folders(), page
        else:  # a page under docs/, the home page, or one a hook generates
            assert page in ("index.md", *_generated_pages()) or (DOCS / page).is_file(), page


def _generated_pages() -> tuple[str, ...]:
    """Pages that hooks other than the results hook write at build time (no mkdocs needed)."""
    from expressivity.models.atom_gallery import GALLERY_PAGE

    return (GALLERY_PAGE,)


def _hook():  # type: ignore[no-untyped-def]
    pytest.importorskip("mkdocs")
    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        import results  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    return results


def test_the_hook_points_results_links_at_their_pages() -> None:
    results = _hook()
    assert results.results_links("[a](../../paper_figures/catalogue/README.md)") == \
        "[a](catalogue/index.md)"
    assert results.results_links("[q](../../paper_figures/README.md)") == "[q](quick/index.md)"
    assert results.home_page("see [g](docs/guide/languages.md)") == "see [g](guide/languages.md)"
    assert results.home_page("[t](paper_figures/table/README.md), [p](paper_figures/table/"
                             "certificate_probe.md), [q](paper_figures/README.md)") == (
        "[t](results/table/index.md), [p](results/table/certificate_probe.md), "
        "[q](results/quick/index.md)")
    assert set(results.experiments()) == set(_results_folders())


def test_every_results_folder_with_provenance_names_a_committed_store() -> None:
    """Its cell pages are generated from that store at build time (docs/hooks/results.py)."""
    results = _hook()
    for name, folder in _results_folders().items():
        found = results.store_of(folder)
        if (folder / "provenance.json").is_file():
            assert found is not None, f"{name}: the store its provenance.json names is missing"
        if found is not None:
            assert found[0].is_file() and found[0].suffix == ".db", name


def test_the_home_page_results_blocks_link_their_cells() -> None:
    results = _hook()
    results.PAGES["quick"] = {("LT-2", "global"): "lt-2--global.md"}
    results.STORES["paper_figures/quick.db"] = "quick"
    try:
        text = ("| language | global |\n|---|---|\n| LT-2 | 0.9 |\n\n"
                "<!-- results paper_figures/quick.db: generated; do not edit -->\n"
                "| language | global |\n|---|---|\n| LT-2 | 0.917 |\n<!-- /results -->\n"
                "<!-- results paper_figures/other.db: x -->\n| language | global |\n|---|---|\n"
                "| LT-2 | 0.5 |\n<!-- /results -->\n")
        out = results.home_links(text)
    finally:
        results.PAGES.pop("quick")
        results.STORES.pop("paper_figures/quick.db")
    assert out.count("](results/quick/cells/lt-2--global.md)") == 1  # inside its block only
    assert "| LT-2 | [0.917](results/quick/cells/lt-2--global.md) |" in out
    assert "| LT-2 | 0.9 |" in out and "| LT-2 | 0.5 |" in out


def test_every_notebook_is_in_the_nav() -> None:
    text = (ROOT / "mkdocs.yml").read_text()
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"notebooks/{notebook.name}" in text, notebook.name
    assert "execute: false" in text  # rendered from the stored outputs, never executed


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables = 0
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tables += tag == "table"
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.append(href)


def _browser() -> str | None:
    return next((b for b in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(b)), None)


@pytest.mark.slow
def test_the_built_results_page_renders_in_a_headless_browser(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    browser = _browser()
    if browser is None:
        pytest.skip("no chromium on this machine (Debian: apt-get install chromium)")
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
                   cwd=ROOT, check=True, env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin",
                                              "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"})
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run",
             f"--user-data-dir={tmp_path / 'profile'}"]
    index = site / "results" / "index.html"
    dom = subprocess.run([browser, *flags, "--dump-dom", index.as_uri()], check=True,
                         capture_output=True, text=True, timeout=120).stdout
    page = _Page()
    page.feed(dom)
    assert page.tables >= 1
    catalogue = next(h for h in page.links if h.startswith("catalogue/"))
    target = (index.parent / catalogue.split("#")[0])
    target = target / "index.html" if target.is_dir() or not target.suffix else target
    assert target.is_file()
    table = _Page()
    table.feed(subprocess.run([browser, *flags, "--dump-dom", target.as_uri()], check=True,
                              capture_output=True, text=True, timeout=120).stdout)
    assert table.tables >= 1
    cells = [h for h in table.links if h.startswith("cells/") and h.rstrip("/") != "cells"]
    assert cells, "the results page's table cells link to their cell pages"
    cell = target.parent / cells[0].split("#")[0]
    cell = cell / "index.html" if cell.is_dir() or not cell.suffix else cell
    assert cell.is_file(), cells[0]
    page = _Page()
    page.feed(subprocess.run([browser, *flags, "--dump-dom", cell.as_uri()], check=True,
                             capture_output=True, text=True, timeout=120).stdout)
    assert page.tables >= 2  # theory vs experiment, and the runs
    assert (site / "notebooks" / "04_what_did_it_learn" / "index.html").is_file()
    shot = ROOT / "build" / "site-results.png"
    shot.parent.mkdir(exist_ok=True)
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1280,1600",
                    target.as_uri()], check=True, capture_output=True, timeout=120)
    assert shot.stat().st_size > 10_000


def test_cell_pages_are_kept_out_of_the_search_index() -> None:
    results = _hook()
    page = results.unsearched("# LAST × global\n\ntext\n")
    assert page.startswith("---\nsearch:\n  exclude: true\n---\n")
    assert page.endswith("# LAST × global\n\ntext\n")


def test_a_table_too_large_to_render_gets_a_page_that_links_its_csv() -> None:
    results = _hook()
    table = ROOT / "paper_figures" / "table-v4" / "tables" / "accuracy_by_length.md"
    assert table.stat().st_size > results.TABLE_PAGE_LIMIT  # the case the limit is for
    page = results.large_table_page(table)
    with table.with_suffix(".csv").open(encoding="utf-8") as csv:
        rows = sum(1 for _ in csv) - 1
    assert f"has {rows:,} rows" in page
    assert "[accuracy_by_length.csv](accuracy_by_length.csv)" in page
    assert "`paper_figures/table-v4/tables/accuracy_by_length.tex`" in page
    small = ROOT / "paper_figures" / "table-v4" / "tables" / "failures.md"
    assert small.stat().st_size < results.TABLE_PAGE_LIMIT  # rendered as it is


def test_worker_processes_make_the_cell_pages_one_process_makes(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`_all_pages` in parallel (two workers) and in the build's own process give the same
    pages in the jobs' order; a store that cannot be read is an error naming its results page."""
    results = _hook()
    folders = _results_folders()
    jobs = [(name, *results.store_of(folders[name]), folders[name])
            for name in ("table-ssm-cover", "table-log-n")]
    monkeypatch.setenv(results.SITE_JOBS_ENV, "1")
    alone = results._all_pages(jobs)
    monkeypatch.setenv(results.SITE_JOBS_ENV, "2")
    assert results._all_pages(jobs) == alone
    assert all(pages and len({p.name for p in pages}) == len(pages) for pages in alone)
    missing = ROOT / "paper_figures" / "no-such-store.db"  # never created
    assert not missing.exists()
    bad = [("broken", missing, None, None, tmp_path)]
    from mkdocs.exceptions import PluginError

    for workers in ("1", "2"):
        monkeypatch.setenv(results.SITE_JOBS_ENV, workers)
        with pytest.raises(PluginError, match="results/broken: cannot build the cell pages"):
            results._all_pages([*jobs[:1], *bad])
