"""The encoder verdicts on the model's own masks (`models.encoder_classify`), and encoder types
on causal masks equal to the causal layer types of docs/theory.md §8."""

from __future__ import annotations

import pytest

from expressivity.automata.compile import compile_formula
from expressivity.errors import ConfigError
from expressivity.logic.parser import parse
from expressivity.models.encoder_classify import (
    check_certificate,
    classify_encoder,
    layout_masks,
    split_readout,
)
from expressivity.models.encoder_types import MaskTypes
from expressivity.models.layer_types import Interner, layer_types, short_words
from expressivity.models.layouts import parse_layout


@pytest.mark.parametrize("text", ["global", "local-2", "hybrid-1", "block-3", "longformer-1-1"])
def test_encoder_types_on_causal_masks_are_the_causal_layer_types(text):
    layout = parse_layout(text, 3, 4)
    ours = MaskTypes(layout_masks(layout), "eos", 1)
    theirs = Interner()
    words = short_words(("a", "b"), 60)
    for d in (1, 2, 3):
        mine = {w: ours.readout(w, d) for w in words}
        ref = {w: layer_types(w, parse_layout(text, d, 4), theirs)[-1][-1] for w in words}
        for u in words:
            for v in words:
                assert (mine[u] == mine[v]) == (ref[u] == ref[v]), (text, d, u, v)


@pytest.mark.parametrize(
    ("formula", "spelling"),
    [("Y a", "global@eos"), ("P a", "local-1@eos"), ("P(a & start)", "global@last"),
     ("P a", "global@mean"), ("Y a", "hybrid-1@cls")],
)
def test_causal_spellings_with_readouts_give_rechecked_verdicts(formula, spelling):
    dfa = compile_formula(parse(formula), "a,b,c")
    for depth in (None, 2):
        answer = classify_encoder(dfa, spelling, depth=depth)
        check_certificate(dfa, answer)
        assert answer.verdict.readout == split_readout(spelling)[1]


def test_block_heads_give_a_stable_pair_for_even_length():
    """§6: ε and a share their type at every depth under block-2 (both EOS rows empty)."""
    dfa = compile_formula(parse("mod(2,1)"), "a")
    answer = classify_encoder(dfa, "block-2@eos")
    assert answer.verdict.answer == "no"
    check_certificate(dfa, answer, depths=(1, 2, 5, 9))


def test_readout_spelling_errors():
    with pytest.raises(ConfigError, match="choose one of eos, cls, mean, last"):
        split_readout("W1@first")
    with pytest.raises(ConfigError, match="at most one"):
        split_readout("W1@cls@eos")
    assert split_readout("W1+CLS") == ("W1+CLS", "eos")


ENCODER_SPELLINGS = ["F", "W0", "W1", "W2", "WD1.2", "WD2.3", "CLS", "SEP", "AT2", "AT9", "BW2",
                     "BG2.1", "ST3", "SF3.1", "STE3", "SFE3.2", "SW3", "SWS3", "SW4", "SWS4",
                     "W1+CLS", "W1+CLS+SEP"]


@pytest.mark.parametrize("spelling", ENCODER_SPELLINGS)
def test_the_models_encoder_masks_are_the_contract_masks(spelling):
    """The reference of the theory's tests (written from issue 32's table) and the masks the
    models build (the registry's rules) agree on every length up to 12."""
    from expressivity.layouts import KINDS
    from tests.models.encoder_masks import head_mask, parse_pattern

    atoms = parse_pattern(spelling)
    if not {a.kind for a in atoms} <= set(KINDS):
        pytest.skip(f"the atoms of {spelling} are not registered")
    try:
        layout = parse_layout(spelling, 1, 1)
    except ConfigError as err:  # a spelling the registry refuses is reported, not compared
        pytest.skip(f"the registry refuses {spelling}: {err}")
    for length in range(2, 13):
        ours = head_mask(atoms, length)
        theirs = layout.layers[0][0].mask(length).numpy()
        assert (ours == theirs).all(), (spelling, length, ours.astype(int), theirs.astype(int))
