"""The evaluation anchor: --at eos (the papers') or --at start (LTLf's position 1)."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings

from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula
from expressivity.automata.constant import constant_language
from expressivity.catalogue import load_file
from expressivity.cli import main
from expressivity.errors import CatalogueError, ConfigError, ExpressivityWarning
from expressivity.logic.anchor import anchored
from expressivity.logic.parser import parse
from expressivity.logic.semantics import holds
from expressivity.resolve import resolve
from tests.logic.strategies import formulas

SIGMA = Alphabet.parse("a,b")


def _words(max_len: int):  # type: ignore[no-untyped-def]
    for n in range(max_len + 1):
        yield from itertools.product(SIGMA.symbols, repeat=n)


@settings(max_examples=60)
@given(formulas(("a", "b"), max_depth=2, max_height=3))
def test_start_anchor_is_the_truth_at_position_one(formula) -> None:  # type: ignore[no-untyped-def]
    dfa = compile_formula(anchored(formula, "start"), SIGMA)
    for w in _words(5):
        assert dfa.accepts(w) == holds(formula, w, 1), (formula, w)


def test_constant_languages_are_named() -> None:
    def const(text: str, at: str = "eos") -> str | None:
        return constant_language(compile_formula(anchored(parse(text, SIGMA), at), SIGMA))

    assert (const("F a"), const("G a"), const("false"), const("start")) == ("∅", "Σ*", "∅", "{ε}")
    assert const("Y true") == "Σ⁺" and const("P a") is None and const("F a", "start") is None


def test_future_formula_at_eos_warns_and_at_start_warns_it_is_not_ltlf() -> None:
    with pytest.warns(ExpressivityWarning, match=r"constant language ∅.*--at start"):
        resolve("a U b", "a,b")
    # --at start is not LTLf: the strict U misses a b at position 1 (issue 29)
    with pytest.warns(ExpressivityWarning, match=r"not LTLf: it rejects b, which LTLf accepts"):
        source = resolve("a U b", "a,b", at="start")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        resolve("P a", "a,b")
    assert source.at == "start" and source.dfa.accepts(("a", "b")) and not source.dfa.accepts(())
    with pytest.warns(ExpressivityWarning, match=r"past operators see nothing"):
        resolve("P a", "a,b", at="start")
    with pytest.raises(ConfigError, match="applies to formulas"):
        resolve("re:a b", "a,b", at="start")


def test_catalogue_entries_choose_their_anchor(tmp_path: Path) -> None:
    entry = tmp_path / "spec.toml"
    entry.write_text('name = "SPEC"\nalphabet = ["a", "b"]\nformula = "a & X b"\n'
                     'evaluate_at = "start"\n')
    lang = load_file(entry)
    assert lang.evaluate_at == "start"
    assert all(lang.dfa().accepts(w) == (w[:2] == ("a", "b")) for w in _words(5))
    entry.write_text('name = "SPEC"\nalphabet = ["a"]\nformula = "X a"\nevaluate_at = "end"\n')
    with pytest.raises(CatalogueError, match=r"spec\.toml:4:15: evaluate_at must be"):
        load_file(entry)


def test_cli_anchor(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["classify", "F a", "-a", "a,b"]) == 0
    err = capsys.readouterr().err
    assert "warning: F a evaluated at eos denotes the constant language ∅" in err
    assert main(["compile", "F a", "-a", "a,b", "--at", "start"]) == 0
    captured = capsys.readouterr()
    assert "warning: --at start reads F a at position 1" in captured.err
    assert "use --logic ltlf" in captured.err and "3 states" in captured.out
    assert main(["compile", "F a", "-a", "a,b", "--logic", "ltlf"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "formula F a (LTLf)" in captured.out
    assert main(["formula", "a & F b", "-a", "a,b", "--word", "ab", "--at", "start"]) == 0
    assert "in L(φ) (evaluated at position 1)" in capsys.readouterr().out
