"""Predictions for encoder cells: a bidirectional layout, or a readout other than EOS (§13).

A cell is an *encoder cell* when its layout spells some encoder atom (`layouts.encoders`:
``F``, ``W1``, ``W1+CLS``, ``ST2``, ...) or its run reads another position than EOS (the
`` @READOUT`` of its label, `sweeps.cells`). Such a cell is predicted by exactly what
``expressivity classify LANGUAGE --layouts "LAYOUT@READOUT" --depth N`` answers
(`models.encoder_classify.classify_encoder`, docs/theory.md §13): the layout laid out over the
model's own number of layers and heads, the model's own masks (mask seed 0, the
`ModelConfig.mask_seed` default), yes with its proof, no with a pair of words whose readout
types agree (re-checkable by `check_certificate`), or unknown with the bound the search hit.
The unbounded answer fills ``predicted``; the answer at the model's own depth fills
``predicted_at_depth``. A cell with length-aware logits (``full+log-n @eos``) keeps its NoPE
cell's "yes" (unbounded and at its depth) and gets "unknown" for every "no": under A a scaled
head reads its key count as well as the set (a refinement of the types, so every union of
NoPE classes stays a union), and the constructions stay exact at every key count; but a head
whose row reads the whole word learns its length, which the unscaled encoder cannot read
(docs/theory.md §9, "Encoders"). Cells with a positional encoding have no encoder theory
("unknown": §13 is stated for NoPE).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import lru_cache

from expressivity.algebra.encoders import family_pair
from expressivity.automata.dfa import DFA
from expressivity.errors import ExpressivityError
from expressivity.layouts import parse_spelling
from expressivity.layouts.encoders import is_encoder
from expressivity.models.encoder_classify import (
    EncoderAnswer,
    classify_encoder,
    encoder_layout,
    layout_masks,
)
from expressivity.models.encoder_multisets import agree_with_multiplicities
from expressivity.models.layer_types import N_HEADS
from expressivity.sweeps.cell_labels import Cell

__all__ = ["ANY_PRECISION", "ONLY_A", "SCALED_NO", "SCALED_YES", "EncoderPrediction",
           "encoder_command", "encoder_prediction", "encoder_spelling", "is_encoder_cell",
           "precision_note", "scaled_prediction"]


def is_encoder_cell(cell: Cell) -> bool:
    """Whether ``cell`` is predicted by the encoder theory: a readout other than EOS, or a
    layout with an encoder atom (an unparsable layout with the EOS readout is not)."""
    if cell.readout != "eos":
        return True
    try:
        return any(is_encoder(p) for p in parse_spelling(cell.layout).patterns)
    except ExpressivityError:
        return False


def encoder_spelling(cell: Cell) -> str:
    """The ``classify --layouts`` spelling of an encoder cell: ``LAYOUT@READOUT``."""
    return f"{cell.layout}@{cell.readout}"


def encoder_command(language: str, alphabet: str, cell: Cell, n_layers: int | None) -> str:
    """The ``expressivity classify`` command that answers an encoder cell (at its depth)."""
    parts = ["expressivity", "classify", shlex.quote(language)]
    if alphabet:
        parts += ["--alphabet", shlex.quote(alphabet)]
    parts += ["--layouts", shlex.quote(encoder_spelling(cell))]
    if n_layers is not None:
        parts += ["--depth", str(n_layers)]
    return " ".join(parts)


@dataclass(frozen=True)
class EncoderPrediction:
    """One encoder cell's prediction, in the words of `analysis.prediction_table.predictions`."""

    predicted: str  # "yes" / "no" / "unknown", with any number of layers
    reason: str
    min_depth: str | None = None  # "2" (a proof with 2 layers), "∞" (no depth), "?"
    at_depth: str | None = None  # the answer at exactly the model's number of layers
    reason_at_depth: str | None = None


def encoder_prediction(dfa: DFA, cell: Cell, n_layers: int | None,
                       n_heads: int | None = None) -> EncoderPrediction:
    """The prediction for ``cell`` (an encoder cell) of the language of ``dfa``, for a model
    of ``n_layers`` layers (None: unbounded only, laid out as ``classify`` does) and
    ``n_heads`` heads (None: `classify`'s default)."""
    if cell.positional != "none":
        return EncoderPrediction("unknown", _UNCOVERED.format(cell=cell.label))
    nope = _predict(dfa, encoder_spelling(cell), n_layers, n_heads or N_HEADS)
    return nope if cell.scale == "none" else scaled_prediction(nope)


_UNCOVERED = ("no encoder theory for {cell}: docs/theory.md §13 is stated for NoPE heads "
              "(positional encodings are not analysed)")
#: What a length-aware encoder cell adds to its NoPE cell's "yes" and says instead of a "no".
SCALED_YES = ("; length-aware logits keep this: a scaled head reads its key count besides the "
              "set of values, which refines every readout type, and the constructions stay "
              "exact at every key count (docs/theory.md §9, encoders)")
SCALED_NO = ("not claimed with length-aware logits: the NoPE cell's no was {reason}; a scaled "
             "head whose row reads the whole word learns its length, which strictly enlarges "
             "what the encoder reads (docs/theory.md §9, encoders)")


def scaled_prediction(nope: EncoderPrediction) -> EncoderPrediction:
    """The prediction of a length-aware cell from its NoPE cell's: every "yes" kept (with
    its depth), every "no" (unbounded or at the depth) "unknown" (docs/theory.md §9)."""
    def scaled(answer: str | None, reason: str | None) -> tuple[str | None, str | None]:
        if answer == "yes" and reason is not None:
            return answer, reason + SCALED_YES
        if answer == "no":
            return "unknown", SCALED_NO.format(reason=reason)
        return answer, reason

    predicted, reason = scaled(nope.predicted, nope.reason)
    at_depth, reason_at_depth = scaled(nope.at_depth, nope.reason_at_depth)
    min_depth = "?" if nope.min_depth == "∞" else nope.min_depth
    return EncoderPrediction(predicted or "unknown", reason or "", min_depth, at_depth,
                             reason_at_depth)


@lru_cache(maxsize=1024)
def _predict(dfa: DFA, spelling: str, n_layers: int | None, n_heads: int) -> EncoderPrediction:
    command = f"classify --layouts \"{spelling}\""
    try:
        unbounded = classify_encoder(dfa, spelling, n_layers=n_layers, n_heads=n_heads)
    except ExpressivityError as err:
        return EncoderPrediction("unknown", f"not classified as an encoder: {err}")
    status = unbounded.verdict.answer
    reason = _explain(unbounded, dfa, command, n_layers or CHECK_DEPTH)
    if n_layers is None:
        return EncoderPrediction(status, reason)
    deep = classify_encoder(dfa, spelling, n_layers=n_layers, n_heads=n_heads, depth=n_layers)
    at = deep.verdict.answer
    if at == "yes" and status == "unknown":
        at = "unknown"  # never claim more at a depth than unbounded
    plural = "s" * (n_layers != 1)
    return EncoderPrediction(status, reason, _min_depth(unbounded), at,
                             f"at {n_layers} layer{plural}: "
                             f"{_explain(deep, dfa, command + f' --depth {n_layers}', n_layers)}")


def _min_depth(answer: EncoderAnswer) -> str:
    v = answer.verdict
    if v.answer == "no":
        return "∞"
    return str(v.min_depth) if v.answer == "yes" and v.min_depth is not None else "?"


def _explain(answer: EncoderAnswer, dfa: DFA, command: str, depth: int) -> str:
    """The verdict's reason, its certificate pair and where it comes from, in one line; a "no"
    also says whether it holds at any precision or relative to reading model A only."""
    v = answer.verdict
    text = f"{v.reason} (docs/theory.md §13, `{command}`)"
    if v.answer == "yes" and v.min_depth is not None:
        text += f"; proved with {v.min_depth} layer{'s' * (v.min_depth != 1)}"
    if v.pair is not None:
        u, w = (dfa.alphabet.format_word(x) for x in v.pair)
        text += f"; certificate: {u} ∈ L and {w} ∉ L share the {v.readout} readout"
    if v.answer == "no":
        text += "; " + precision_note(answer, dfa, v.depth if v.depth is not None else depth)
    return text


#: Depth at which an unbounded "no" is re-checked with multiplicities when no depth is given.
CHECK_DEPTH = 2
#: The two notes `precision_note` writes (the results page counts them).
ANY_PRECISION = "holds at any precision (the pair agrees with multiplicities)"
ONLY_A = "relative to reading model A only"


def precision_note(answer: EncoderAnswer, dfa: DFA, depth: int) -> str:
    """Whether a "no"'s pair, pumped for ``depth`` layers, also agrees when every row reads the
    multiset of its keys' types (`encoder_multisets`: then no NoPE network of these masks
    separates it at any precision) or only under reading model A (docs/theory.md §15)."""
    v = answer.verdict
    whole = encoder_layout(answer.layout)
    u, w = family_pair(v, dfa, whole, depth) if v.family is not None else v.pair  # type: ignore[misc]
    if agree_with_multiplicities(u, w, layout_masks(answer.layout), depth, v.readout):
        return f"{ANY_PRECISION} after {depth} layer{'s' * (depth != 1)}"
    return (f"{ONLY_A}: with multiplicities the pair separates after {depth} "
            f"layer{'s' * (depth != 1)}, so a float32 network may beat this no "
            "(docs/theory.md §15)")
