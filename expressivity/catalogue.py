"""The language catalogue: `languages/*.toml` loaded into validated, frozen `Language` values.

Each file holds one language::

    name = "LT-2"                      # unique ignoring case; see NAME_RULE
    alphabet = ["a", "b", "c"]         # ordered; membership in a class depends on it
    formula = "P(b & Y a)"             # optional: temporal-logic definition (expressivity.logic)
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

import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from expressivity.alphabet import Alphabet
from expressivity.errors import CatalogueError, ExpressivityError

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

    @property
    def is_regular(self) -> bool:
        """False for the non-regular controls (such as CNT = aⁿbⁿ)."""
        return self.nonregular is None

    @property
    def expected_classes(self) -> dict[str, bool]:
        """The ``[expected]`` table as a dict."""
        return dict(self.expected)

    def parsed_formula(self) -> Formula | None:
        """The formula as an AST (None when the entry has no formula)."""
        if self.formula is None:
            return None
        from expressivity.logic.parser import parse

        return parse(self.formula, self.alphabet)

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

        return compile_formula(lang.parsed_formula(), lang.alphabet)  # type: ignore[arg-type]
    if lang.regex is not None:
        from expressivity.automata.regex import compile_regex

        return compile_regex(lang.regex, lang.alphabet)
    assert lang.dfa_table is not None
    from expressivity.automata.dfa import DFA
    from expressivity.automata.ops import canonical

    initial, accepting, rows = lang.dfa_table
    acc = [q in set(accepting) for q in range(len(rows))]
    return canonical(DFA(lang.alphabet, rows, acc, initial))


def default_directory() -> Path:
    """Where the catalogue lives: ``$EXPRESSIVITY_LANGUAGES`` or the repository's ``languages/``."""
    env = os.environ.get("EXPRESSIVITY_LANGUAGES")
    return Path(env) if env else Path(__file__).resolve().parents[1] / "languages"


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
            f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_KEYS))}"
        )
    for key in ("name", "alphabet"):
        if key not in data:
            raise CatalogueError(f"{where}: missing required key {key!r}")
    name = data["name"]
    if not isinstance(name, str) or not name.strip():
        raise CatalogueError(f"{where}: 'name' must be a non-empty string, got {name!r}")
    check_name(name, where)
    try:
        alphabet = Alphabet.parse(data["alphabet"])
    except ExpressivityError as err:
        raise CatalogueError(f"{where}: bad alphabet: {err}") from None
    definitions = [k for k in ("formula", "regex", "dfa", "nonregular") if k in data]
    if not definitions:
        raise CatalogueError(f"{where}: give at least one of formula, regex, dfa, nonregular")
    for key in ("formula", "regex", "description", "source", "nonregular"):
        if key in data and not isinstance(data[key], str):
            raise CatalogueError(f"{where}: {key!r} must be a string, got {data[key]!r}")
    nonregular = data.get("nonregular")
    if nonregular is not None and nonregular not in NONREGULAR:
        raise CatalogueError(
            f"{where}: unknown nonregular predicate {nonregular!r}; known: {', '.join(NONREGULAR)}"
        )
    expected = data.get("expected", {})
    if not isinstance(expected, Mapping):
        raise CatalogueError(f"{where}: [expected] must be a table of class = true/false")
    for key, value in expected.items():
        if key not in CLASS_KEYS:
            raise CatalogueError(
                f"{where}: unknown class {key!r} in [expected]; "
                f"known: {', '.join(sorted(CLASS_KEYS))}"
            )
        if not isinstance(value, bool):
            raise CatalogueError(f"{where}: [expected] {key} must be true or false, got {value!r}")
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
            raise CatalogueError(f"{where}: formula of {name}: {err}") from None
    if lang.regex is not None:
        _check_regex(lang, where)
    return lang


def _check_regex(lang: Language, where: str) -> None:
    """The regex compiles, and defines the formula's language where both are given."""
    from expressivity.automata.compile import compile_formula
    from expressivity.automata.regex import compile_regex

    try:
        by_regex = compile_regex(lang.regex or "", lang.alphabet)
    except ExpressivityError as err:
        raise CatalogueError(f"{where}: regex of {lang.name}: {err}") from None
    if lang.formula is None:
        return
    try:
        by_formula = compile_formula(lang.parsed_formula(), lang.alphabet)  # type: ignore[arg-type]
    except ExpressivityError as err:
        raise CatalogueError(f"{where}: formula of {lang.name}: {err}") from None
    word = by_formula.is_equivalent(by_regex)
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
        raise CatalogueError(f"{where}: [dfa] needs exactly initial, accepting and transitions")
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
            f"in 0..{max(n - 1, 0)} (one row per state, columns in alphabet order)"
        )
    acc, init = table["accepting"], table["initial"]
    if not isinstance(acc, list) or not all(_state(q) and 0 <= q < n for q in acc):
        raise CatalogueError(f"{where}: [dfa] accepting must list states in 0..{n - 1}")
    if not _state(init) or not 0 <= init < n:
        raise CatalogueError(f"{where}: [dfa] initial must be a state in 0..{n - 1}")
    return init, tuple(acc), tuple(tuple(r) for r in rows)


def _state(q: Any) -> bool:
    """A state number: an int, not a bool (TOML ``true`` is not state 1)."""
    return isinstance(q, int) and not isinstance(q, bool)


def load_file(path: Path) -> Language:
    """Load and validate one catalogue file."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise CatalogueError(f"{path}: invalid TOML: {err}") from None
    return parse_entry(data, str(path))


def load_catalogue(directory: str | Path | None = None) -> dict[str, Language]:
    """All languages of a catalogue directory, by name; duplicate names are an error."""
    return dict(_load(str(Path(directory) if directory else default_directory())))


@cache
def _load(directory: str) -> tuple[tuple[str, Language], ...]:
    root = Path(directory)
    if not root.is_dir():
        raise CatalogueError(f"catalogue directory {root} does not exist")
    seen: dict[str, Language] = {}
    folded: dict[str, Language] = {}
    for path in sorted(root.glob("*.toml")):
        lang = load_file(path)
        first = folded.get(lang.name.casefold())
        if first is not None:
            raise CatalogueError(
                f"duplicate language name {lang.name!r} in {path}: {first.name!r} in "
                f"{first.path} is the same name (names ignore case); rename one"
            )
        seen[lang.name] = folded[lang.name.casefold()] = lang
    return tuple(seen.items())


def get_language(name: str, directory: str | Path | None = None) -> Language:
    """The catalogue language called ``name`` (case-insensitive); a clear error if unknown."""
    catalogue = load_catalogue(directory)
    if name in catalogue:
        return catalogue[name]
    folded = {k.casefold(): v for k, v in catalogue.items()}
    if name.casefold() in folded:
        return folded[name.casefold()]
    raise CatalogueError(
        f"unknown language {name!r}; the catalogue has: {', '.join(sorted(catalogue))}"
    )
