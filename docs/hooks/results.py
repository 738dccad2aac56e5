"""MkDocs hook: the generated results pages of every committed store, their cell pages, and
the notebooks, taken as they are.

Each folder of ``paper_figures/`` that ``expressivity figures`` wrote (it holds a generated
``README.md``) becomes ``results/<name>/`` in the site: its README is the page, its figures and
tables come with it, so every number on a results page is the one the store produced. The
store its ``provenance.json`` names (else the one ``.db`` file in the folder) gives the cell
pages, generated here at build time (`expressivity.analysis.cell_pages`) under
``results/<name>/cells/``, and every cell of the page's tables links to its page
(`expressivity.analysis.cell_links`). The cell pages take the theory's predictions from the
page's own ``tables/predicted_vs_observed.csv`` where it covers every cell (deciding them again
is most of the build's time), so a cell page says what its results page says.
``notebooks/*.ipynb`` become ``notebooks/`` pages, rendered by mkdocs-jupyter from their stored
outputs (never executed here). Nothing is copied into ``docs/``; the site reads the committed
files. The stores' cell pages are generated in worker processes (one store each;
`SITE_JOBS_ENV`, every CPU by default), each store's pages what one process makes of it; the
files are added in the stores' order.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

from expressivity.analysis.cell_links import link_cells
from expressivity.analysis.cell_pages import CellPage, cell_pages, cells_index
from expressivity.analysis.comparison import read_predictions
from expressivity.analysis.readme import results_folders
from expressivity.analysis.schema import language_label
from expressivity.errors import ExpressivityError

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ROOT / "paper_figures"
NOTEBOOKS = ROOT / "notebooks"
SUFFIXES = {".md", ".png", ".svg", ".csv", ".json"}
LOG = logging.getLogger("mkdocs.hooks.results")
#: Environment variable: results pages to build cell pages for, by name, comma-separated
#: (e.g. "quick,depth" for a quick `mkdocs serve`); unset, every one (`make docs`).
STORES_ENV = "EXPRESSIVITY_SITE_CELLS"
#: Environment variable: how many processes generate the stores' cell pages (default: every
#: CPU; 1 generates them in the build's own process)
SITE_JOBS_ENV = "EXPRESSIVITY_SITE_JOBS"
#: Cell pages by results page name: (language label, cell label) → file name under cells/.
PAGES: dict[str, dict[tuple[str, str], str]] = {}
#: The results page whose cell pages a store's cells link to, by the store's path.
STORES: dict[str, str] = {}
_BLOCK = re.compile(r"(<!-- results (?P<db>\S+?): .*?-->\n)(?P<body>.*?)(<!-- /results -->)",
                    flags=re.S)


def experiments() -> dict[str, Path]:
    """The results folders by page name: ``quick`` (the top level of paper_figures) and every
    folder below it that holds a generated README (``learnability/slice`` for a nested one)."""
    return results_folders(FIGURES)


def _members(folder: Path) -> list[Path]:
    top = [p for p in folder.iterdir() if p.is_file() and p.suffix in SUFFIXES]
    nested = [
        p
        for sub in ("figures", "tables")
        if (folder / sub).is_dir()
        for p in sorted((folder / sub).iterdir())
        if p.is_file() and p.suffix in SUFFIXES
    ]
    return sorted(top) + nested


def home_page(readme: str) -> str:
    """The README as the site's home page: its links into ``docs/`` made relative to it, and
    its links into ``paper_figures/`` pointed at the results pages they become (a folder's
    README is its page, ``index.md``; the top-level README is the ``quick`` page)."""
    text = re.sub(r"\]\(docs/", "](", readme)
    text = text.replace("](paper_figures/README.md)", "](results/quick/index.md)")
    text = re.sub(r"\]\(paper_figures/([^)]+)/README\.md\)", r"](results/\1/index.md)", text)
    return re.sub(r"\]\(paper_figures/([^)]+)\)", r"](results/\1)", text)


def results_links(markdown: str) -> str:
    """Links of ``docs/results/index.md`` to the committed folders, pointed at their pages."""
    markdown = markdown.replace("](../../paper_figures/README.md)", "](quick/index.md)")
    return re.sub(r"\]\(\.\./\.\./paper_figures/([^)]+)/README\.md\)", r"](\1/index.md)", markdown)


def store_of(folder: Path) -> tuple[Path, str | None, dict[str, Any] | None] | None:
    """(store, sweep, provenance) of a results folder: the store its ``provenance.json``
    records (a path from the repository root, else beside the folder), else the folder's only
    ``.db`` file; None when there is none (a page without cell pages)."""
    record: dict[str, Any] | None = None
    try:
        record = json.loads((folder / "provenance.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = None
    if record is not None:
        recorded = Path(str(record.get("store", {}).get("path", "")))
        for db in (ROOT / recorded, folder / recorded.name):
            if recorded.name and db.is_file():
                return db, record["store"].get("sweep"), record
        return None
    found = sorted(folder.glob("*.db"))
    return (found[0], None, None) if len(found) == 1 else None


#: Largest generated table (bytes of Markdown) the site renders as a page. A table above it
#: (the per-length accuracy of a big store: up to 275,000 rows, 19 MB) gets a short page that
#: links its CSV instead: rendering and indexing such tables was most of a build, and no
#: browser shows them usefully.
TABLE_PAGE_LIMIT = 512 * 1024


def large_table_page(path: Path) -> str:
    """The site's page for a generated table too large to render (`TABLE_PAGE_LIMIT`): its
    size, its row count and links to the same table as CSV (in the site) and to the committed
    Markdown and LaTeX files."""
    with path.open(encoding="utf-8") as lines:
        rows = sum(1 for line in lines if line.startswith("|")) - 2  # header and rule
    csv = path.with_suffix(".csv")
    data = (f"The same table as CSV: [{csv.name}]({csv.name}).\n\n" if csv.is_file() else "")
    kept = [f"`{p.relative_to(ROOT).as_posix()}`" for p in (path, path.with_suffix(".tex"))
            if p.is_file()]
    return (f"# {path.stem}\n\n"
            f"This generated table has {rows:,} rows ({path.stat().st_size / 2**20:.1f} MiB of "
            f"Markdown), more than the site renders as a page ({TABLE_PAGE_LIMIT // 1024} KiB, "
            f"`TABLE_PAGE_LIMIT` in `docs/hooks/results.py`).\n\n{data}"
            f"The repository holds it in full: {' and '.join(kept)}.\n")


#: Front matter that keeps a page out of the search index (Material's ``search.exclude``).
UNSEARCHED = "---\nsearch:\n  exclude: true\n---\n\n"


def unsearched(markdown: str) -> str:
    """A generated cell page kept out of the search index: thousands of pages of the same
    tables, reached from their results pages' links; indexing them was most of the build."""
    return UNSEARCHED + markdown


#: One store's cell pages to generate: (results page name, store, sweep, provenance, folder)
Job = tuple[str, Path, str | None, dict[str, Any] | None, Path]


def _all_pages(jobs: list[Job]) -> list[list[CellPage]]:
    """The cell pages of every job's store (`analysis.cell_pages.cell_pages`, a library
    function, so that worker processes need nothing of this hook), in the jobs' order, over
    `SITE_JOBS_ENV` processes; a store that cannot be read is a `PluginError` naming it."""
    workers = min(len(jobs), int(os.environ.get(SITE_JOBS_ENV) or os.cpu_count() or 1))
    with ProcessPoolExecutor(max_workers=workers) if workers > 1 else nullcontext() as pool:
        submit = pool.submit if pool is not None else _done
        futures = [submit(
            cell_pages, db, sweep=sweep, provenance=record, shown=db.relative_to(ROOT).as_posix(),
            recorded=read_predictions(folder / "tables" / "predicted_vs_observed.csv"))
            for _, db, sweep, record, folder in jobs]
        out = []
        for (name, db, *_), future in zip(jobs, futures, strict=True):
            try:
                out.append(future.result())
            except ExpressivityError as err:
                raise PluginError(
                    f"results/{name}: cannot build the cell pages of {db}: {err}") from None
    return out


def _done(fn: Callable[..., list[CellPage]], *args: Any, **kwargs: Any) -> Future[list[CellPage]]:
    """``fn(*args, **kwargs)`` run here and now, as a finished future (its error kept in it)."""
    future: Future[list[CellPage]] = Future()
    try:
        future.set_result(fn(*args, **kwargs))
    except Exception as err:  # re-raised by future.result(), as a worker's would be
        future.set_exception(err)
    return future


def _cell_files(name: str, db: Path, pages: list[CellPage], config: Any) -> list[File]:
    PAGES[name] = {(language_label(p.cell[0], p.cell[1]), p.cell[2]): p.name for p in pages}
    STORES.setdefault(db.relative_to(ROOT).as_posix(), name)
    out = [File.generated(config, f"results/{name}/cells/index.md",
                          content=unsearched(cells_index(pages, name)))]
    for page in pages:
        out.append(File.generated(config, f"results/{name}/cells/{page.name}",
                                  content=unsearched(page.markdown)))
        out += [File.generated(config, f"results/{name}/cells/{figure}", content=data)
                for figure, data in page.figures]
    return out


@event_priority(100)  # before mkdocs-jupyter's on_files, which takes the .ipynb files over
def on_files(files: Files, config: Any) -> Files:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "index.md", content=home_page(readme)))
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):  # a File with a src_dir: mkdocs-jupyter
        files.append(File(f"notebooks/{notebook.name}", src_dir=str(ROOT),  # needs one
                          dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    PAGES.clear()
    STORES.clear()
    chosen = os.environ.get(STORES_ENV)
    only = None if chosen is None else {x.strip() for x in chosen.split(",") if x.strip()}
    jobs: list[Job] = []
    for name, folder in experiments().items():
        for path in _members(folder):
            rel = path.relative_to(folder).as_posix()
            uri = f"results/{name}/" + ("index.md" if rel == "README.md" else rel)
            if rel.startswith("tables/") and path.suffix == ".md" and (
                    path.stat().st_size > TABLE_PAGE_LIMIT):
                files.append(File.generated(config, uri, content=large_table_page(path)))
            else:
                files.append(File.generated(config, uri, abs_src_path=str(path)))
        found = store_of(folder)
        if found is not None and (only is None or name in only):
            jobs.append((name, *found, folder))
    start = time.perf_counter()
    for (name, db, *_), pages in zip(jobs, _all_pages(jobs) if jobs else [], strict=True):
        for file in _cell_files(name, db, pages, config):
            files.append(file)
        LOG.info("results/%s: %d cell pages", name, len(pages))
    LOG.info("cell pages of %d stores in %.1f s", len(jobs), time.perf_counter() - start)
    return files


def _results_page(src_uri: str) -> tuple[str, str] | None:
    """(results page name, link prefix to its cells/) of a generated results page or table."""
    for name in sorted(PAGES, key=len, reverse=True):
        if src_uri == f"results/{name}/index.md":
            return name, "cells/"
        if src_uri.startswith(f"results/{name}/tables/") and src_uri.endswith(".md"):
            return name, "../cells/"
    return None


def home_links(markdown: str) -> str:
    """The README's generated results blocks (`analysis.headline`) with each table cell linked
    to the cell page of the block's store."""
    def link(block: re.Match[str]) -> str:
        name = STORES.get(block["db"])
        if name is None:
            return block[0]
        body = link_cells(block["body"], PAGES[name], f"results/{name}/cells/")
        return block[1] + body + block[4]
    return _BLOCK.sub(link, markdown)


_REFERENCE = re.compile(r"(\S\]) \[([A-Z][A-Za-z0-9]*)\]")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Keep citations such as ``LTL[P] [LC25]`` literal: Markdown would read them as a
    reference link ``[P][LC25]``."""
    if page.file.src_uri == "results/index.md":
        markdown = results_links(markdown)
    if page.file.src_uri == "index.md":
        markdown = home_links(markdown)
    results = _results_page(page.file.src_uri)
    if results is not None:
        name, prefix = results
        markdown = link_cells(markdown, PAGES[name], prefix)
        if prefix == "cells/":
            markdown += (f"\n\n## Cell pages\n\nEvery cell of the tables above links to its "
                         f"page; [all {len(PAGES[name])} cell pages](cells/index.md).\n")
    return _REFERENCE.sub(r"\1 \\[\2]", markdown)
