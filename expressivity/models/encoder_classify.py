"""`classify --layouts` for encoders: a spelling with a readout (`W1+CLS@cls`) → yes, no, unknown.

docs/theory.md §13. The spelling before ``@`` is any layout spelling (`models.layouts`); the
readout after it is one of `encoder_types.READOUTS` (``eos`` when omitted). The layout is laid
out over a model of ``n_layers`` × ``n_heads`` heads, its masks are the model's own
(`Pattern.mask`, the sink rule included), and the verdict of `algebra.encoders` is computed from
those masks: every "no" is a pair of words whose readout types agree (at every depth, or after
the asked number of layers) on these very masks, and `check_certificate` re-checks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from expressivity.algebra.encoders import (
    EncoderLayout,
    EncoderVerdict,
    encoder_verdict,
    family_pair,
)
from expressivity.automata.dfa import DFA
from expressivity.errors import ConfigError
from expressivity.models.encoder_types import MaskFn, MaskTypes, Readout, agree_after, check_readout
from expressivity.models.layer_types import N_HEADS, short_words
from expressivity.models.layouts import Layout, parse_layout

__all__ = ["ENCODER_WORDS", "EncoderAnswer", "check_certificate", "classify_encoder",
           "encoder_layout", "is_encoder_spelling", "layout_masks", "split_readout"]

#: Short words searched for certificates (all words up to the length that keeps this many).
ENCODER_WORDS = 400
#: Model size a spelling is laid out over when none is given (docs/theory.md §5).
N_LAYERS = 5


def split_readout(text: str) -> tuple[str, Readout]:
    """``"W1+CLS@cls"`` → (``"W1+CLS"``, ``"cls"``); no ``@`` → the EOS readout."""
    if text.count("@") > 1:
        raise ConfigError(f"layout {text!r}: at most one '@readout' suffix, e.g. 'W1+CLS@cls'")
    body, _, readout = text.partition("@")
    return body, check_readout(readout) if readout else "eos"


def is_encoder_spelling(text: str) -> bool:
    """Whether ``classify`` should answer ``text`` as an encoder (it names a readout)."""
    return "@" in text


def layout_masks(layout: Layout) -> MaskFn:
    """Per layer, the masks of its distinct head patterns, as numpy arrays (the model's own)."""

    def masks(length: int) -> list[list[np.ndarray]]:
        return [[p.mask(length).numpy() for p, _ in layout.groups(i)]
                for i in range(_period(layout))]

    return masks


def _period(layout: Layout) -> int:
    """The least p with layer i = layer i mod p for every layer (the layers repeat with p)."""
    rows = [tuple(p for p, _ in layout.groups(i)) for i in range(layout.n_layers)]
    return next(p for p in range(1, len(rows) + 1)
                if all(rows[i] == rows[i % p] for i in range(len(rows))))


def encoder_layout(layout: Layout) -> EncoderLayout:
    """The distinct head patterns (atoms) of one period of the layers."""
    return EncoderLayout(tuple(tuple(p.atoms for p, _ in layout.groups(i))
                               for i in range(_period(layout))))


@dataclass(frozen=True)
class EncoderAnswer:
    """One spelling's verdict with the layout it was computed on."""

    spelling: str
    layout: Layout
    verdict: EncoderVerdict

    def to_dict(self) -> dict[str, Any]:
        v = self.verdict
        return {"layout": self.spelling, "readout": v.readout, "answer": v.answer,
                "depth": v.depth, "min_depth": v.min_depth, "reason": v.reason,
                "pair": [list(w) for w in v.pair] if v.pair else None}


def classify_encoder(dfa: DFA, spelling: str, *, n_layers: int | None = None,
                     n_heads: int = N_HEADS, depth: int | None = None, seed: int = 0,
                     max_depth: int = 4) -> EncoderAnswer:
    """The verdict for ``spelling`` (``LAYOUT[@READOUT]``), unbounded or at ``depth`` layers."""
    body, readout = split_readout(spelling)
    layout = parse_layout(body, n_layers or depth or N_LAYERS, n_heads, seed=seed)
    words = short_words(dfa.alphabet.symbols, ENCODER_WORDS)
    masks = layout_masks(layout)
    whole = encoder_layout(layout)

    def types_of(sub: EncoderLayout) -> MaskTypes:
        if sub == whole:
            return MaskTypes(masks, readout, len(whole.layers))
        chosen = [[i for i, h in enumerate(row) if h in sub.layers[k]]
                  for k, row in enumerate(whole.layers)]

        def sub_masks(length: int) -> list[list[np.ndarray]]:
            full = masks(length)
            return [[full[k][i] for i in keep] for k, keep in enumerate(chosen)]

        return MaskTypes(sub_masks, readout, len(whole.layers))

    verdict = encoder_verdict(dfa, whole, readout, types_of, depth=depth, max_depth=max_depth,
                              search=words)
    return EncoderAnswer(spelling, layout, verdict)


def check_certificate(dfa: DFA, answer: EncoderAnswer, depths: tuple[int, ...] = (1, 2, 3)) -> None:
    """Raise AssertionError unless a "no" is a pair (u ∈ L, v ∉ L) whose readout types agree
    on the layout's masks (after its depth, or after each of ``depths`` when unbounded)."""
    v = answer.verdict
    if v.answer != "no":
        return
    masks, whole = layout_masks(answer.layout), encoder_layout(answer.layout)
    for d in (v.depth,) if v.depth is not None else depths:
        u, w = family_pair(v, dfa, whole, d) if v.family is not None else v.pair  # type: ignore[misc]
        assert dfa.accepts(u) and not dfa.accepts(w), "the pair is not separated by L"
        assert agree_after(u, w, masks, d, v.readout), f"the pair differs after {d} layers"
