"""The theory's table: a verdict per language × layout cell (`predictions`), and its matrix.

A cell is decided on the language's classification (`class_membership`) under the `classify`
layout that predicts it (`layout_theory`): "yes" / "no" only when proven, else "unknown".
Non-regular controls (such as CNT) are predicted unrecognizable by every layout: every
language of LTL[P,Y^≤k] is regular [LC25, LC26]. A length-aware cell keeps its NoPE verdict
only where docs/theory.md §9 proves it (`layout_theory.scaled_verdict`), and no length-aware
cell is "no" at a given depth (its heads also read their key count); a length-aware encoder
cell is "unknown" (`encoder_predictions.scaled_prediction`: a row that reads the whole word
learns its length). Encoder cells (a bidirectional layout such as ``window-1`` or ``full``, or
a readout other than EOS: ``window-1 @cls``) are predicted by the encoder theory of
docs/theory.md §13, exactly as ``classify --layouts "LAYOUT@READOUT"`` answers them
(`encoder_predictions`). With a depth, each cell also says what holds at exactly that many
layers (d*, docs/theory.md §8).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache

import pandas as pd

from expressivity.algebra.classification import PERIODIC, Classification
from expressivity.algebra.classify import one_letter_per_action
from expressivity.algebra.layout_verdicts import has_mixers
from expressivity.analysis.class_membership import (
    LanguageKey,
    classification_or_reason,
    language_key_list,
)
from expressivity.analysis.encoder_predictions import encoder_prediction, is_encoder_cell
from expressivity.analysis.layout_theory import (
    classify_arguments,
    no_theory,
    scaled_verdict,
    theory_layout,
    with_periods,
)
from expressivity.analysis.mixer_depth import mixer_at_depth
from expressivity.analysis.schema import PREDICTION_COLUMNS, conform
from expressivity.automata.ops import minimize
from expressivity.errors import ExpressivityError
from expressivity.models.depth import minimal_depth
from expressivity.models.depth_types import MinimalDepth
from expressivity.resolve import Source, resolve
from expressivity.sweeps.cell_labels import Cell, cell_layers, per_cell

__all__ = ["DEPTH_STATES", "THEORY_MARKS", "predictions", "theory_matrix"]

_NONREGULAR_REASON = (
    "not regular: every language of LTL[P,Y^≤k] is regular, so no layout recognizes it "
    "[LC25, LC26]"
)


def predictions(
    languages: Iterable[str | LanguageKey],
    layouts: Iterable[str],
    n_layers: int | Mapping[str, int] | None = None,
    n_heads: int | Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """One row per language × layout (`PREDICTION_COLUMNS`): "yes" / "no" only when proven.

    With a depth (``n_layers`` for every cell, or per cell label as `sweeps.cells.cell_depths`
    gives; a cell's own `` [N layers]`` label wins) each row also says what holds at exactly
    that many layers (``predicted_at_depth``, from d*, docs/theory.md §8): "no" where the
    layout needs more layers (or none suffice), "yes" where d* ≤ n_layers; else NA.
    Encoder cells (a bidirectional layout or a readout other than EOS,
    `encoder_predictions.is_encoder_cell`) are predicted by the encoder theory of
    docs/theory.md §13 on a model of that many layers and ``n_heads`` heads (for every cell,
    or per label as `sweeps.cells.cell_heads` gives; `classify`'s default when unknown)."""
    layouts = list(dict.fromkeys(layouts))
    ks, others = classify_arguments(layouts)
    rows = []
    for language, alphabet in language_key_list(languages):
        c = classification_or_reason(language, alphabet, ks, others)
        for layout in layouts:
            theory, cell = theory_layout(layout), Cell.parse(layout)
            layers = cell_layers(layout, n_layers)
            if isinstance(c, Classification) and is_encoder_cell(cell):
                rows.append((language, alphabet, layout, *_encoder_row(
                    c, language, alphabet, cell, layers, per_cell(n_heads, layout))))
                continue
            if c == "not regular":
                status, reason = "no", _NONREGULAR_REASON
            elif isinstance(c, str):
                status, reason = "unknown", c
            elif theory is None:
                status, reason = "unknown", no_theory(layout)
            else:
                r = c.recognizer(theory)
                status, reason = with_periods(c, r, cell.periods)
                if cell.scale != "none":
                    status, reason = scaled_verdict(theory, status, reason)
            depth = (None, None, None) if layers is None else _at_depth(
                c, language, alphabet, theory, status, reason, layers, cell.scale != "none")
            rows.append((language, alphabet, layout, status, reason, layers, *depth))
    return conform(pd.DataFrame(rows, columns=list(PREDICTION_COLUMNS)), PREDICTION_COLUMNS)


def _encoder_row(c: Classification, language: str, alphabet: str, cell: Cell,
                 layers: int | None, heads: int | None) -> tuple[object, ...]:
    """(predicted, reason, n_layers, d*, at depth, why) of an encoder cell (§13), decided on
    the language's DFA as ``classify`` resolves it (so the answer is the CLI's)."""
    source = _source(language, alphabet)
    p = encoder_prediction(c.dfa if source is None else source.dfa, cell, layers, heads)
    return p.predicted, p.reason, layers, p.min_depth, p.at_depth, p.reason_at_depth


def _at_depth(
    c: Classification | str, language: str, alphabet: str, theory: str | None, status: str,
    reason: str, layers: int, scaled: bool = False,
) -> tuple[str, str, str]:
    """(d*, the answer at exactly ``layers`` layers, why) for one cell; a ``scaled``
    (length-aware) cell gets "unknown" where the NoPE cell gets "no" at that depth."""
    if status == "no":
        return "∞", "no", f"no at any depth: {reason}"
    if not isinstance(c, Classification) or theory is None or theory.endswith(PERIODIC):
        return "?", "unknown", "no depth analysis for this cell (docs/theory.md §8 covers NoPE)"
    if has_mixers(theory):
        return mixer_at_depth(language, alphabet, theory, status, layers)
    key = (language, alphabet, theory)
    md = _DEPTHS.get(key)
    if md is None:
        md = _DEPTHS[key] = _depth(c, language, alphabet, theory)
    at, why = md.at(layers), f"at {layers} layer{'s' * (layers != 1)}: {md.describe()}"
    if at == "yes" and status == "unknown":
        at = "unknown"  # never claim more at a depth than unbounded (e.g. periods unread)
    if at == "no" and scaled:
        at, why = "unknown", why + _SCALED_DEPTH_NOTE
    return md.text(), at, why


#: Why a length-aware cell is never "no at this depth" (docs/theory.md §9).
_SCALED_DEPTH_NOTE = ("; not 'no' at this depth: a length-aware head also reads its key count, "
                      "which the depth-bounded types do not see (docs/theory.md §9)")


#: State bound of the layered type automata behind table predictions: a fifth of
#: `models.depth.DEPTH_STATES`, so a whole table stays within minutes; a cell it leaves as
#: bounds may be exact under `expressivity classify --depth` (TOMITA-7 with hybrid-1: 3..4
#: here, 3 there).
DEPTH_STATES = 20_000
#: Minimal depths by (language, alphabet, classify layout): they do not depend on the cell.
_DEPTHS: dict[tuple[str, str, str], MinimalDepth] = {}


def _depth(c: Classification, language: str, alphabet: str, theory: str) -> MinimalDepth:
    """The minimal depth of one language under one `classify` layout (its catalogue or
    user formula, when it has one, is a candidate proof)."""
    source = _source(language, alphabet)
    formulas = [source.formula] if source is not None and source.formula is not None else []
    dfa = one_letter_per_action(minimize(c.dfa))
    return minimal_depth(dfa, theory, c.recognizer(theory), formulas=formulas,
                         max_states=DEPTH_STATES)


@lru_cache(maxsize=512)
def _source(language: str, alphabet: str) -> Source | None:
    try:
        return resolve(language, alphabet or None)
    except ExpressivityError:
        return None


#: How `theory_matrix` shows a prediction's status.
THEORY_MARKS = {"yes": "yes", "no": "no", "unknown": "?"}


def theory_matrix(predicted: pd.DataFrame) -> pd.DataFrame:
    """`predictions` as a language × layout table of yes / no / ? (rows and columns in order)."""
    languages = list(dict.fromkeys(predicted["language"]))
    layouts = list(dict.fromkeys(predicted["layout"]))
    marks = predicted.assign(mark=predicted["predicted"].map(THEORY_MARKS))
    table = marks.pivot_table(index="language", columns="layout", values="mark",
                              aggfunc="first")
    return table.reindex(index=languages, columns=layouts).rename_axis(None, axis=1)
