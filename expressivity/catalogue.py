"""The language catalogue: `*.toml` files loaded into validated, frozen `Language` values.

The catalogue ships inside the package (``expressivity/languages/``); users' own files go in
``./languages/`` or a folder named by ``--catalogue DIR`` / ``$EXPRESSIVITY_CATALOGUE``, searched
first (`search_path`). Each file holds one language::

    name = "LT-2"                      # unique ignoring case; see NAME_RULE
    alphabet = ["a", "b", "c"]         # ordered; membership in a class depends on it
    formula = "P(b & Y a)"             # optional: temporal-logic definition (expressivity.logic)
    evaluate_at = "eos"                # optional: "eos" (default) or "start" (logic.anchor)
    logic = "ltl"                      # optional: "ltlf" reads the formula as LTLf (logic.ltlf)
    regex = ".* a b .*"                # optional: regular expression (expressivity.automata.regex)
    nonregular = "anbn"                # optional: a built-in non-regular membership predicate
    description = "..."
    source = "LC25 Table 2 (LT-2)"

    [dfa]                              # optional: an explicit complete DFA
    initial = 0
    accepting = [0]
    transitions = [[1, 2], [2, 0], [0, 1]]   # rows: states, columns: alphabet order

    [expected]                         # the classes the source claims (checked by the tests)
    r_trivial = false
    locally_r_trivial = true

At least one of formula, regex, dfa, nonregular is required. Where several definitions are
given they must define the same language (the test suite checks it).
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import tomllib
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from expressivity.alphabet import Alphabet
from expressivity.errors import (
    CatalogueError,
    ExpressivityError,
    ExpressivityWarning,
    FormulaSyntaxError,
)

if TYPE_CHECKING:
    from expressivity.automata.dfa import DFA
    from expressivity.logic.syntax import Formula

#: Class names an entry may list under ``[expected]`` (the keys of `algebra.classify`).
CLASS_KEYS = frozenset(
    {
        "regular",
        "aperiodic",
        "r_trivial",
        "l_trivial",
        "j_trivial",
        "da",
        "definite",
        "reverse_definite",
        "generalized_definite",
        "locally_testable",
        "locally_r_trivial",
        "group",
        "qr",
        "qlr",
    }
)
_KEYS = frozenset(
    {
        "name",
        "alphabet",
        "formula",
        "regex",
        "nonregular",
        "dfa",
        "description",
        "source",
        "expected",
        "evaluate_at",
        "logic",
    }
)


def _anbn(word: Sequence[str]) -> bool:
    n = len(word)
    return (
        n % 2 == 0
        and all(s == "a" for s in word[: n // 2])
        and all(s == "b" for s in word[n // 2 :])
    )


#: Built-in non-regular membership predicates, by the name used in ``nonregular = "..."``.
NONREGULAR: Mapping[str, Callable[[Sequence[str]], bool]] = {"anbn": _anbn}


@dataclass(frozen=True)
class Language:
    """A catalogue language: its alphabet, definitions, provenance and expected classes."""

    name: str
    alphabet: Alphabet
    description: str = ""
    source: str = ""
    formula: str | None = None
    regex: str | None = None
    nonregular: str | None = None
    dfa_table: tuple[int, tuple[int, ...], tuple[tuple[int, ...], ...]] | None = None
    expected: tuple[tuple[str, bool], ...] = ()
    path: str = ""
    evaluate_at: str = "eos"  # where the formula is evaluated: "eos" or "start" (logic.anchor)
    logic: str = "ltl"  # the formula's dialect: "ltl" or "ltlf" (logic.ltlf; then at "start")

    @property
    def is_regular(self) -> bool:
        """False for the non-regular controls (such as CNT = aⁿbⁿ)."""
        return self.nonregular is None

    @property
    def expected_classes(self) -> dict[str, bool]:
        """The ``[expected]`` table as a dict."""
        return dict(self.expected)

    def parsed_formula(self) -> Formula | None:
        """The formula as an AST (None when the entry has no formula); with ``logic = "ltlf"``
        it must be an LTLf formula (no past operator, no ``eos``)."""
        if self.formula is None:
            return None
        from expressivity.logic.ltlf import check_ltlf
        from expressivity.logic.parser import MAX_DEPTH, MAX_SHIFT, parse

        formula = parse(self.formula, self.alphabet, max_depth=MAX_DEPTH, max_shift=MAX_SHIFT)
        return check_ltlf(formula, self.formula) if self.logic == "ltlf" else formula

    def dfa(self) -> DFA:
        """The canonical minimal DFA (from the formula, else the regex, else the table)."""
        return _compile(self)

    def accepts(self, word: Sequence[str]) -> bool:
        """Membership of ``word`` (works for the non-regular controls too)."""
        word = self.alphabet.check_word(word)
        if self.nonregular is not None:
            return NONREGULAR[self.nonregular](word)
        return self.dfa().accepts(word)


@cache
def _compile(lang: Language) -> DFA:
    if lang.nonregular is not None:
        raise ExpressivityError(
            f"{lang.name} is not regular ({lang.description}); it has no DFA. "
            "Use Language.accepts for membership."
        )
    if lang.formula is not None:
        from expressivity.automata.compile import compile_formula
        from expressivity.logic.ltlf import language_formula

        formula = language_formula(
            lang.parsed_formula(), lang.evaluate_at, lang.logic  # type: ignore[arg-type]
        )
        return compile_formula(formula, lang.alphabet)
    if lang.regex is not None:
        from expressivity.automata.regex import compile_regex

        return compile_regex(lang.regex, lang.alphabet)
    assert lang.dfa_table is not None
    from expressivity.automata.dfa import DFA
    from expressivity.automata.ops import canonical

    initial, accepting, rows = lang.dfa_table
    acc = [q in set(accepting) for q in range(len(rows))]
    return canonical(DFA(lang.alphabet, rows, acc, initial))


#: Environment variable naming extra catalogue folders (``os.pathsep``-separated), searched first.
CATALOGUE_ENV = "EXPRESSIVITY_CATALOGUE"


def default_directory() -> Path:
    """The catalogue shipped inside the package (``expressivity/languages/``, package data)."""
    return Path(__file__).resolve().parent / "languages"


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


#: What a catalogue name looks like: an upper-case letter (no regex starts with one), then
#: letters, digits and ``_ - ( ) , . +`` (no spaces); and the whole must not parse as a
#: formula (``P(a)`` does). A name can then never be read as a formula or a regex, so it never
#: shadows one. Names are compared ignoring case: ``LT-2`` and ``lt-2`` are one language.
NAME_RULE = re.compile(r"[A-Z][A-Za-z0-9_\-(),.+]*")


def check_name(name: str, where: str) -> None:
    """`CatalogueError` unless ``name`` follows `NAME_RULE`."""
    from expressivity.logic.parser import parse

    why = ""
    if not NAME_RULE.fullmatch(name):
        why = "start with an upper-case letter and use only letters, digits and _ - ( ) , . +"
    else:
        try:
            parse(name)
            why = "not parse as a formula"
        except ExpressivityError:
            pass
    if why:
        raise CatalogueError(
            f"{where}: name {name!r} could be read as a formula or regex: a catalogue name must "
            f"{why} (e.g. 'LT-2', 'EVEN-a')"
        )


def parse_entry(data: Mapping[str, Any], where: str) -> Language:
    """Validate one TOML table and build its `Language`; errors name ``where`` and the key."""
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise CatalogueError(
            f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_KEYS))}",
            key=unknown[0],
        )
    for key in ("name", "alphabet"):
        if key not in data:
            raise CatalogueError(f"{where}: missing required key {key!r}")
    name = data["name"]
    if not isinstance(name, str) or not name.strip():
        raise CatalogueError(
            f"{where}: 'name' must be a non-empty string, got {name!r}", key="name"
        )
    check_name(name, where)
    try:
        alphabet = Alphabet.parse(data["alphabet"])
    except ExpressivityError as err:
        raise CatalogueError(f"{where}: bad alphabet: {err}", key="alphabet") from None
    definitions = [k for k in ("formula", "regex", "dfa", "nonregular") if k in data]
    if not definitions:
        raise CatalogueError(f"{where}: give at least one of formula, regex, dfa, nonregular")
    for key in ("formula", "regex", "description", "source", "nonregular"):
        if key in data and not isinstance(data[key], str):
            raise CatalogueError(f"{where}: {key!r} must be a string, got {data[key]!r}", key=key)
    nonregular = data.get("nonregular")
    if nonregular is not None and nonregular not in NONREGULAR:
        raise CatalogueError(
            f"{where}: unknown nonregular predicate {nonregular!r}; known: {', '.join(NONREGULAR)}",
            key="nonregular",
        )
    expected = data.get("expected", {})
    if not isinstance(expected, Mapping):
        raise CatalogueError(f"{where}: [expected] must be a table of class = true/false")
    for key, value in expected.items():
        if key not in CLASS_KEYS:
            raise CatalogueError(
                f"{where}: unknown class {key!r} in [expected]; "
                f"known: {', '.join(sorted(CLASS_KEYS))}",
                key=key,
            )
        if not isinstance(value, bool):
            raise CatalogueError(
                f"{where}: [expected] {key} must be true or false, got {value!r}", key=key
            )
    evaluate_at = data.get("evaluate_at", "eos")
    if evaluate_at not in ("eos", "start") or ("formula" not in data and "evaluate_at" in data):
        raise CatalogueError(
            f"{where}: evaluate_at must be \"eos\" or \"start\" and needs a formula, "
            f"got {evaluate_at!r}",
            key="evaluate_at",
        )
    logic = data.get("logic", "ltl")
    if logic not in ("ltl", "ltlf") or ("formula" not in data and "logic" in data):
        raise CatalogueError(
            f"{where}: logic must be \"ltl\" or \"ltlf\" and needs a formula, got {logic!r}",
            key="logic",
        )
    if logic == "ltlf" and evaluate_at != "start" and "evaluate_at" in data:
        raise CatalogueError(
            f"{where}: logic = \"ltlf\" evaluates the formula at the first position; drop "
            f"evaluate_at = {evaluate_at!r}",
            key="evaluate_at",
        )
    if logic == "ltlf":
        evaluate_at = "start"
    table = _parse_table(data["dfa"], alphabet, where) if "dfa" in data else None
    lang = Language(
        name=name,
        alphabet=alphabet,
        description=data.get("description", ""),
        source=data.get("source", ""),
        formula=data.get("formula"),
        regex=data.get("regex"),
        nonregular=nonregular,
        dfa_table=table,
        expected=tuple(sorted(expected.items())),
        path=where,
        evaluate_at=evaluate_at,
        logic=logic,
    )
    if nonregular is not None and len(definitions) > 1:
        others = ", ".join(k for k in definitions if k != "nonregular")
        raise CatalogueError(
            f"{where}: {name} is nonregular = {nonregular!r} but also has {others}: a "
            "non-regular language has no formula, regex or DFA; keep one kind of definition"
        )
    if lang.formula is not None:
        try:
            lang.parsed_formula()
        except ExpressivityError as err:
            at = re.search(r"at line 1, column (\d+)", str(err))
            column = err.column if isinstance(err, FormulaSyntaxError) and err.line == 1 else 0
            column = column or (int(at[1]) if at else 0)
            raise CatalogueError(
                f"{where}: formula of {name}: {err}", key="formula", column=column
            ) from None
    if lang.regex is not None:
        _check_regex(lang, where)
    return lang


def _check_regex(lang: Language, where: str) -> None:
    """The regex compiles, and defines the formula's language where both are given."""
    from expressivity.automata.compile import compile_formula
    from expressivity.automata.ops import distinguishing_word
    from expressivity.automata.regex import compile_regex

    try:
        by_regex = compile_regex(lang.regex or "", lang.alphabet)
    except ExpressivityError as err:
        raise CatalogueError(f"{where}: regex of {lang.name}: {err}") from None
    if lang.formula is None:
        return
    from expressivity.logic.ltlf import language_formula

    try:  # the formula's language where it is evaluated (evaluate_at) and as it is read (logic)
        formula = language_formula(
            lang.parsed_formula(), lang.evaluate_at, lang.logic  # type: ignore[arg-type]
        )
        by_formula = compile_formula(formula, lang.alphabet)
    except ExpressivityError as err:
        raise CatalogueError(f"{where}: formula of {lang.name}: {err}") from None
    word = distinguishing_word(by_formula, by_regex)
    if word is not None:
        shown = " ".join(word) if word else "ε (the empty word)"
        inside = "formula" if by_formula.accepts(word) else "regex"
        raise CatalogueError(
            f"{where}: the formula and the regex of {lang.name} define different languages: "
            f"the shortest word where they differ is {shown!r}, accepted by the {inside} only; "
            "fix one of them"
        )


def _parse_table(
    table: Any, alphabet: Alphabet, where: str
) -> tuple[int, tuple[int, ...], tuple[tuple[int, ...], ...]]:
    if not isinstance(table, Mapping) or set(table) != {"initial", "accepting", "transitions"}:
        raise CatalogueError(
            f"{where}: [dfa] needs exactly initial, accepting and transitions", key="dfa"
        )
    rows = table["transitions"]
    n = len(rows) if isinstance(rows, list) else 0
    ok = n > 0 and all(
        isinstance(r, list)
        and len(r) == len(alphabet)
        and all(_state(q) and 0 <= q < n for q in r)
        for r in rows
    )
    if not ok:
        raise CatalogueError(
            f"{where}: [dfa] transitions must be a list of rows of {len(alphabet)} state numbers "
            f"in 0..{max(n - 1, 0)} (one row per state, columns in alphabet order)",
            key="transitions",
        )
    acc, init = table["accepting"], table["initial"]
    if not isinstance(acc, list) or not all(_state(q) and 0 <= q < n for q in acc):
        raise CatalogueError(
            f"{where}: [dfa] accepting must list states in 0..{n - 1}", key="accepting"
        )
    if not _state(init) or not 0 <= init < n:
        raise CatalogueError(
            f"{where}: [dfa] initial must be a state in 0..{n - 1}", key="initial"
        )
    return init, tuple(acc), tuple(tuple(r) for r in rows)


def _state(q: Any) -> bool:
    """A state number: an int, not a bool (TOML ``true`` is not state 1)."""
    return isinstance(q, int) and not isinstance(q, bool)


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
