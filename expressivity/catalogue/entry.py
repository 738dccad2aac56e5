"""One catalogue entry read: a TOML table checked key by key into a `Language`.

Every error is a `CatalogueError` naming the entry (``where``) and the key, which
`catalogue.files.load_file` turns into the file's line and column.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from expressivity.alphabet import Alphabet
from expressivity.catalogue.language import CLASS_KEYS, NONREGULAR, Language
from expressivity.errors import CatalogueError, ExpressivityError, FormulaSyntaxError

__all__ = ["ENTRY_KEYS", "NAME_RULE", "check_name", "parse_entry"]

#: The keys a catalogue entry may have (see `expressivity.catalogue`).
ENTRY_KEYS = frozenset(
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
    unknown = sorted(set(data) - ENTRY_KEYS)
    if unknown:
        raise CatalogueError(
            f"{where}: unknown key(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(sorted(ENTRY_KEYS))}",
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
