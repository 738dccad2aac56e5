"""Constructions for dilated-k-d and block-b layouts: fixed examples, random formulas, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula
from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.extraction.agreement import balanced_words, check_agreement, compare
from expressivity.logic import syntax as ast
from expressivity.logic import temporal as tl
from expressivity.logic.parser import parse
from expressivity.logic.syntax import Formula
from expressivity.models.construct import construct
from expressivity.models.construct.nodes import phase, phase_at_least
from expressivity.models.tokens import encode_batch
from tests.logic.strategies import formulas

AB = Alphabet(("a", "b"))


def _agrees(formula: Formula | str, sigma: Alphabet, layout: str, *, up_to: int = 8,
            n_random: int = 4, max_length: int = 500) -> None:
    """Every word up to length ``up_to`` and random longer words, in float32."""
    phi = parse(formula, sigma) if isinstance(formula, str) else formula
    cm = construct(phi, sigma, layout)
    dfa = compile_formula(phi, sigma)
    result = check_agreement(cm.model, dfa, up_to=up_to, n_random=n_random,
                             max_length=max_length, seed=hash(str(phi)) % 2**32)
    assert result.agrees, f"{phi} ({layout}): disagrees on {result.first}\n{cm.summary()}"
    pattern = layout.split("-")[0][0].upper()
    assert {h.pattern[0] for h in cm.heads} <= {pattern}, cm.layout


@pytest.mark.parametrize(
    ("text", "layout"),
    [
        ("Y^2 a", "dilated-1-2"),
        ("Y^4 (a & !Y^2 b) | eos & b", "dilated-1-2"),
        ("Y^3 a & Y^6 b", "dilated-1-3"),
        ("Y^2 a | Y^4 a", "dilated-2-2"),
        ("(Y^4 b | (Y^2 b | Y^6 b)) & !(Y^2 a | Y^4 a | Y^6 a)", "dilated-3-2"),
        ("Y^2 true & !(Y^2 a | Y^4 a)", "dilated-2-2"),
        ("Y<=2 (a & !Y<=2 b) | start", "dilated-2-1"),
        ("Y a & !Y^2 b", "dilated-1-1"),
    ],
)
def test_dilated_examples_match_the_dfa(text: str, layout: str) -> None:
    _agrees(text, AB, layout)


def test_a_full_dilated_window_is_one_head() -> None:
    cm = construct("Y^4 a | Y^2 a | Y^6 a", AB, "dilated-3-2")
    assert (cm.n_layers, cm.n_active_heads, cm.layout) == (1, 1, "1xD3.2")
    assert cm.heads[0].computes == "D3.2 a"
    assert construct("Y^6 a", AB, "dilated-1-2").n_layers == 3  # Y^6 = (Y^2)^3: nested heads


@pytest.mark.parametrize(
    ("text", "sigma", "layout"),
    [
        ("mod(2,1) & !start", "a", "block-2"),  # (aa)+: N even and N >= 2
        ("mod(2,1) & !start", "a,b", "block-2"),
        ("mod(2,0) | start", "a,b", "block-2"),  # odd length, or ε
        ("mod(2,1) & !start & Y a", "a,b", "block-2"),
        ("(mod(2,1) & !start) -> Y b", "a,b", "block-2"),
        ("mod(3,2) & !Y start & Y^2 a & Y b", "a,b", "block-3"),
        ("mod(4,3) & Y^3 true & Y a & !Y^3 b", "a,b", "block-4"),
        ("mod(3,1) & !start & Y (a & !Y true)", "a,b", "block-3"),
        ("Y(a & mod(2,0)) & mod(2,1) & !start", "a,b", "block-2"),
    ],
)
def test_block_examples_match_the_dfa(text: str, sigma: str, layout: str) -> None:
    _agrees(text, Alphabet.parse(sigma), layout)


def test_block_heads_read_the_phase_exactly() -> None:
    """The coordinate of B^j ⊤ (j nested block heads) is [κ(n) ≥ j] at every token, 0 at BOS,
    with κ(n) = n − 1 for n < b and n mod b for n ≥ b."""
    for b in (2, 3, 4):
        cm = construct(phase(b, b - 1), AB, f"block-{b}")
        words = [np.zeros(n, dtype=np.int64) for n in range(0, 3 * b + 3)]
        tokens, lengths = encode_batch(words, 2)
        with torch.no_grad():
            hidden = cm.model.forward_hidden(tokens, lengths)[-1]
        n = np.arange(hidden.shape[1])
        kappa = np.where(n < b, n - 1, n % b)
        for j in range(1, b):
            got = hidden[-1, :, cm.coordinate(str(phase_at_least(b, j)))].numpy()
            want = (kappa >= j) & (n > 0)
            assert np.array_equal(got, want.astype(np.float32)), (b, j, got)


def test_block_models_agree_beyond_1024_tokens_with_the_banded_kernel() -> None:
    sigma = Alphabet(("a", "b"))
    phi = parse("mod(2,1) & !start & Y a", sigma)
    cm = construct(phi, sigma, "block-2")
    dfa = compile_formula(phi, sigma)
    codes, lengths = balanced_words(dfa, np.array([1101, 1500]), 2, np.random.default_rng(0))
    assert compare(cm.model, dfa, codes, lengths).agrees


@pytest.mark.parametrize(
    ("text", "sigma", "layout", "match"),
    [
        ("P a", "a,b", "dilated-2-2", "P a needs a global head"),
        ("H a", "a,b", "block-2", "H a needs a global head"),
        ("Y^2 a", "a,b", "dilated-2-2", "Y\\^2 a alone is not read by D2.2"),
        ("Y a", "a,b", "dilated-1-2", "Y a alone is not read by D1.2"),
        ("start", "a,b", "dilated-1-2", "positions 1 and 2 look alike"),
        ("mod(2,1)", "a", "block-2", "positions 1 and 2 look alike"),  # even length
        ("mod(3,1) & !start", "a,b", "block-2", "positions 2 and 4 look alike"),
        ("Y a", "a,b", "block-2", "block phase below i"),
        ("Y^2 a", "a,b", "block-2", "outside every block"),
        ("mod(4,0) & Y^3 true & Y a", "a,b", "block-4", "or Y\\^i is used where"),
        ("a S b", "a,b", "block-2", "needs a different head"),
    ],
)
def test_formulas_a_layout_cannot_read_are_refused(
    text: str, sigma: str, layout: str, match: str
) -> None:
    with pytest.raises(UnsupportedFragmentError, match=match):
        construct(text, sigma, layout)


@pytest.mark.parametrize("layout", ["dilated-0-2", "dilated-2-0", "block-1", "block-0"])
def test_degenerate_sparse_layouts_are_config_errors(layout: str) -> None:
    with pytest.raises(ConfigError, match="layout"):
        construct("a", AB, layout)


# ------------------------------------------------------------------ random formulas
def _windowed(f: Formula, k: int, d: int) -> Formula:
    """Every Y ψ of a random formula as the full dilated window ⋁_{j≤k} Y^{jd} ψ."""
    if not f.children:
        return f
    kids = [_windowed(c, k, d) for c in f.children]
    if isinstance(f, tl.Yesterday):
        return ast.disj(*(tl.Yesterday(kids[0], j * d) for j in range(1, k + 1)))
    return type(f)(*kids)


#: A position predicate readable by block-b heads: κ(n) ≥ 1 (n is not a block start).
_GUARD = {2: "mod(2,1) & !start", 3: "!(start | mod(3,0) & Y^2 true)"}


def _guarded(f: Formula, b: int) -> Formula:
    """Every Y ψ guarded by κ(n) ≥ 1, and ``start`` replaced by that position predicate."""
    guard = parse(_GUARD[b], AB)
    if isinstance(f, ast.Start):
        return guard
    if not f.children:
        return f
    kids = [_guarded(c, b) for c in f.children]
    if isinstance(f, tl.Yesterday):
        return ast.And(guard, tl.Yesterday(kids[0]))
    return type(f)(*kids)


_SHAPES = st.sampled_from([(1, 2), (2, 2), (2, 3), (3, 1)])
_PLAIN = formulas(AB.symbols, ("Y",), max_depth=2, max_height=4,
                  constants=("true", "false", "eos"))
_WITH_START = formulas(AB.symbols, ("Y",), max_depth=2, max_height=4)


# Each random formula is Y φ (as a window / guarded), so that it reads the word at all.
@settings(max_examples=10)
@given(_PLAIN, _SHAPES)
def test_some_random_dilated_formulas_match_the_dfa(f: Formula, shape: tuple[int, int]) -> None:
    k, d = shape
    _agrees(_windowed(tl.Yesterday(f), k, d), AB, f"dilated-{k}-{d}", up_to=7, n_random=2,
            max_length=200)


@settings(max_examples=10)
@given(_WITH_START, st.sampled_from([2, 3]))
def test_some_random_block_formulas_match_the_dfa(f: Formula, b: int) -> None:
    _agrees(_guarded(tl.Yesterday(f), b), AB, f"block-{b}", up_to=7, n_random=2,
            max_length=200)


@pytest.mark.slow
@settings(max_examples=100)
@given(_PLAIN, _SHAPES)
def test_random_dilated_formulas_match_the_dfa(f: Formula, shape: tuple[int, int]) -> None:
    k, d = shape
    _agrees(_windowed(tl.Yesterday(f), k, d), AB, f"dilated-{k}-{d}")


@pytest.mark.slow
@settings(max_examples=100)
@given(_WITH_START, st.sampled_from([2, 3]))
def test_random_block_formulas_match_the_dfa(f: Formula, b: int) -> None:
    _agrees(_guarded(tl.Yesterday(f), b), AB, f"block-{b}")


def test_the_cli_builds_and_checks_sparse_and_periodic_layouts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from expressivity.cli import main

    for text, layout, heads in [("Y^2 a | Y^4 a", "dilated-2-2", "1xD2.2"),
                                ("mod(2,1) & !start & Y a", "block-2", "1xB2;1xB2"),
                                ("mod(2,1) & P a", "global+periodic", "periodic-rope with "
                                 "periods 2")]:
        assert main(["construct", text, "-a", "a,b", "--layout", layout, "-q",
                     "--check-up-to", "6", "--random", "2", "--max-length", "60"]) == 0
        out = capsys.readouterr().out
        assert heads in out and "agrees with the DFA" in out, out
    assert main(["construct", "mod(2,1)", "-a", "a", "--layout", "block-2"]) == 2
    assert "positions 1 and 2 look alike" in capsys.readouterr().err
