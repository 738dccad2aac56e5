"""One check for the construction tests: a formula's model decides every short word as its DFA."""

from __future__ import annotations

import numpy as np

from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula
from expressivity.extraction.agreement import all_words, decide
from expressivity.logic.syntax import Formula
from expressivity.models.construct import construct


def built_agrees_on_short_words(phi: Formula, sigma: Alphabet, layout: str, up_to: int,
                                **options: str) -> bool:
    """Whether ``construct(phi, sigma, layout, **options)`` decides every word of length
    ≤ ``up_to`` as the DFA compiled from ``phi`` does."""
    model = construct(phi, sigma, layout, **options).model  # type: ignore[arg-type]
    codes, lengths = all_words(len(sigma), up_to)
    want = compile_formula(phi, sigma).accepts_codes(codes, lengths)
    return bool(np.array_equal(decide(model, codes, lengths), want))
