"""What the theory says about each language: its classification, class memberships and group.

Everything here comes from `expressivity.algebra.classify` on the minimal DFA over the
language's alphabet (docs/theory.md §3), cached per language and set of layouts
(`classification_or_reason`): `predictions` (`prediction_table`) decides its cells from the
same classification. `DIAGRAM` is the class-inclusion diagram; `language_classes` gives one
row of memberships, group and smallest classes per language.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import pandas as pd

from expressivity.algebra.classification import Classification
from expressivity.algebra.classify import classify
from expressivity.analysis.layout_theory import classify_arguments
from expressivity.analysis.schema import CLASS_COLUMNS, conform
from expressivity.errors import ExpressivityError

__all__ = [
    "DIAGRAM",
    "LanguageKey",
    "cell_classification",
    "class_group",
    "classification",
    "classification_or_reason",
    "language_classes",
    "language_key_list",
    "smallest_classes",
]

#: A language as the analysis names it: (name or formula, alphabet override or "").
LanguageKey = tuple[str, str]

#: The class-inclusion diagram of the attention classes (docs/theory.md §3): node → (the
#: `CLASS_COLUMNS` column deciding membership, what recognizes it, the nodes directly above).
DIAGRAM: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "LTL[Y]": ("definite", "definite: local-1", ("LTL[P,Y]",)),
    "LTL[P]": ("r_trivial", "R-trivial: global", ("LTL[P,Y]",)),
    "LTL[P,Y]": ("locally_r_trivial", "locally R-trivial: hybrid-1", ("star-free",)),
    "star-free": ("aperiodic", "FO[<]: unique hard attention", ("regular",)),
    "regular": ("regular", "finite automata", ()),
}


@lru_cache(maxsize=512)
def classification_or_reason(
    language: str, alphabet: str, ks: tuple[int, ...], layouts: tuple[str, ...] = ()
) -> Classification | str:
    """The classification, or a string: "not regular" or the error that prevented it."""
    from expressivity.catalogue import get_language
    from expressivity.resolve import resolve

    if not alphabet:
        try:
            if not get_language(language).is_regular:
                return "not regular"
        except ExpressivityError:
            pass  # not a catalogue name: a formula or a regex, resolved below
    try:
        source = resolve(language, alphabet or None)
        return classify(source.dfa, ks, layouts=layouts, name=language, synthesize=False)
    except ExpressivityError as err:
        return f"not classified: {err}"


def classification(language: str, alphabet: str = "") -> Classification | None:
    """The (cached) classification of a language, or None if it is not regular or unresolvable."""
    c = classification_or_reason(language, alphabet, (1,))
    return c if isinstance(c, Classification) else None


def cell_classification(
    language: str, alphabet: str, layouts: Iterable[str]
) -> Classification | str:
    """The (cached) classification that `predictions` decides the cells ``layouts`` of this
    language by: a `Classification` (its ``to_table()`` is what ``expressivity classify``
    prints, without synthesized formulas), or why there is none ("not regular", or the
    error that prevented it)."""
    return classification_or_reason(language, alphabet, *classify_arguments(layouts))


def class_group(member: Mapping[str, Any]) -> str:
    """The smallest class group (`schema.GROUPS`) of a row of `CLASS_COLUMNS` memberships."""
    if member.get("regular") is False:
        return "not regular"
    if any(pd.isna(member.get(c)) for c in ("definite", "r_trivial", "aperiodic")):
        return "unknown"
    if member["definite"] and member["r_trivial"]:
        return "LTL[P] ∩ LTL[Y]"
    if member["definite"]:
        return "LTL[Y]-only"
    if member["r_trivial"]:
        return "LTL[P]-only"
    if member["locally_r_trivial"]:
        return "LTL[P,Y]-only"
    return "star-free outside LTL[P,Y]" if member["aperiodic"] else "not star-free"


def smallest_classes(member: Mapping[str, Any]) -> list[str]:
    """The minimal `DIAGRAM` nodes containing the language (several when incomparable)."""
    inside = {node for node, (col, _, _) in DIAGRAM.items() if member.get(col) is True}
    covered = {parent for node in inside for parent in _above(node)}
    return [node for node in DIAGRAM if node in inside and node not in covered]


def _above(node: str) -> set[str]:
    """Every node strictly above ``node`` in the diagram."""
    out: set[str] = set()
    todo = list(DIAGRAM[node][2])
    while todo:
        parent = todo.pop()
        if parent not in out:
            out.add(parent)
            todo.extend(DIAGRAM[parent][2])
    return out


def language_key_list(languages: Iterable[str | LanguageKey]) -> list[LanguageKey]:
    """``languages`` (names, or (name, alphabet) pairs) as distinct `LanguageKey` s, in order."""
    out: list[LanguageKey] = []
    for item in languages:
        key = (item, "") if isinstance(item, str) else (str(item[0]), str(item[1] or ""))
        if key not in out:
            out.append(key)
    return out


def language_classes(languages: Iterable[str | LanguageKey]) -> pd.DataFrame:
    """One row per language (`CLASS_COLUMNS`): memberships, group and smallest classes.

    ``languages`` are catalogue names, formulas or regexes, optionally paired with an
    alphabet override ("a,b,c"); unclassifiable ones get group "unknown" and NA memberships.
    """
    rows = []
    for language, alphabet in language_key_list(languages):
        c = classification_or_reason(language, alphabet, (1,))
        row: dict[str, Any] = {"language": language, "alphabet": alphabet}
        if isinstance(c, Classification):
            row.update(
                sigma=",".join(c.alphabet.symbols), regular=True, n_states=c.n_states,
                **{col: c.member(col) for col in CLASS_COLUMNS if col in dict(c.verdicts)},
            )
        else:
            row.update(regular=False if c == "not regular" else pd.NA, sigma=alphabet)
        row["group"] = class_group(row)
        row["smallest"] = " ∩ ".join(smallest_classes(row)) or (
            "not regular" if row["regular"] is False else "unknown"
        )
        rows.append(row)
    return conform(pd.DataFrame(rows, columns=list(CLASS_COLUMNS)), CLASS_COLUMNS)
