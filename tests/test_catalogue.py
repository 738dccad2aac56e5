"""The language catalogue: every entry loads, its definitions agree, bad entries fail clearly."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from expressivity.automata.ops import is_empty
from expressivity.catalogue import get_language, load_catalogue, parse_entry
from expressivity.errors import AlphabetError, CatalogueError, ExpressivityError

CATALOGUE = load_catalogue()
REGULAR = [lang for lang in CATALOGUE.values() if lang.is_regular]

LC25 = {
    "FIRST",
    "LT-1",
    "PT-2",
    "LDP-1",
    "LDP-2",
    "LAST",
    "RDP-1",
    "LT-2",
    "DYCK-(1,1)",
    "DYCK-(1,2)",
    "PARITY",
    "CNT",
}
LC26 = {"SUFFIX-a", "SUFFIX-ab", "PREFIX-a", "PT-2", "DYCK-(1,1)", "LT-2", "RDP-1", "DYCK-(1,2)"}


def words(alphabet: tuple[str, ...], max_len: int):  # type: ignore[no-untyped-def]
    for n in range(max_len + 1):
        yield from itertools.product(alphabet, repeat=n)


def test_papers_languages_are_present() -> None:
    assert set(CATALOGUE) >= LC25
    assert set(CATALOGUE) >= LC26
    assert {f"TOMITA-{i}" for i in range(1, 8)} <= set(CATALOGUE)
    assert "EVEN-a" in CATALOGUE


def test_every_entry_has_provenance() -> None:
    for lang in CATALOGUE.values():
        assert lang.description and lang.source, lang.name
        assert lang.expected, lang.name


@pytest.mark.parametrize("lang", REGULAR, ids=lambda lang: lang.name)
def test_definitions_agree_with_the_formula_semantics(lang) -> None:  # type: ignore[no-untyped-def]
    from expressivity.automata.ops import equivalent
    from expressivity.logic.semantics import accepts

    dfa = lang.dfa()
    formula = lang.parsed_formula()
    max_len = 7 if len(lang.alphabet) <= 3 else 5
    if formula is not None:
        for w in words(lang.alphabet.symbols, max_len):
            assert dfa.accepts(w) == accepts(formula, w), (lang.name, w)
    if lang.formula is not None and lang.regex is not None:
        from expressivity.automata.regex import compile_regex

        assert equivalent(dfa, compile_regex(lang.regex, lang.alphabet)), lang.name


def test_hand_checked_memberships() -> None:
    cases = {
        "FIRST": (["b", "bac"], ["", "a", "cb"]),
        "LT-2": (["ab", "cabc"], ["", "ba", "acb"]),
        "DYCK-(1,1)": (["", "ab", "abab"], ["a", "ba", "aabb"]),
        "DYCK-(1,2)": (["", "ab", "aabb", "aababb", "abaabb"], ["a", "abb", "aaabbb"]),
        "PARITY": (["", "a", "bb", "abab"], ["b", "ab", "bbb"]),
        "TOMITA-3": (["", "a", "b", "aa", "ab", "bb", "baa", "bba"], ["ba", "bab", "baaa"]),
        "TOMITA-6": (["", "ab", "aaa", "aabb"], ["a", "b", "aab"]),
        "CNT": (["", "ab", "aabb"], ["a", "ba", "aab"]),
    }
    for name, (members, others) in cases.items():
        lang = CATALOGUE[name]
        for w in members:
            assert lang.accepts(lang.alphabet.parse_word(w)), (name, w)
        for w in others:
            assert not lang.accepts(lang.alphabet.parse_word(w)), (name, w)


def test_nonregular_control_has_no_dfa() -> None:
    with pytest.raises(ExpressivityError, match="not regular"):
        CATALOGUE["CNT"].dfa()


def test_lookup_is_case_insensitive_and_unknown_names_are_listed() -> None:
    assert get_language("lt-2") is CATALOGUE["LT-2"]
    with pytest.raises(CatalogueError, match=r"unknown language 'NOPE'.*LT-2"):
        get_language("NOPE")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"name": "X", "alphabet": ["a"], "regex": "a", "colour": 1}, "unknown key"),
        ({"name": "X", "alphabet": ["a"]}, "at least one of"),
        ({"alphabet": ["a"], "regex": "a"}, "missing required key 'name'"),
        ({"name": "X", "alphabet": ["a", "a"], "regex": "a"}, "duplicate symbols"),
        (
            {"name": "X", "alphabet": ["a"], "regex": "a", "expected": {"starfree": True}},
            "unknown class 'starfree'",
        ),
        (
            {
                "name": "X",
                "alphabet": ["a"],
                "dfa": {"initial": 0, "accepting": [0], "transitions": [[1]]},
            },
            "transitions",
        ),
        ({"name": "X", "alphabet": ["a", "b"], "formula": "P c"}, "'c'"),
        ({"name": "X", "alphabet": ["a", "b"], "formula": "P (a"}, "line 1"),
    ],
)
def test_bad_entries_raise_clear_errors(entry: dict, message: str) -> None:
    with pytest.raises(CatalogueError, match=message):
        parse_entry(entry, "test.toml")


def test_duplicate_names_are_rejected(tmp_path: Path) -> None:
    for stem in ("one", "two"):
        (tmp_path / f"{stem}.toml").write_text('name = "X"\nalphabet = ["a"]\nregex = "a"\n')
    with pytest.raises(CatalogueError, match="duplicate language name 'X'"):
        load_catalogue(tmp_path)


def test_resolve_reads_names_formulas_and_regexes() -> None:
    from expressivity.resolve import resolve

    assert resolve("LT-2").kind == "catalogue"
    assert resolve("P(b & Y a)", "a,b,c").kind == "formula"
    assert resolve("(a b)*", "a,b").kind == "regex"
    assert resolve("re:a", "a,b").kind == "regex"
    assert resolve("ab", "a,b").kind == "regex"  # not a formula: `ab` is no symbol of {a,b}
    assert is_empty(resolve("a | b", "a,b").dfa)  # as a formula: letters are false at EOS
    moved = resolve("RDP-1", "a,b0,b1")
    assert moved.alphabet.symbols == ("a", "b0", "b1")
    with pytest.raises(AlphabetError, match="no alphabet"):
        resolve("P a")
    with pytest.raises(ExpressivityError, match="neither"):
        resolve("P (a", "a,b")
    with pytest.raises(AlphabetError, match="'c'"):
        resolve("P c", "a,b")
