"""Unmasked-encoder constructions (docs/theory.md §13): exact on every short word and on long
random words, at the EOS, CLS and mean readouts; languages outside the class are refused."""

from __future__ import annotations

import numpy as np
import pytest

from expressivity.alphabet import Alphabet
from expressivity.automata.regex import compile_regex
from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.extraction.agreement import check_agreement
from expressivity.layouts import KINDS
from expressivity.models.construct.encoder import construct_encoder, presence_formula

pytestmark = pytest.mark.skipif(not {"F", "W"} <= set(KINDS),
                                reason="the encoder atoms F and W are not registered")

ABC = Alphabet(("a", "b", "c"))
ANY = "(a|b|c)*"


def _presence(rng: np.random.Generator):
    atoms = [compile_regex(f"{ANY}{x}{ANY}", ABC) for x in "abc"]
    out = atoms[int(rng.integers(3))]
    for _ in range(2):
        a = atoms[int(rng.integers(3))]
        a = a if rng.random() < 0.5 else ~a
        out = out | a if rng.random() < 0.5 else out & a
    return out if rng.random() < 0.5 else ~out


@pytest.mark.parametrize("readout", ["eos", "cls", "mean"])
def test_presence_languages_are_constructed_exactly(readout):
    rng = np.random.default_rng({"eos": 0, "cls": 1, "mean": 2}[readout])
    for i in range(4):
        dfa = _presence(rng)
        cm = construct_encoder(dfa, "F", readout)
        assert cm.model.config.layout == "F" and cm.model.config.readout == readout
        result = check_agreement(cm.model, dfa, up_to=6, n_random=4, max_length=500, seed=i)
        assert result.agrees, (readout, presence_formula(dfa), result.first)


@pytest.mark.parametrize(("readout", "shape"), [("cls", "{x}" + ANY), ("eos", ANY + "{x}")])
def test_first_and_last_symbol_languages_with_unit_windows(readout, shape):
    """W1@cls reads w1, W1@eos reads w_N (reverse definite / definite of degree 1)."""
    rng = np.random.default_rng(5)
    atoms = [compile_regex(shape.format(x=x), ABC) for x in "abc"]
    for i in range(4):
        dfa = atoms[int(rng.integers(3))] | atoms[int(rng.integers(3))]
        dfa = dfa if i % 2 else ~dfa
        cm = construct_encoder(dfa, "W1", readout)
        result = check_agreement(cm.model, dfa, up_to=6, n_random=4, max_length=500, seed=i)
        assert result.agrees, (readout, presence_formula(dfa, "W1", readout), result.first)


def test_outside_the_class_is_refused_with_the_witness():
    with pytest.raises(UnsupportedFragmentError, match="only which letters occur"):
        construct_encoder(compile_regex(f"a{ANY}", ABC))
    with pytest.raises(UnsupportedFragmentError, match="xx = x fails"):
        construct_encoder(compile_regex(f"{ANY}a{ANY}a{ANY}", ABC))  # |w|_a >= 2: counts
    with pytest.raises(ConfigError, match="not constructed"):
        construct_encoder(compile_regex(f"{ANY}a{ANY}", ABC), "F", "last")
    with pytest.raises(UnsupportedFragmentError, match="degree 2"):
        construct_encoder(compile_regex(f"ab{ANY}", ABC), "W1", "cls")
    with pytest.raises(UnsupportedFragmentError, match="not fixed by any bounded"):
        construct_encoder(compile_regex(f"{ANY}a", ABC), "W1", "cls")
