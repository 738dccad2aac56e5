"""Constructions with periodic RoPE: LTL[P,MOD] (global+periodic) and LTL[P,Y,MOD] formulas."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings

from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula
from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.extraction.agreement import (
    all_words,
    check_agreement,
    precision_report,
)
from expressivity.logic.parser import parse
from expressivity.logic.syntax import Formula
from expressivity.logic.temporal import Past, Yesterday
from expressivity.models import Recognizer
from expressivity.models.construct import construct, construct_language, load_constructed
from expressivity.models.tokens import encode_batch
from tests.logic.strategies import FRAGMENTS, formulas

AB = Alphabet(("a", "b"))


def _agrees(formula: Formula | str, sigma: Alphabet, layout: str | None, *, up_to: int = 8,
            n_random: int = 4, max_length: int = 500) -> None:
    """Every word up to length ``up_to`` and random longer words, in float32."""
    phi = parse(formula, sigma) if isinstance(formula, str) else formula
    cm = construct(phi, sigma, layout)
    dfa = compile_formula(phi, sigma)
    result = check_agreement(cm.model, dfa, up_to=up_to, n_random=n_random,
                             max_length=max_length, seed=hash(str(phi)) % 2**32)
    assert result.agrees, f"{phi} ({layout}): disagrees on {result.first}\n{cm.summary()}"


@pytest.mark.parametrize(
    ("text", "sigma", "layout"),
    [
        ("mod(2,1)", "a", "global+periodic"),  # even length
        ("mod(2,1)", "a,b", "global+periodic"),
        ("H a & mod(2,1)", "a,b", "global+periodic"),  # (aa)*
        ("mod(2,1) & !P(mod(2,1) & !a) & !P(mod(2,0) & !b)", "a,b", "global+periodic"),  # (ab)*
        ("mod(3,0) | P(a & mod(5,2))", "a,b", "global+periodic"),
        ("P(a & mod(4,3) & !P(b & mod(2,0))) & !mod(3,1)", "a,b", "global+periodic"),
        ("mod(1,0) & P a", "a,b", "global+periodic"),
        ("mod(3,2) & Y a", "a,b", "hybrid-1+periodic"),
        ("Y a & mod(2,0)", "a,b", "hybrid-2+periodic"),  # Y by Y<=2 and the phase
        ("Y^2 (a & P b) | mod(3,1)", "a,b", "hybrid-2+periodic"),
        ("Y a", "a,b", "hybrid-3+periodic"),
        ("P(b & Y a) & mod(2,0)", "a,b", None),  # the default layout adds periodic RoPE
    ],
)
def test_periodic_examples_match_the_dfa(text: str, sigma: str, layout: str | None) -> None:
    _agrees(text, Alphabet.parse(sigma), layout)


@pytest.mark.parametrize("name", ["EVEN-LENGTH", "EVEN-a-2", "DYCK-(1,1)-3"])
def test_catalogue_mod_languages_are_constructed(name: str) -> None:
    cm, source = construct_language(name)
    assert source.formula is not None and "mod(" in str(source.formula)
    result = check_agreement(cm.model, source.dfa, up_to=8, n_random=8, max_length=500)
    assert result.agrees, f"{name}: disagrees on {result.first}"


def test_the_model_reads_positions_from_its_periodic_encoding() -> None:
    """The config says periodic RoPE with the formula's moduli; the same weights with NoPE
    (no rotation) lose the residue and disagree with the DFA: no hidden side channel."""
    phi = parse("mod(3,0) | P(a & mod(2,1))", AB)
    cm = construct(phi, AB, "global+periodic")
    config = cm.config
    assert (config.positional, config.periods, config.rope_unrotated) == (
        "periodic-rope", (2, 3), 1)
    assert config.head_width == 5
    dfa = compile_formula(phi, AB)
    assert check_agreement(cm.model, dfa, up_to=8, n_random=0).agrees
    nope = Recognizer(config.replace(positional="none", periods=(), rope_unrotated=0), 2)
    nope.load_state_dict(cm.model.state_dict())
    assert not check_agreement(nope.eval(), dfa, up_to=8, n_random=0).agrees


def test_period_heads_read_the_residue_exactly() -> None:
    """The coordinate of modread(m,r) is [n ≡ r (mod m) or n = 1] at every token, 0 at BOS."""
    for m in (2, 3, 5):
        for r in range(m):
            text = f"P(a & mod({m},{r}))"
            cm = construct(text, AB, "global+periodic")
            words = [np.zeros(n, dtype=np.int64) for n in (0, 7, 3 * m + 4)]
            tokens, lengths = encode_batch(words, 2)
            with torch.no_grad():
                hidden = cm.model.forward_hidden(tokens, lengths)[-1]
            got = hidden[-1, :, cm.coordinate(f"modread({m},{r})")].numpy()
            n = np.arange(len(got))
            want = ((n % m == r) | (n == 1)) & (n > 0)
            assert np.array_equal(got, want.astype(np.float32)), (m, r, got)


def test_periodic_models_keep_full_agreement_in_every_dtype() -> None:
    for name in ("EVEN-LENGTH", "DYCK-(1,1)-3"):
        cm, source = construct_language(name)
        report = precision_report(cm.model, source.dfa, max_length=120, per_length=4)
        assert report == {"float32": 120, "bfloat16": 120, "float16": 120}, (name, report)


def test_saved_periodic_models_load_back_identically(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cm = construct("H a & mod(2,1)", AB, "global+periodic")
    loaded = load_constructed(cm.save(tmp_path / "even.pt"))
    assert loaded.config == cm.config
    codes, lengths = all_words(2, 6)
    tokens, ln = encode_batch([codes[i, : lengths[i]] for i in range(len(lengths))], 2)
    with torch.no_grad():
        assert torch.equal(cm.model(tokens, ln), loaded(tokens, ln))


@pytest.mark.parametrize(
    ("text", "layout", "error", "match"),
    [
        ("mod(2,1)", "global", UnsupportedFragmentError, "global\\+periodic"),
        ("mod(2,1)", "hybrid-2", UnsupportedFragmentError, "hybrid-2\\+periodic"),
        ("mod(2,1)", "local-2", UnsupportedFragmentError, "does not have"),
        ("mod(2,1)", "local-2+periodic", ConfigError, "global\\+periodic or hybrid-k"),
        ("mod(2,1)", "block-2+periodic", ConfigError, "global\\+periodic or hybrid-k"),
        ("Y a & mod(2,0)", "global+periodic", UnsupportedFragmentError, "needs Y"),
        ("a S b", "global+periodic", UnsupportedFragmentError, "needs S"),
        ("mod(2000,1)", "global+periodic", UnsupportedFragmentError, "never repeats"),
        ("P a", "bigbird-1-1-1", ConfigError, "dilated-k-d, block-b, global\\+periodic"),
    ],
)
def test_bad_periodic_requests_are_refused(
    text: str, layout: str, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        construct(text, AB, layout)


# ------------------------------------------------------------------ random formulas
# Each random formula is P φ or Y φ, so that it reads the word at all (letters are false at EOS).
@settings(max_examples=10)
@given(formulas(AB.symbols, FRAGMENTS["LTL[P,MOD]"], max_depth=2, max_height=4, max_mod=4))
def test_some_random_ltl_p_mod_formulas_match_the_dfa(formula: Formula) -> None:
    _agrees(Past(formula), AB, "global+periodic", up_to=7, n_random=2, max_length=200)


@settings(max_examples=6)
@given(formulas(AB.symbols, ("P", "H", "Y", "MOD"), max_depth=2, max_height=4, max_mod=3))
def test_some_random_ltl_p_y_mod_formulas_match_the_dfa(formula: Formula) -> None:
    _agrees(Yesterday(formula), AB, "hybrid-2+periodic", up_to=7, n_random=2, max_length=200)


@pytest.mark.slow
@settings(max_examples=100)
@given(formulas(AB.symbols, FRAGMENTS["LTL[P,MOD]"], max_depth=3, max_height=5, max_mod=5))
def test_random_ltl_p_mod_formulas_match_the_dfa(formula: Formula) -> None:
    _agrees(Past(formula), AB, "global+periodic")


@pytest.mark.slow
@settings(max_examples=100)
@given(formulas(AB.symbols, ("P", "H", "Y", "Y^k", "MOD"), max_depth=3, max_height=5))
def test_random_ltl_p_y_mod_formulas_match_the_dfa(formula: Formula) -> None:
    _agrees(Yesterday(formula), AB, "hybrid-2+periodic")
