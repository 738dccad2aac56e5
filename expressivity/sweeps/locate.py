"""Find where a key or value sits in TOML source text, for errors that point at line and column.

`tomllib` keeps no positions after parsing, so `Locator` re-reads the text: it splits it into
sections by ``[table]`` / ``[[array]]`` headers and searches a section for a key (bare, quoted
or as the last part of a dotted key, also inside inline tables) and, optionally, for a value
written after it. The answer is approximate by design (first match wins) and always falls
back to the section header, then to the top of the file: good enough to point an editor at
the right line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_HEADER_RE = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")


@dataclass(frozen=True)
class Section:
    """A run of source lines under one header: ``name`` (dotted), array ``index``, line span."""

    name: str
    index: int  # position among ``[[name]]`` blocks (0 for plain tables and the root)
    start: int  # 0-based line of the header (or 0 for the root)
    stop: int  # 0-based line after the last line of the section


class Locator:
    """Positions (1-based line, column) of keys and values in one TOML document."""

    def __init__(self, text: str, path: str = "") -> None:
        self.path = path
        self.lines = text.splitlines()
        self.sections: list[Section] = []
        counts: dict[str, int] = {}
        name, index, start = "", 0, 0
        for i, line in enumerate(self.lines):
            m = _HEADER_RE.match(line)
            if not m:
                continue
            self.sections.append(Section(name, index, start, i))
            name = _unquote(m.group(2))
            index = counts.get(name, 0) if m.group(1) == "[[" else 0
            if m.group(1) == "[[":
                counts[name] = index + 1
            start = i
        self.sections.append(Section(name, index, start, len(self.lines)))

    def _spans(self, section: str, index: int | None) -> list[Section]:
        return [
            s
            for s in self.sections
            if (s.name == section or s.name.startswith(section + "."))
            and (index is None or s.index == index)
        ]

    def find(
        self, section: str, key: str | None = None, value: Any = None, *, index: int | None = None
    ) -> tuple[int, int]:
        """Where ``key`` (and, if given, ``value`` after it) appears in ``[section]``.

        ``section`` is the dotted table name ("" for the top level); ``index`` picks one
        ``[[section]]`` block. Falls back to the section header, then to line 1, column 1.
        """
        spans = self._spans(section, index)
        for span in spans:
            for i in range(span.start, span.stop):
                col = _key_column(self.lines[i], key) if key else None
                if col is None:
                    continue
                if value is not None:
                    hit = self._value_after(i, col, value, span.stop)
                    if hit is not None:
                        return hit
                return i + 1, col + 1
        if spans and spans[0].name:
            return spans[0].start + 1, 1
        return 1, 1

    def _value_after(self, line: int, col: int, value: Any, stop: int) -> tuple[int, int] | None:
        needles = _spellings(value)
        for i in range(line, stop):
            text = self.lines[i] if i > line else self.lines[i][col:]
            if i > line and _HEADER_RE.match(text):
                break
            for needle in needles:
                j = text.find(needle)
                if j >= 0:
                    return i + 1, j + 1 + (col if i == line else 0)
        return None

    def where(
        self, section: str, key: str | None = None, value: Any = None, *, index: int | None = None
    ) -> str:
        """``path:line:column`` of a key (and value), for the start of an error message."""
        line, col = self.find(section, key, value, index=index)
        return f"{self.path or '<string>'}:{line}:{col}"


def _unquote(name: str) -> str:
    return ".".join(
        part.strip().strip("\"'") for part in re.split(r"\.(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", name)
    )


def _key_column(line: str, key: str) -> int | None:
    """Column (0-based) of ``key`` used as a key (followed by ``=`` or ``.``) in ``line``."""
    code = line.split("#", 1)[0] if '"' not in line and "'" not in line else line
    candidates = [f'"{key}"', f"'{key}'", key]
    if "." in key:
        candidates.append(key.rsplit(".", 1)[1])
    for cand in candidates:
        pattern = r"(?<![\w-])" + re.escape(cand) + r"(?![\w-])\s*[=.]"
        m = re.search(pattern, code)
        if m:
            return m.start()
    return None


def _spellings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [json.dumps(value), f"'{value}'", value]
    if isinstance(value, bool):
        return ["true" if value else "false"]
    if isinstance(value, float):
        return [repr(value), f"{value:g}", str(value)]
    return [str(value)]
