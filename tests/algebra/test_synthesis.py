"""Formula synthesis: fragment, equivalence (checked again here), readable output."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings

from expressivity.algebra.synthesis import (
    NotInFragmentError,
    synthesize_past,
    synthesize_yesterday,
)
from expressivity.automata.compile import compile_formula
from expressivity.catalogue import load_catalogue
from expressivity.logic.printer import to_text
from expressivity.logic.semantics import accepts
from expressivity.logic.temporal import Historically, Past, Yesterday
from tests.algebra.helpers import ABC, dfa
from tests.logic.strategies import formulas


def _temporal_nodes(f):
    return [g for g in f.subformulas() if g.temporal]


def _same_on_short_words(f, d, max_len=5):
    for n in range(max_len + 1):
        for w in itertools.product(d.alphabet.symbols, repeat=n):
            assert accepts(f, w) == d.accepts(w), (to_text(f), w)


@settings(max_examples=40)
@given(formulas(("a", "b", "c"), ("P", "H"), max_depth=3, max_height=5))
def test_ltl_p_languages_get_an_ltl_p_formula(f):
    d = compile_formula(f, ABC)
    g = synthesize_past(d)
    assert all(isinstance(n, Past | Historically) for n in _temporal_nodes(g))
    _same_on_short_words(g, d, 4)


@settings(max_examples=40)
@given(formulas(("a", "b", "c"), ("Y", "Y^k"), max_depth=3, max_height=5))
def test_definite_languages_get_an_ltl_y_formula(f):
    d = compile_formula(f, ABC)
    g = synthesize_yesterday(d)
    assert all(isinstance(n, Yesterday) for n in _temporal_nodes(g))
    _same_on_short_words(g, d, 4)


def test_outside_the_fragment_raises_with_the_witness():
    suffix_a = dfa(ABC, [[1, 0, 0], [1, 0, 0]], [1])
    prefix_a = dfa(ABC, [[1, 2, 2], [1, 1, 1], [2, 2, 2]], [1])
    with pytest.raises(NotInFragmentError, match="not R-trivial"):
        synthesize_past(suffix_a)
    with pytest.raises(NotInFragmentError, match="not definite"):
        synthesize_yesterday(prefix_a)


@pytest.mark.parametrize(
    ("name", "synthesize", "expected"),
    [
        ("LT-1", synthesize_past, "P a"),
        ("PT-2", synthesize_past, "P(P a & b)"),
        ("FIRST", synthesize_past, "P(b & start)"),
        ("TOMITA-1", synthesize_past, "!P a"),
        ("LAST", synthesize_yesterday, "Y b"),
        ("SUFFIX-ab", synthesize_yesterday, "Y b & Y^2 a"),
    ],
)
def test_catalogue_formulas_are_simple(name, synthesize, expected):
    assert to_text(synthesize(load_catalogue()[name].dfa())) == expected


def test_every_r_trivial_catalogue_entry_is_synthesized():
    for lang in load_catalogue().values():
        if lang.expected_classes.get("r_trivial"):
            g = synthesize_past(lang.dfa())  # verified against the DFA inside
            assert _temporal_nodes(g)
