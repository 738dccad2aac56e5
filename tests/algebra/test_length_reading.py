"""Length languages read at EOS by strided and Swin heads (docs/theory.md §15, Prop. 15.6):
the indicator against brute force, the features against the masks, every "yes" against the
types of all short words."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from expressivity.algebra.encoders import encoder_verdict
from expressivity.algebra.length_reading import (
    MAX_SUBSETS,
    eos_features,
    length_indicator,
    length_proof,
)
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.models.encoder_classify import layout_masks as model_masks
from expressivity.models.encoder_types import MaskTypes
from expressivity.models.layer_types import short_words
from expressivity.models.layouts import parse_layout
from tests.algebra.helpers import dfas
from tests.models.encoder_masks import encoder_layout, layout_masks

AB = Alphabet(("a", "b"))
A = Alphabet(("a",))


def _length_dfa(alphabet: Alphabet, modulus: int, residues: frozenset[int],
                short: frozenset[int] = frozenset()) -> DFA:
    """Words whose length is in ``short`` or ≡ some residue mod ``modulus`` (beyond ``short``'s
    lengths): a length language with a threshold and a period."""
    t = max(short, default=-1) + 1
    n = t + modulus
    table = [[min(q + 1, n - 1) if q + 1 < n else t] * len(alphabet) for q in range(n)]
    accepting = [q in short if q < t else (q - t + t) % modulus in residues for q in range(n)]
    for q in range(t, n):  # the cycle: states t..n-1 stand for lengths ≡ q (mod modulus)
        table[q] = [t + (q - t + 1) % modulus] * len(alphabet)
    return DFA(alphabet, np.array(table), np.array(accepting), 0)


def _chi(dfa: DFA, n: int) -> bool | None:
    """Brute force: the membership shared by every word of length n, None when they differ."""
    seen = {dfa.accepts(w) for w in itertools.product(dfa.alphabet.symbols, repeat=n)}
    return seen.pop() if len(seen) == 1 else None


@settings(max_examples=150, deadline=None)
@given(dfas(AB, max_states=4))
def test_the_indicator_is_brute_force_on_random_dfas(d: DFA) -> None:
    indicator = length_indicator(d)
    truth = [_chi(d, n) for n in range(9)]
    if indicator is None:  # some length has a member and a non-member (the sets never repeat
        assert None in [_chi(d, n) for n in range(2 ** d.n_states + 2)]  # sooner than 2^states)
        return
    start, period, values = indicator
    assert len(values) == start + period
    for n in range(9):
        chi = values[n] if n < len(values) else values[start + (n - start) % period]
        assert truth[n] == chi


@pytest.mark.parametrize(("modulus", "residues", "short"), [
    (2, {0}, set()), (2, {1}, {0}), (3, {0, 2}, set()), (4, {1}, {0, 2}), (1, {0}, {1}),
])
def test_the_indicator_of_built_length_languages(modulus: int, residues: set[int],
                                                 short: set[int]) -> None:
    d = _length_dfa(AB, modulus, frozenset(residues), frozenset(short))
    indicator = length_indicator(d)
    assert indicator is not None
    start, period, values = indicator
    assert modulus % period == 0
    for n in range(12):
        chi = values[n] if n < len(values) else values[start + (n - start) % period]
        assert chi == _chi(d, n)


def test_the_state_sets_are_bounded() -> None:
    assert MAX_SUBSETS >= 2 ** 10  # any DFA of 10 states repeats its length sets in time


@pytest.mark.parametrize("kind", ["ST", "SW"])
@pytest.mark.parametrize("param", [1, 2, 3, 4, 5])
def test_the_features_are_the_closed_forms_on_the_models_and_the_reference_masks(
        kind: str, param: int) -> None:
    reference = layout_masks(encoder_layout(f"{kind}{param}"))
    model = model_masks(parse_layout(f"{kind}{param}", 1, 1))
    for n in range(0, 40):
        if kind == "ST":
            expected = (n + 1 < param or (n + 1) % param == 0, n >= 1)
        else:
            expected = (n + 1 < param, n >= 1 and (n + 1) % param != 0)
        assert eos_features(reference, [0], n) == (expected,)
        assert eos_features(model, [0], n) == (expected,)


LENGTH_LANGUAGES = [
    (m, frozenset(r), frozenset(s))
    for m, r, s in [(2, {0}, set()), (2, {1}, set()), (2, {0}, {1}), (3, {0}, set()),
                    (3, {2}, set()), (4, {0, 1}, set()), (2, {1}, {0, 2})]
]


@pytest.mark.parametrize("spelling", ["ST2", "ST3", "SW2", "SW3", "ST2,W1", "SW2;SWS2", "W1"])
@pytest.mark.parametrize(("modulus", "residues", "short"), LENGTH_LANGUAGES)
def test_every_yes_has_no_conflicting_pair_among_the_short_words(
        spelling: str, modulus: int, residues: frozenset[int], short: frozenset[int]) -> None:
    d = _length_dfa(AB, modulus, residues, short)
    layout = encoder_layout(spelling)
    masks = layout_masks(layout)
    proof = length_proof(d, layout.layer(0), masks)
    types = MaskTypes(masks, "eos", len(layout.layers))
    by_type: dict[object, set[bool]] = {}
    for w in short_words(("a", "b"), 511):
        by_type.setdefault(types.readout(w, 1), set()).add(d.accepts(w))
    conflict = any(len(v) == 2 for v in by_type.values())
    if proof is not None:
        assert proof[0] == 1 and not conflict
    if "ST" not in spelling and "SW" not in spelling:
        assert proof is None  # windows place BOS by a bounded length only


def test_the_catalogue_cells_and_the_verdict() -> None:
    even = _length_dfa(AB, 2, frozenset({0}))
    layout = encoder_layout("ST2")
    types = MaskTypes(layout_masks(layout), "eos", 1)
    verdict = encoder_verdict(even, layout, "eos", lambda sub: types,
                              search=short_words(("a", "b"), 100))
    assert verdict.answer == "yes" and verdict.min_depth == 1
    assert "Proposition 15.6" in verdict.reason
    odd_over_a = _length_dfa(A, 2, frozenset({1}))
    assert length_proof(odd_over_a, layout.layer(0), layout_masks(layout)) is not None
    # ST3 cannot read the parity: BOS sits in the EOS row when 3 | N + 1
    assert length_proof(even, encoder_layout("ST3").layer(0),
                        layout_masks(encoder_layout("ST3"))) is None
    # a language that is not a length language gets no proof from this rule
    not_length = DFA(AB, np.array([[1, 0], [1, 0]]), np.array([False, True]), 0)  # ends in a
    assert length_indicator(not_length) is None
    assert length_proof(not_length, layout.layer(0), layout_masks(layout)) is None
