"""Point the cells of a results page's tables at their cell pages (`analysis.cell_pages`).

`link_cells` rewrites Markdown as the site shows it, never the committed files: in a wide table
(first column ``language``, one column per cell label, as `tables.matrix` writes) every body
cell becomes a link to its cell page; in a long table (a ``language`` and a ``layout`` column,
and ``alphabet`` when the store has overrides) the language cell does; in the "Where they
disagree" list, each ``**language, layout**`` does. A column whose header is not a cell label
is matched by the positional encoding it names when exactly one cell label has it (a
hand-written table with a column per encoding); cells without a page are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from expressivity.analysis.schema import language_label
from expressivity.sweeps.cell_labels import split_cell

__all__ = ["column_cells", "link_cells", "split_row"]

#: A cell page by (language label as `schema.language_label` writes it, cell label).
Pages = Mapping[tuple[str, str], str]

_SEPARATOR = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")
_DISAGREEMENT = re.compile(r"^- \*\*(?P<cell>.+?)\*\*(?P<rest>:.*)$")


def split_row(line: str) -> list[str]:
    """The cells of one Markdown table row (outer pipes dropped, ``\\|`` kept inside a cell)."""
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner)]


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def column_cells(headers: Sequence[str], labels: Sequence[str]) -> list[str | None]:
    """The cell label each column header stands for (None: none, or not exactly one)."""
    known = set(labels)
    out: list[str | None] = []
    for header in headers:
        if header in known:
            out.append(header)
            continue
        named = [x for x in labels if split_cell(x)[1] == header]
        out.append(named[0] if len(named) == 1 else None)
    return out


def _link(text: str, target: str) -> str:
    return f"[{text}]({target})" if text else text


def _table(lines: list[str], pages: Pages, prefix: str) -> list[str]:
    head = split_row(lines[0])
    labels = list(dict.fromkeys(cell for _, cell in pages))
    out = lines[:2]
    if head and head[0] == "language" and "layout" in head:  # long: one row per cell
        at, alpha = head.index("layout"), head.index("alphabet") if "alphabet" in head else None
        for line in lines[2:]:
            cells = split_row(line)
            if len(cells) != len(head):
                out.append(line)
                continue
            sigma = "" if alpha is None or cells[alpha] in ("", "—") else cells[alpha]
            page = pages.get((language_label(cells[0], sigma), cells[at]))
            if page is not None:
                cells[0] = _link(cells[0], prefix + page)
            out.append(_row(cells))
        return out
    if not head or head[0] != "language":
        return lines
    columns = column_cells(head, labels)
    for line in lines[2:]:
        cells = split_row(line)
        if len(cells) != len(head):
            out.append(line)
            continue
        for j, cell in enumerate(columns):
            page = None if j == 0 or cell is None else pages.get((cells[0], cell))
            if page is not None:
                cells[j] = _link(cells[j], prefix + page)
        out.append(_row(cells))
    return out


def _disagreement(line: str, pages: Pages, prefix: str) -> str:
    found = _DISAGREEMENT.match(line)
    if found is None:
        return line
    text = found["cell"]
    for at in (m.start() for m in re.finditer(", ", text)):
        page = pages.get((text[:at], text[at + 2:]))
        if page is not None:
            return f"- **{_link(text, prefix + page)}**{found['rest']}"
    return line


def link_cells(markdown: str, pages: Pages, prefix: str = "cells/") -> str:
    """``markdown`` with every table cell and disagreement that has a page in ``pages`` (file
    names, reached as ``prefix + name``) linked to it."""
    lines = markdown.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("|") and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1]):
            end = i + 2
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            out += _table(lines[i:end], pages, prefix)
            i = end
            continue
        out.append(_disagreement(line, pages, prefix))
        i += 1
    return "\n".join(out)
