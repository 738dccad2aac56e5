"""The catalogue's folders and files: where languages are searched, each file read within its
limits, and the languages found by name."""

from __future__ import annotations

import difflib
import os
import re
import stat
import tomllib
import warnings
from functools import cache
from pathlib import Path

from expressivity.catalogue.entry import parse_entry
from expressivity.catalogue.language import Language
from expressivity.errors import CatalogueError, ExpressivityWarning

__all__ = ["CATALOGUE_ENV", "MAX_FILE_BYTES", "CatalogueWarning", "close_names",
           "default_directory", "find_language", "get_language", "load_catalogue", "load_file",
           "search_path", "skipped_files", "unknown_language"]

#: Environment variable naming extra catalogue folders (``os.pathsep``-separated), searched first.
CATALOGUE_ENV = "EXPRESSIVITY_CATALOGUE"


def default_directory() -> Path:
    """The catalogue shipped inside the package (``expressivity/languages/``, package data)."""
    return Path(__file__).resolve().parents[1] / "languages"


def search_path() -> tuple[Path, ...]:
    """The catalogue folders, first match wins: ``$EXPRESSIVITY_CATALOGUE`` (set by the CLI's
    ``--catalogue DIR``; ``$EXPRESSIVITY_LANGUAGES`` is read too), ``./languages`` of the
    current directory (users' own files), then the shipped `default_directory`."""
    folders: list[Path] = []
    for variable in (CATALOGUE_ENV, "EXPRESSIVITY_LANGUAGES"):
        folders += [Path(p) for p in os.environ.get(variable, "").split(os.pathsep) if p]
    for folder in (Path.cwd() / "languages", default_directory()):
        if folder.is_dir():
            folders.append(folder)
    unique = dict.fromkeys(f.resolve() for f in folders)
    return tuple(unique)


class CatalogueWarning(ExpressivityWarning):
    """A catalogue file that was skipped (its error names the file, line and column)."""


#: The largest catalogue file read, in bytes (a language entry is a few hundred bytes).
MAX_FILE_BYTES = 1 << 20


def load_file(path: Path) -> Language:
    """Load and validate one catalogue file; errors start with ``path:line:column:``.

    Only a regular file of at most `MAX_FILE_BYTES` bytes of UTF-8 text is read: a folder, a
    FIFO, a device, a dangling or looping link is a `CatalogueError` before any read.
    """
    text = _read_text(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
        at = f"{path}:{where[1]}:{where[2]}" if where else f"{path}"
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(err))
        raise CatalogueError(f"{at}: invalid TOML: {reason}") from None
    try:
        return parse_entry(data, str(path))
    except CatalogueError as err:
        line, column = _locate(text, err.key, err.column)
        message = str(err).removeprefix(f"{path}: ")
        raise CatalogueError(f"{path}:{line}:{column}: {message}", key=err.key) from None


def _read_text(path: Path) -> str:
    try:
        info = path.stat()
    except OSError as err:  # a dangling or looping symlink, no permission
        raise CatalogueError(f"{path}: cannot be read ({err.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else (
            "a FIFO" if stat.S_ISFIFO(info.st_mode) else "not a regular file")
        raise CatalogueError(f"{path}: {kind}, not a catalogue file; rename or remove it")
    if info.st_size > MAX_FILE_BYTES:
        raise CatalogueError(f"{path}: {info.st_size} bytes, more than a catalogue file may "
                             f"hold (MAX_FILE_BYTES = {MAX_FILE_BYTES})")
    try:
        data = path.read_bytes()
    except OSError as err:
        raise CatalogueError(f"{path}: cannot be read ({err.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise CatalogueError(f"{path}:{line}:{column}: not UTF-8 text (byte "
                             f"0x{data[err.start]:02x}); save the file as UTF-8") from None


def _locate(text: str, key: str | None, inner: int) -> tuple[int, int]:
    """Line and column of ``key = value`` (of column ``inner`` of its string value) in ``text``."""
    if key is not None:
        pattern = re.compile(rf"^(\s*(?:{re.escape(key)}|\"{re.escape(key)}\")\s*=\s*)(\S)")
        for number, line in enumerate(text.splitlines(), start=1):
            found = pattern.match(line)
            if found:
                column = found.end(1) + 1
                quoted = found[2] in "\"'"
                return number, column + (inner if quoted and inner else 0)
            if line.strip() in (f"[{key}]", f"[{key}.{key}]"):
                return number, 1
    return 1, 1


def load_catalogue(directory: str | Path | None = None) -> dict[str, Language]:
    """All languages of a catalogue folder (default: every folder of `search_path`), by name.

    Duplicate names within one folder are an error; across folders the first one found wins
    (a user's file shadows a shipped language). A file that does not load is skipped with a
    `CatalogueWarning` naming its line and column, so one broken file does not hide the other
    languages (`expressivity check` lists them all).
    """
    merged: dict[str, Language] = {}
    for folder in _folders(directory):
        for name, lang in _load(str(folder))[0]:
            merged.setdefault(name, lang)
    return merged


def skipped_files(directory: str | Path | None = None) -> tuple[str, ...]:
    """The errors of the catalogue files that were skipped, one per file."""
    return tuple(p for folder in _folders(directory) for p in _load(str(folder))[1])


def _folders(directory: str | Path | None) -> tuple[Path, ...]:
    return (Path(directory),) if directory else search_path()


@cache
def _load(directory: str) -> tuple[tuple[tuple[str, Language], ...], tuple[str, ...]]:
    root = Path(directory)
    if not root.is_dir():
        raise CatalogueError(f"catalogue directory {root} does not exist")
    seen: dict[str, Language] = {}
    folded: dict[str, Language] = {}
    problems: list[str] = []
    for path in sorted(root.glob("*.toml")):
        try:
            lang = load_file(path)
        except CatalogueError as err:
            problems.append(str(err))
            warnings.warn(f"skipped {err}", CatalogueWarning, stacklevel=2)
            continue
        first = folded.get(lang.name.casefold())
        if first is not None:
            raise CatalogueError(
                f"duplicate language name {lang.name!r} in {path}: {first.name!r} in "
                f"{first.path} is the same name (names ignore case); rename one"
            )
        seen[lang.name] = folded[lang.name.casefold()] = lang
    return tuple(seen.items()), tuple(problems)


def get_language(name: str, directory: str | Path | None = None) -> Language:
    """The catalogue language called ``name`` (case-insensitive); a clear error if unknown."""
    found = find_language(name, directory)
    if found is None:
        raise unknown_language(name, directory)
    return found


def find_language(name: str, directory: str | Path | None = None) -> Language | None:
    """The catalogue language called ``name`` (case-insensitive), or None."""
    catalogue = load_catalogue(directory)
    if name in catalogue:
        return catalogue[name]
    folded = {k.casefold(): v for k, v in catalogue.items()}
    return folded.get(name.casefold())


def close_names(name: str, directory: str | Path | None = None) -> list[str]:
    """Catalogue names that look like ``name`` (a typo, a missing hyphen), best first."""
    folded = {k.casefold(): k for k in load_catalogue(directory)}
    matches = difflib.get_close_matches(name.casefold(), list(folded), n=3, cutoff=0.6)
    return [folded[m] for m in matches]


def unknown_language(name: str, directory: str | Path | None = None) -> CatalogueError:
    """The error for a name the catalogue lacks: the close matches, else every name."""
    close = close_names(name, directory)
    skipped = len(skipped_files(directory))
    if skipped:
        files = f"{skipped} catalogue file{'s' if skipped > 1 else ''}"
        return CatalogueError(
            f"unknown language {name!r}; {files} could not be read (see the warnings)"
            + (f"; did you mean {' or '.join(close)}?" if close else "")
        )
    if close:
        options = " or ".join([", ".join(close[:-1]), close[-1]] if len(close) > 1 else close)
        return CatalogueError(f"unknown language {name!r} (did you mean {options}?)")
    known = ", ".join(sorted(load_catalogue(directory)))
    return CatalogueError(f"unknown language {name!r}; the catalogue has: {known}")
