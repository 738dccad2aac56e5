"""Every encoder family × readout (issue 32, "done when"): random languages of the class proved
for it never get "no" from `classify_encoder` (and get "yes" where a proof applies), and every
certificate on random DFAs re-checks on the model's masks and on the contract's raw masks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.algebra.encoders import family_pair
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.regex import compile_regex
from expressivity.models.encoder_classify import (
    EncoderAnswer,
    check_certificate,
    classify_encoder,
    encoder_layout,
)
from expressivity.models.encoder_types import agree_after
from tests.algebra.helpers import ABC, random_combination, random_dfa
from tests.models.encoder_masks import layout_masks as contract_masks

ANY = "(a|b|c)*"
PRESENCE = [compile_regex(f"{ANY}{s}{ANY}", ABC) for s in "abc"]  # alphabet testable
PREFIXES = [compile_regex("".join(u) + ANY, ABC)  # reverse definite
            for n in (1, 2) for u in itertools.product("abc", repeat=n)]
SUFFIXES = [compile_regex(ANY + "".join(u), ABC)  # definite
            for n in (1, 2) for u in itertools.product("abc", repeat=n)]
LAST = [compile_regex(ANY + s, ABC) for s in "abc"]
PARITY_A = compile_regex("(b|c)*(a(b|c)*a(b|c)*)*", ABC)  # an even number of a: not LT

#: Every encoder preset family (`layouts.encoders.ENCODER_ARITY`), one spelling each.
FAMILIES = ["full", "window-1", "window-2", "longformer-enc-1", "longformer-enc-2-sep",
            "bigbird-enc-2-1-1", "strided-2", "fixed-2-1", "strided-enc-2", "fixed-enc-3-1",
            "swin-2", "swin-3"]
READOUTS = ("eos", "cls", "mean", "last")
_HUBS = {"eos": PRESENCE, "cls": PRESENCE, "mean": PRESENCE, "last": PRESENCE}
#: (family, readout) → the generators of the class docs/theory.md §13 proves the cell reads
#: ("yes" with a proof for every Boolean combination); any other cell reads the mean's class.
PROVED: dict[str, dict[str, list[DFA]]] = {
    "full": {"eos": PRESENCE, "cls": PRESENCE, "mean": PRESENCE, "last": PRESENCE + LAST},
    "window-1": {"cls": PREFIXES, "eos": SUFFIXES, "last": SUFFIXES, "mean": PRESENCE},
    "longformer-enc-1": _HUBS,  # CLS reads every token, then every token reads CLS
    "longformer-enc-2-sep": _HUBS,
}


def _classes(family: str, readout: str) -> list[DFA]:
    # mean pooling reads the set of tokens at depth 0 under any masks (proof (a) of §13)
    return PROVED.get(family, {}).get(readout, PRESENCE if readout == "mean" else [])


def _recheck(dfa: DFA, answer: EncoderAnswer) -> None:
    """A "no" holds on the model's masks (`check_certificate`) and, for unseeded layouts, on
    the contract's masks written from issue 32's table (`tests.models.encoder_masks`)."""
    check_certificate(dfa, answer, depths=(1, 2, 3))
    v = answer.verdict
    if v.answer != "no" or any(p.seed for row in answer.layout.layers for p in row):
        return  # random blocks: their draw is the model's own (checked above)
    whole = encoder_layout(answer.layout)
    masks = contract_masks(whole)
    for d in (v.depth,) if v.depth is not None else (1, 2, 3):
        u, w = family_pair(v, dfa, whole, d) if v.family is not None else v.pair
        assert u is not None and w is not None
        assert agree_after(u, w, masks, d, v.readout), (answer.spelling, d, u, w)


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_languages_of_the_proved_class_never_get_no(family: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for readout in READOUTS:
        atoms = _classes(family, readout)
        if not atoms:
            continue
        dfa = random_combination(rng, atoms)
        answer = classify_encoder(dfa, f"{family}@{readout}", n_heads=4)
        assert answer.verdict.answer == "yes", (family, readout, answer.verdict)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_certificate_on_random_dfas_rechecks_on_the_raw_masks(family: str) -> None:
    rng = np.random.default_rng(sum(map(ord, family)))
    answers = []
    for readout in READOUTS:
        drawn = random_dfa(rng, ABC if rng.random() < 0.5 else Alphabet(("a", "b")), max_states=3)
        for dfa, depth in itertools.product((drawn, PARITY_A), (None, 2)):
            answers.append(classify_encoder(dfa, f"{family}@{readout}", n_heads=4, depth=depth))
            _recheck(dfa, answers[-1])
    assert any(a.verdict.answer == "no" for a in answers), "no certificate was exercised"
