"""The LTLf dialect: the reference evaluator, the translation into the toolkit's logic."""

from __future__ import annotations

import itertools
import warnings

import pytest
from hypothesis import given, settings

from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula
from expressivity.errors import ConfigError, ExpressivityWarning, FormulaSyntaxError
from expressivity.logic import parse, truth_table
from expressivity.logic.ltlf import language_formula, to_toolkit
from expressivity.logic.semantics import ltlf_accepts, ltlf_holds
from expressivity.logic.syntax import Formula, Or
from expressivity.logic.temporal import Eventually, Globally, Next, Until, WeakNext
from expressivity.resolve import resolve
from tests.logic.strategies import FUTURE_OPERATORS, formulas

SIGMA = Alphabet(("a", "b", "c"))
LTLF = formulas(("a", "b", "c"), FUTURE_OPERATORS, constants=("true", "false", "start"),
                max_depth=3, max_height=5)


def words(max_len: int, symbols: tuple[str, ...] = ("a", "b", "c")) -> list[tuple[str, ...]]:
    return [w for n in range(max_len + 1) for w in itertools.product(symbols, repeat=n)]


def ltlf_dfa(text: str, alphabet: Alphabet = SIGMA):  # type: ignore[no-untyped-def]
    return compile_formula(language_formula(parse(text, alphabet), logic="ltlf"), alphabet)


# ------------------------------------------------------------------ the reference evaluator


@pytest.mark.parametrize(
    ("text", "empty"),
    # ltlf2dfa's own tests and its maintainer (whitemech/LTLf2DFA issues 45, 46): a letter, X,
    # F and U are false on the empty trace, G and WX true, Booleans as usual.
    [("a", False), ("!a", True), ("true", True), ("false", False), ("G a", True),
     ("X a", False), ("WX a", True), ("WX false", True), ("F(a & b)", False),
     ("a U b", False), ("G a & F b", False), ("G(F a & F !a)", True),
     ("!G(!a | F b)", False)],
)
def test_the_empty_word_follows_ltlf2dfa(text: str, empty: bool) -> None:
    formula = parse(text)
    assert ltlf_accepts(formula, ()) is empty
    assert ltlf_dfa(text).accepts(()) is empty


@pytest.mark.parametrize(
    ("text", "accepted", "rejected"),
    [  # the examples: what LTLf users mean
        ("G(a -> X b)", ["", "b", "ab", "abab", "cabc"], ["a", "aab", "ca", "aa"]),
        ("F(a & X F b)", ["ab", "cab", "acb", "aab"], ["", "a", "ba", "bca", "c"]),
        ("X a", ["ba", "bac"], ["", "a", "b", "ab"]),
        ("WX a", ["", "b", "ba"], ["bb", "abc"]),
        ("a U b", ["b", "ab", "aab", "bc"], ["", "a", "aa", "acb"]),
        ("G a", ["", "a", "aaa"], ["b", "ab"]),
    ],
)
def test_reference_and_compilation_on_examples(
    text: str, accepted: list[str], rejected: list[str]
) -> None:
    formula, dfa = parse(text), ltlf_dfa(text)
    for word in accepted:
        assert ltlf_accepts(formula, tuple(word)) and dfa.accepts(tuple(word)), word
    for word in rejected:
        assert not ltlf_accepts(formula, tuple(word)) and not dfa.accepts(tuple(word)), word


def test_ltlf_gives_pt2_three_states() -> None:
    """F(a & X F b) is PT-2 = Σ*aΣ*bΣ* in LTLf: the catalogue's 3-state DFA."""
    from expressivity.catalogue import get_language

    assert ltlf_dfa("F(a & X F b)") == get_language("PT-2").dfa()


@settings(max_examples=300)
@given(LTLF)
def test_reference_satisfies_the_expansion_laws(formula: Formula) -> None:
    """Independent of how the evaluator is written: at every letter position n ≤ N,
    F φ ↔ φ ∨ X F φ, G φ ↔ φ ∧ WX G φ, φ U ψ ↔ ψ ∨ (φ ∧ X(φ U ψ)), and WX φ ↔ ¬X¬φ."""
    from expressivity.logic.syntax import And, Not

    for word in words(3):
        for n in range(1, len(word) + 1):
            for sub in formula.subformulas():
                got = ltlf_holds(sub, word, n)
                match sub:
                    case Eventually(a):
                        law: Formula = Or(a, Next(sub))
                    case Globally(a):
                        law = And(a, WeakNext(sub))
                    case Until(a, b):
                        law = Or(b, And(a, Next(sub)))
                    case WeakNext(a):
                        law = Not(Next(Not(a)))
                    case _:
                        continue
                assert got == ltlf_holds(law, word, n), (sub, word, n)


# ------------------------------------------------------------------ the translation


@settings(max_examples=300)
@given(LTLF)
def test_translation_agrees_at_every_position(formula: Formula) -> None:
    """Theorem of docs/theory.md §10: τφ (toolkit semantics) and φ (LTLf) agree at every
    position 1..N+1 of every word."""
    translated = to_toolkit(formula)
    for word in words(4):
        table = truth_table(translated, word)
        expected = [ltlf_holds(formula, word, n) for n in range(1, len(word) + 2)]
        assert list(map(bool, table)) == expected, word


@settings(max_examples=300)
@given(LTLF)
def test_compiled_ltlf_language_on_all_short_words(formula: Formula) -> None:
    dfa = compile_formula(language_formula(formula, logic="ltlf"), SIGMA)
    for word in words(5):
        assert dfa.accepts(word) == ltlf_accepts(formula, word), word


def test_translation_shares_subformulas() -> None:
    """Nested F's double the printed formula but not the work: 40 nested F's compile, to
    "40 b's in order, then an a" (42 states with the sink)."""
    text = "a"
    for _ in range(40):
        text = f"F(b & X {text})"
    dfa = ltlf_dfa(text, Alphabet(("a", "b")))
    assert dfa.n_states == 42
    assert dfa.accepts(("b",) * 40 + ("a",)) and not dfa.accepts(("b",) * 39 + ("a",))


# ------------------------------------------------------------------ errors and plumbing


@pytest.mark.parametrize(("text", "column"), [("F(a & Y b)", 7), ("G P a", 3), ("a S b", 3),
                                              ("F(a & eos)", 7), ("Y<=2 a", 1)])
def test_past_operators_are_refused_with_their_place(text: str, column: int) -> None:
    with pytest.raises(FormulaSyntaxError) as err:
        resolve(text, SIGMA, logic="ltlf")
    assert err.value.column == column
    assert "--logic ltl" in str(err.value)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_refusal_on_a_later_line_is_placed_as_the_parser_places_errors(newline: str) -> None:
    """One home for locations (`logic.grammar.line_column`): lines end at any line break that
    `str.splitlines` knows, here and in the parser's own syntax errors."""
    text = f"F a{newline}& G Y b"
    with pytest.raises(FormulaSyntaxError) as refused:
        resolve(text, SIGMA, logic="ltlf")
    assert (refused.value.line, refused.value.column) == (2, 5)
    with pytest.raises(FormulaSyntaxError) as syntax:
        resolve(f"F a{newline}& G ) b", SIGMA)
    assert (syntax.value.line, syntax.value.column) == (2, 5)


def test_ltlf_prefix_and_logic_argument_agree() -> None:
    by_prefix = resolve("ltlf:G(a -> X b)", SIGMA)
    by_argument = resolve("G(a -> X b)", SIGMA, logic="ltlf")
    assert by_prefix.dfa == by_argument.dfa and by_prefix.logic == "ltlf"
    assert by_prefix.name == "G(a -> X b) (LTLf)"


def test_ltlf_refuses_eos_anchor_and_regexes() -> None:
    with pytest.raises(ConfigError, match="first position"):
        resolve("G a", SIGMA, logic="ltlf", at="eos")
    with pytest.raises(ConfigError, match="--logic ltlf applies to formulas"):
        resolve("re:a*", SIGMA, logic="ltlf")
    with pytest.raises(ConfigError, match="logic must be"):
        resolve("G a", SIGMA, logic="ltl2")


def test_at_start_warns_where_it_differs_from_ltlf() -> None:
    with pytest.warns(ExpressivityWarning, match=r"accepts a, which LTLf rejects"):
        resolve("G(a -> X b)", SIGMA, at="start")
    with warnings.catch_warnings():  # X(a & !eos) at start means what LTLf's X a means
        warnings.simplefilter("error")
        resolve("X(a & !eos)", SIGMA, at="start")


def test_catalogue_entries_may_be_ltlf(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from expressivity.catalogue import load_file
    from expressivity.errors import CatalogueError

    entry = tmp_path / "resp.toml"
    entry.write_text('name = "RESPONSE"\nalphabet = ["a", "b", "c"]\n'
                     'formula = "G(a -> X b)"\nlogic = "ltlf"\n')
    lang = load_file(entry)
    assert lang.logic == "ltlf" and lang.evaluate_at == "start"
    assert lang.dfa() == ltlf_dfa("G(a -> X b)")
    # a regex beside an LTLf formula is checked against the LTLf reading
    entry.write_text('name = "RESPONSE"\nalphabet = ["a", "b", "c"]\nformula = "G(a -> X b)"\n'
                     'logic = "ltlf"\nregex = "(b | c | a b)*"\n')
    assert load_file(entry).dfa() == ltlf_dfa("G(a -> X b)")
    entry.write_text('name = "RESPONSE"\nalphabet = ["a", "b", "c"]\nformula = "G(a -> X b)"\n'
                     'logic = "ltlf"\nregex = "(b | c | a b?)*"\n')
    with pytest.raises(CatalogueError, match=r"define different languages.*'a'"):
        load_file(entry)
    entry.write_text('name = "R"\nalphabet = ["a"]\nformula = "F P a"\nlogic = "ltlf"\n')
    with pytest.raises(CatalogueError, match="the LTLf dialect has no 'P'"):
        load_file(entry)
    entry.write_text('name = "R"\nalphabet = ["a"]\nformula = "F a"\nlogic = "ltlf"\n'
                     'evaluate_at = "eos"\n')
    with pytest.raises(CatalogueError, match="drop evaluate_at"):
        load_file(entry)
    entry.write_text('name = "R"\nalphabet = ["a"]\nformula = "F a"\nlogic = "LTLf"\n')
    with pytest.raises(CatalogueError, match="logic must be"):
        load_file(entry)


def test_cli_commands_take_logic(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from expressivity.cli import main

    assert main(["classify", "F(a & X F b)", "-a", "a,b,c", "--logic", "ltlf"]) == 0
    out = capsys.readouterr().out
    assert "(LTLf)" in out
    out_dir = tmp_path / "data"
    assert main(["sample", "G(a -> X b)", "--alphabet", "a,b,c", "--logic", "ltlf",
                 "--profile", "tiny", "--split", "train", "--out", str(out_dir), "--format", "txt",
                 "-q"]) == 0
    from expressivity.logic.semantics import ltlf_accepts

    formula = parse("G(a -> X b)")
    lines = [ln for f in out_dir.rglob("*.txt") for ln in f.read_text().splitlines() if ln]
    assert lines
    for line in lines:
        word, _, label = line.rpartition("\t")
        assert ltlf_accepts(formula, tuple(word.split())) == (label == "1"), line
    assert main(["compile", "F(a & Y b)", "-a", "a,b,c", "--logic", "ltlf"]) == 2
    err = capsys.readouterr().err
    assert "error: the LTLf dialect has no 'Y'" in err and "^" in err
