"""Check catalogue files: they load, their definitions compile, their ``[expected]`` claims hold."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from expressivity.catalogue import CatalogueWarning, Language, load_file, search_path
from expressivity.errors import ExpressivityError


@dataclass(frozen=True)
class FileCheck:
    """The outcome for one catalogue file: the language it defines (if it loads) and problems."""

    path: str
    name: str | None
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when the file loads and every claim in it holds."""
        return not self.problems


def class_members(lang: Language) -> dict[str, bool]:
    """Membership of ``lang`` (over its own alphabet) in every class ``[expected]`` may name."""
    if not lang.is_regular:
        return {"regular": False}
    from expressivity.algebra.varieties import DECISIONS, semigroup_of

    semigroup = semigroup_of(lang.dfa())
    return {"regular": True} | {cls: decide(semigroup) is True for cls, decide in DECISIONS.items()}


def expected_mismatches(lang: Language, members: Mapping[str, bool] | None = None) -> list[str]:
    """One message per ``[expected]`` claim of ``lang`` that the decision procedures refute."""
    found = class_members(lang) if members is None else members
    return [
        f"{lang.name}: [expected] {cls} = {str(claim).lower()} in {lang.path or 'its entry'}, "
        f"but the language is {'' if found[cls] else 'not '}{cls} over {lang.alphabet}"
        for cls, claim in lang.expected
        if cls in found and found[cls] != claim
    ]


def warn_mismatches(lang: Language, members: Mapping[str, bool] | None = None) -> None:
    """Emit a `CatalogueWarning` for every refuted ``[expected]`` claim of ``lang``."""
    for message in expected_mismatches(lang, members):
        warnings.warn(message, CatalogueWarning, stacklevel=2)


def check_file(path: str | Path) -> FileCheck:
    """Load ``path``, compile its language and check its expected classes."""
    try:
        lang = load_file(Path(path))
    except ExpressivityError as err:
        return FileCheck(str(path), None, (str(err),))
    try:
        problems = expected_mismatches(lang)
    except ExpressivityError as err:
        problems = [f"{path}: {lang.name} does not compile: {err}"]
    return FileCheck(str(path), lang.name, tuple(problems))


def check_files(paths: Iterable[str | Path] = ()) -> list[FileCheck]:
    """`check_file` for each path (a directory: its ``*.toml`` files; none: the catalogue)."""
    files: list[Path] = []
    for path in list(paths) or search_path():
        path = Path(path)
        files += sorted(path.glob("*.toml")) if path.is_dir() else [path]
    return [check_file(f) for f in files]
