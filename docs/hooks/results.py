"""MkDocs hook: the generated results pages of every committed store, taken as they are.

Each folder of ``paper_figures/`` that ``expressivity figures`` wrote (it holds a generated
``README.md``) becomes ``results/<name>/`` in the site: its README is the page, its figures and
tables come with it, so every number on a results page is the one the store produced. Nothing
is copied into ``docs/``; the site reads the committed files.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ROOT / "paper_figures"
SUFFIXES = {".md", ".png", ".svg", ".csv", ".json"}


def experiments() -> dict[str, Path]:
    """The results folders by page name: ``quick`` (the top level of paper_figures) and every
    folder below it that holds a generated README (``learnability/slice`` for a nested one)."""
    found = {"quick": FIGURES} if (FIGURES / "README.md").is_file() else {}
    for readme in sorted(FIGURES.glob("*/**/README.md")):
        found[readme.parent.relative_to(FIGURES).as_posix()] = readme.parent
    return found


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
    """The README as the site's home page: its links into ``docs/`` made relative to it."""
    return re.sub(r"\]\(docs/", "](", readme)


def results_links(markdown: str) -> str:
    """Links of ``docs/results/index.md`` to the committed folders, pointed at their pages."""
    markdown = markdown.replace("](../../paper_figures/README.md)", "](quick/index.md)")
    return re.sub(r"\]\(\.\./\.\./paper_figures/([^)]+)/README\.md\)", r"](\1/index.md)", markdown)


def on_files(files: Files, config: Any) -> Files:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "index.md", content=home_page(readme)))
    for name, folder in experiments().items():
        for path in _members(folder):
            rel = path.relative_to(folder).as_posix()
            uri = f"results/{name}/" + ("index.md" if rel == "README.md" else rel)
            files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


_REFERENCE = re.compile(r"(\S\]) \[([A-Z][A-Za-z0-9]*)\]")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Keep citations such as ``LTL[P] [LC25]`` literal: Markdown would read them as a
    reference link ``[P][LC25]``."""
    if page.file.src_uri == "results/index.md":
        markdown = results_links(markdown)
    return _REFERENCE.sub(r"\1 \\[\2]", markdown)
