"""Factor signatures (docs/theory.md §15, Proposition 15.7): the readout type is a function of
the signature on the contract's raw masks, the search's signatures are the direct ones, and
every decision at a depth agrees with brute force over all short words."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.algebra import factor_signatures as fs
from expressivity.algebra.encoders import _upper_bound
from expressivity.alphabet import Alphabet
from expressivity.catalogue.files import get_language
from expressivity.models.encoder_classify import check_certificate, classify_encoder
from expressivity.models.encoder_types import MaskTypes, agree_after
from tests.algebra.helpers import random_dfa
from tests.models.encoder_masks import encoder_layout, layout_masks

AB = Alphabet(("a", "b"))
READOUTS = ("eos", "cls", "mean", "last")
#: Layouts Proposition 15.7 covers: windows (dilated too), Swin blocks (shifted too), CLS and
#: SEP hubs, full heads, two heads in a layer, layers that differ.
COVERED = ["W1+CLS", "W1+CLS+SEP", "W2+CLS", "WD1.2+SEP", "W1,CLS", "W1+CLS,F", "W1+CLS;W2+SEP",
           "SW2;SWS2", "SW3;SWS3", "SW2+CLS;W1", "SWS3,F"]


def _words(max_length: int) -> list[tuple[str, ...]]:
    return [w for n in range(max_length + 1) for w in itertools.product("ab", repeat=n)]


@pytest.mark.parametrize("spelling", COVERED)
def test_the_readout_type_is_a_function_of_the_signature(spelling: str) -> None:
    """On every word over {a,b} up to length 8, words with one signature share their readout
    type after d layers of the contract's masks, for every readout and d = 1, 2, 3; and the
    grouping is not vacuous (at one and two layers, signatures are shared)."""
    layout = encoder_layout(spelling)
    assert fs.applies(layout)
    words = _words(8)
    for readout, depth in itertools.product(READOUTS, (1, 2, 3)):
        types = MaskTypes(layout_masks(layout), readout, len(layout.layers))
        local = fs.LocalTypes(layout, depth)
        by_signature: dict = {}
        for w in words:
            sig = fs.signature(w, layout, readout, depth, local)
            assert by_signature.setdefault(sig, types.readout(w, depth)) == \
                types.readout(w, depth), (spelling, readout, depth, w)
        assert depth == 3 or len(by_signature) < len(words), (readout, depth)


def test_uncovered_layouts_and_the_search_limit_give_no_answer() -> None:
    dfa = get_language("SUFFIX-a").dfa()
    blocks = encoder_layout("BW2+BG2.1")  # BigBird's blocks: not covered
    assert not fs.applies(blocks)
    types = MaskTypes(layout_masks(blocks), "cls", 1)
    assert fs.factor_table(dfa, blocks, "cls", 2, types) is None
    hub = encoder_layout("W1+CLS")
    types = MaskTypes(layout_masks(hub), "cls", 1)
    assert fs.factor_table(dfa, hub, "cls", 2, types, max_states=50) is None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), spelling=st.sampled_from(COVERED),
       readout=st.sampled_from(READOUTS), depth=st.integers(1, 2))
def test_decisions_agree_with_brute_force(seed: int, spelling: str, readout: str,
                                          depth: int) -> None:
    """On random DFAs over {a,b}: the search's signature of each representative is the direct
    one; a "yes" at d has no conflicting pair among all words up to length 8 (types on the
    contract's masks) and meets no proved "no"; a "no" pair shares its readout type there."""
    dfa = random_dfa(np.random.default_rng(seed), AB, max_states=4)
    layout = encoder_layout(spelling)
    local = fs.LocalTypes(layout, depth)
    reps = fs._representatives(dfa, local, readout, depth, fs._levels(layout, readout, depth),
                               fs.MAX_STATES)
    masks = layout_masks(layout)
    types = MaskTypes(masks, readout, len(layout.layers))
    if reps is None:  # past the search bound: no answer, never a guess
        assert fs.factor_table(dfa, layout, readout, depth, types) is None
        return
    for word, accepted, sig in reps:
        assert sig == fs.signature(word, layout, readout, depth, local), word
        assert accepted == dfa.accepts(word)
    table = fs.factor_table(dfa, layout, readout, depth, types)
    assert table is not None
    if table.recognizes:
        assert _upper_bound(dfa, layout, readout) is None  # type: ignore[arg-type]
        seen: dict = {}
        for w in _words(8):
            assert seen.setdefault(types.readout(w, depth), dfa.accepts(w)) == \
                dfa.accepts(w), (spelling, readout, depth, w)
    else:
        assert table.pair is not None
        u, v = table.pair
        assert dfa.accepts(u) and not dfa.accepts(v)
        assert agree_after(u, v, masks, depth, readout)  # type: ignore[arg-type]


@pytest.mark.parametrize("language", ["SUFFIX-a", "SUFFIX-ab"])
def test_a_suffix_is_read_at_cls_after_two_layers_of_a_window_and_cls(language: str) -> None:
    """The two cells of the table v12 that the signatures decide: "yes" with least depth 2
    (after one layer the last token knows it sees EOS, after two CLS reads that token), and
    "no" at one layer with a pair that re-checks on the model's masks."""
    dfa = get_language(language).dfa()
    unbounded = classify_encoder(dfa, "longformer-enc-1@cls")
    assert unbounded.verdict.answer == "yes" and unbounded.verdict.min_depth == 2
    assert "Proposition 15.7" in unbounded.verdict.reason
    assert classify_encoder(dfa, "longformer-enc-1@cls", depth=2).verdict.answer == "yes"
    one = classify_encoder(dfa, "longformer-enc-1@cls", depth=1)
    assert one.verdict.answer == "no"
    check_certificate(dfa, one)


def test_a_no_at_depth_is_the_least_pair_the_short_words_miss() -> None:
    """RDP-1-3 × longformer-enc-1 @cls at 2 layers: the signatures find a pair of lengths 4
    and 6 over {a, b0} that the short-word search does not reach; it re-checks."""
    dfa = get_language("RDP-1-3").dfa()
    answer = classify_encoder(dfa, "longformer-enc-1@cls", depth=2)
    assert answer.verdict.answer == "no" and "Proposition 15.7" in answer.verdict.reason
    check_certificate(dfa, answer)
    prefix = classify_encoder(get_language("PREFIX-a").dfa(), "longformer-enc-1@cls", depth=2)
    assert prefix.verdict.pair == (tuple("abaa"), tuple("baa"))  # Observation 15.2's pair
