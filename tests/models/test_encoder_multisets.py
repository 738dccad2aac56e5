"""Types with multiplicities: finer than reading model A, and an invariant of real NoPE models."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.models import ModelConfig, Recognizer, encode_batch
from expressivity.models.encoder_classify import layout_masks
from expressivity.models.encoder_multisets import agree_with_multiplicities, multiset_readout
from expressivity.models.encoder_types import agree_after, readout_type
from expressivity.models.layer_types import Interner
from expressivity.models.layouts import parse_layout

SPELLINGS = ["F", "W1", "W2", "W1+CLS", "BW2+BG2.1", "ST2", "SF2.1", "SW2;SWS2", "STE2"]
words = st.lists(st.sampled_from("ab"), max_size=6).map(tuple)


@settings(max_examples=60, deadline=None)
@given(spelling=st.sampled_from(SPELLINGS), u=words, v=words, depth=st.integers(0, 3),
       readout=st.sampled_from(["eos", "cls", "mean", "last"]))
def test_multiplicities_refine_reading_model_a(spelling, u, v, depth, readout):
    masks = layout_masks(parse_layout(spelling, 2, 2))
    if agree_with_multiplicities(u, v, masks, depth, readout):
        assert agree_after(u, v, masks, depth, readout)
    if u == v:
        assert agree_with_multiplicities(u, v, masks, depth, readout)


def _logits(layout: str, readout: str, words: list[str], seed: int) -> torch.Tensor:
    config = ModelConfig.from_dict({"n_layers": 2, "d_model": 16, "n_heads": 2, "d_ff": 32,
                                    "layout": layout, "readout": readout})
    model = Recognizer(config, 2, seed=seed).double()
    tokens, lengths = encode_batch([np.array(["ab".index(s) for s in w]) for w in words], 2)
    with torch.no_grad():
        return model(tokens, lengths)


def test_a_pair_agreeing_with_multiplicities_gets_one_logit_from_every_model():
    """ab / ba under window-2 @eos (a mask automorphism): every initialisation agrees."""
    masks = layout_masks(parse_layout("window-2", 2, 2))
    assert agree_with_multiplicities(tuple("ab"), tuple("ba"), masks, 2, "eos")
    for seed in range(5):
        logits = _logits("window-2", "eos", ["ab", "ba"], seed)
        torch.testing.assert_close(logits[0], logits[1], rtol=1e-9, atol=1e-9)


def test_a_pair_agreeing_under_a_only_is_separated_by_real_attention():
    """abaa / baa under W1+CLS @cls share their A type after 2 layers (rows {B, a, b} and
    {B, b, a, a} are one set), not their multiplicities; a random network tells them apart."""
    masks = layout_masks(parse_layout("longformer-enc-1", 2, 2))
    u, v = tuple("abaa"), tuple("baa")
    assert agree_after(u, v, masks, 2, "cls")
    assert not agree_with_multiplicities(u, v, masks, 2, "cls")
    logits = _logits("longformer-enc-1", "cls", ["abaa", "baa"], 0)
    assert abs(float(logits[0] - logits[1])) > 1e-6


def _all_words(lengths: range) -> list[tuple[str, ...]]:
    return [w for n in lengths for w in itertools.product("ab", repeat=n)]


@pytest.mark.parametrize(("spelling", "reach"), [
    ("swin-2", (1, 1)), ("swin-3", (2, 2)), ("BW2", (3, 3)), ("W1;WD1.2", (1, 2)),
])
@pytest.mark.parametrize("depth", [1, 2])
def test_left_anchored_bounded_reach_reads_a_bounded_prefix_at_cls(spelling, reach, depth):
    """docs/theory.md Proposition 15.3: every key within ρ_ℓ of its query and rows fixed by
    absolute positions ⇒ with multiplicities (so at any precision) the CLS readout after d
    layers is a function of the first R_d = ρ_1 + … + ρ_d symbols, for words of length ≥ R_d."""
    masks = layout_masks(parse_layout(spelling, 2, 1))
    span = sum(reach[:depth])
    intern, seen = Interner(), {}
    for w in _all_words(range(span, span + 4)):
        t = multiset_readout(w, masks, depth, "cls", intern)
        assert seen.setdefault(w[:span], t) == t, (spelling, depth, w)


def test_swin_2_reads_the_length_mod_2_at_eos():
    """Proposition 15.4: under swin-2, EOS's first-layer row holds a symbol iff N is even (ε:
    BOS), so EVEN-LENGTH is a union of EOS types after one layer, as sets and as multisets."""
    masks = layout_masks(parse_layout("swin-2", 2, 1))
    a_types, m_types = Interner(), Interner()
    by_set: dict[int, bool] = {}
    by_multiset: dict[int, bool] = {}
    for w in _all_words(range(0, 9)):
        even = len(w) % 2 == 0
        t = readout_type(w, masks, 1, "eos", a_types)
        assert by_set.setdefault(t, even) == even, w
        t = multiset_readout(w, masks, 1, "eos", m_types)
        assert by_multiset.setdefault(t, even) == even, w
