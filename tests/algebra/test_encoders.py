"""Encoder verdicts (docs/theory.md §13): sound on random languages of each pattern's class,
every certificate re-checked on the raw masks, every proof checked on short words."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from expressivity.algebra.commutative import is_alphabet_testable
from expressivity.algebra.encoders import EncoderLayout, encoder_verdict, family_pair, head_kind
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.regex import compile_regex
from expressivity.models.encoder_types import MaskTypes, agree_after
from expressivity.models.layer_types import short_words
from tests.algebra.helpers import ABC, random_combination, random_dfa
from tests.models.encoder_masks import encoder_layout, layout_masks

READOUTS = ("eos", "cls", "mean", "last")
ANY = "(a|b|c)*"


def _types_of(readout):
    return lambda layout: MaskTypes(layout_masks(layout), readout, len(layout.layers))


def _verdict(dfa: DFA, layout: EncoderLayout, readout: str, depth=None):
    words = short_words(dfa.alphabet.symbols, 300)
    return encoder_verdict(dfa, layout, readout, _types_of(readout), depth=depth, search=words)


def _check(dfa: DFA, layout: EncoderLayout, readout: str, verdict) -> None:
    """A "no" re-checks on the masks (at 1..3 layers, or at its depth); a "yes" at depth d
    has no conflicting pair among the short words after d layers of the masks."""
    masks = layout_masks(layout)
    if verdict.answer == "no":
        depths = [verdict.depth] if verdict.depth is not None else [1, 2, 3, 6]
        for d in depths:
            u, v = (family_pair(verdict, dfa, layout, d) if verdict.family is not None
                    else verdict.pair)
            assert dfa.accepts(u) and not dfa.accepts(v)
            assert agree_after(u, v, masks, d, readout), (layout, readout, d, u, v)
    if verdict.answer == "yes":
        d = verdict.min_depth
        types = MaskTypes(masks, readout, len(layout.layers))
        seen: dict = {}
        for w in short_words(dfa.alphabet.symbols, 400):
            assert seen.setdefault(types.readout(w, d), dfa.accepts(w)) == dfa.accepts(w), w


PRESENCE = [compile_regex(f"{ANY}{s}{ANY}", ABC) for s in "abc"]
PREFIXES = [compile_regex("".join(u) + ANY, ABC)
            for n in (1, 2) for u in itertools.product("abc", repeat=n)]
SUFFIXES = [compile_regex(ANY + "".join(u), ABC)
            for n in (1, 2) for u in itertools.product("abc", repeat=n)]
LAST = [compile_regex(ANY + s, ABC) for s in "abc"]


@pytest.mark.parametrize(
    ("layout", "readouts", "atoms", "proved"),
    [
        ("F", READOUTS, PRESENCE, True),
        ("F", ("last",), PRESENCE + LAST, True),
        ("W1", ("cls",), PREFIXES, True),
        ("W1", ("eos", "last"), SUFFIXES, True),
        ("W1+CLS", ("cls", "mean"), PRESENCE, True),
        # a prefix and a letter's presence together: in the class, but no proof method combines
        # the window and the full head (never "no", "yes" not required)
        ("W1,F", ("cls",), PREFIXES + PRESENCE[:1], False),
    ],
)
def test_languages_of_each_class_get_yes(layout, readouts, atoms, proved):
    rng = np.random.default_rng(len(layout) + len(readouts))
    lay = encoder_layout(layout)
    for _ in range(6):
        d = random_combination(rng, atoms)
        for readout in readouts:
            verdict = _verdict(d, lay, readout)
            assert verdict.answer != "no", (layout, readout, verdict)
            if proved:
                assert verdict.answer == "yes", (layout, readout, verdict)
            _check(d, lay, readout, verdict)


LAYOUTS = ["F", "W1", "W2", "WD1.2", "W1+CLS", "W1+CLS+SEP", "W1,F", "W1+AT2", "BW2",
           "BW2+BG2.1", "SW2;SWS2", "ST2", "STE2", "SFE2.1", "SF2.1", "F;W1"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_verdict_on_random_dfas_rechecks_on_the_masks(layout):
    rng = np.random.default_rng(sum(map(ord, layout)))
    lay = encoder_layout(layout)
    for _ in range(3):
        d = random_dfa(rng, ABC if rng.random() < 0.5 else Alphabet(("a", "b")), max_states=4)
        for readout in READOUTS:
            verdict = _verdict(d, lay, readout)
            _check(d, lay, readout, verdict)
            at = _verdict(d, lay, readout, depth=2)
            _check(d, lay, readout, at)
            if verdict.answer == "no":
                assert at.answer == "no"


@pytest.mark.parametrize(
    ("regex", "layout", "readout", "answer"),
    [
        (f"a{ANY}", "W1", "cls", "yes"),  # prefix: reverse definite
        (f"{ANY}a", "W1", "eos", "yes"),  # suffix: definite
        (f"{ANY}a", "W1", "last", "yes"),
        (f"{ANY}a", "W1", "cls", "no"),  # not reverse definite
        (f"a{ANY}", "W1", "eos", "no"),
        (f"a{ANY}", "W2", "cls", "no"),  # ab / ba: W2 swaps positions 1 and 2 at every depth
        (f"a{ANY}", "F", "eos", "no"),  # ab / ba: the same letters
        (f"{ANY}a{ANY}", "F", "eos", "yes"),
        (f"{ANY}a{ANY}a{ANY}", "F", "mean", "no"),  # |w|_a ≥ 2: sets, not counts (model A)
        (f"{ANY}ab{ANY}", "W1+CLS", "cls", "no"),  # the mirror pair c^k ab c^k / c^k ba c^k
        (f"{ANY}a{ANY}", "W1+CLS", "eos", "yes"),
        ("(b|c)*(a(b|c)*a(b|c)*)*", "W1+CLS", "cls", "no"),  # PARITY of a: not LT
    ],
)
def test_landmarks(regex, layout, readout, answer):
    d = compile_regex(regex, ABC)
    lay = encoder_layout(layout)
    verdict = _verdict(d, lay, readout)
    assert verdict.answer == answer, verdict
    _check(d, lay, readout, verdict)


def test_full_encoders_read_exactly_the_alphabet():
    rng = np.random.default_rng(3)
    full = encoder_layout("F")
    for _ in range(20):
        d = random_dfa(rng, ABC, max_states=3)
        yes = _verdict(d, full, "eos").answer == "yes"
        assert yes == (is_alphabet_testable(d) is True)


def test_prefix_locality_of_windows_on_long_words():
    """After d layers of W/WD heads the CLS type depends only on the first d·ρ symbols."""
    rng = np.random.default_rng(0)
    for text in ("W1", "W2", "WD1.2"):
        lay = encoder_layout(text)
        types = MaskTypes(layout_masks(lay), "cls", 1)
        for d in (1, 2):
            radius = lay.radius(d)
            for _ in range(5):
                head = tuple(rng.choice(list("ab"), size=radius))
                u = head + tuple(rng.choice(list("ab"), size=int(rng.integers(0, 8))))
                assert types.readout(u, d) == types.readout(head, d)


def test_head_kinds():
    assert [head_kind(h) for h in encoder_layout("F,W1,W1+CLS,BW2").layers[0]] == [
        "full", "window", "hub", "other"]


def test_unit_windows_read_every_reverse_definite_language():
    """Prefixes of length 3 are beyond the exact table's quick range at small depth, but W1
    heads in every layer read the first k symbols after 2k layers (§13): "yes" at 2k."""
    d = compile_regex(f"(abc|cba|bb){ANY}", ABC)
    verdict = _verdict(d, encoder_layout("W1"), "cls")
    assert verdict.answer == "yes" and verdict.min_depth <= 6
    _check(d, encoder_layout("W1"), "cls", verdict)
    e = compile_regex(f"{ANY}(abc|cba|bb)", ABC)
    for readout in ("eos", "last"):
        verdict = _verdict(e, encoder_layout("W1,W2"), readout)
        assert verdict.answer == "yes", verdict
        _check(e, encoder_layout("W1,W2"), readout, verdict)


def test_degrees():
    from expressivity.algebra.encoder_families import definite_degree, reverse_definite_degree

    assert reverse_definite_degree(compile_regex(f"ab{ANY}", ABC)) == 2
    assert reverse_definite_degree(compile_regex(f"{ANY}a", ABC)) is None
    assert definite_degree(compile_regex(f"{ANY}ab", ABC)) == 2
    assert definite_degree(compile_regex(f"a{ANY}", ABC)) is None
    assert definite_degree(compile_regex(ANY, ABC)) == 0


@pytest.mark.parametrize("text", ["W1", "WD1.1"])
def test_unit_window_types_determine_the_first_and_last_k_symbols(text):
    """The lemma behind "yes at 2k": the CLS type after 2k layers determines w[:k] (and the
    EOS type w[-k:], the last-symbol type after 2k + 1 layers too)."""
    lay = encoder_layout(text)
    for readout, depth_of, part in (("cls", lambda k: 2 * k, lambda w, k: w[:k]),
                                    ("eos", lambda k: 2 * k, lambda w, k: w[-k:]),
                                    ("last", lambda k: 2 * k + 1, lambda w, k: w[-k:])):
        types = MaskTypes(layout_masks(lay), readout, 1)
        for k in (1, 2, 3):
            seen: dict = {}
            for n in range(2 * k + 4):
                for w in itertools.product("ab", repeat=n):
                    got = seen.setdefault(types.readout(w, depth_of(k)), part(w, k))
                    assert got == part(w, k), (readout, k, w)
