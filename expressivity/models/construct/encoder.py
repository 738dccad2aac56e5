"""Encoder constructions: exact unmasked (``F``) encoders for the alphabet-testable languages.

docs/theory.md §12, Proposition 12.2: under an unmasked head every token reads the set of
letters of the word, and an alphabet-testable language (a Boolean combination of "a occurs",
decided by `algebra.commutative.is_alphabet_testable`) is a union of classes of that set. The
construction writes L as the formula ⋁_{S accepted} (⋀_{a∈S} P a ∧ ⋀_{a∉S} ¬P a), builds the
one-layer NoPE recognizer of `construct` (one head per letter: query λ, key = value = [token
is a], a rounding FFN), and lays it over ``F`` heads read out at ``eos``, ``cls`` or ``mean``.
Why the weights carry over: under ``F`` every row's keys are all tokens 0..N+1, a superset of
the global row of EOS by one key (EOS itself, whose value and score are those of a non-a
letter), so each head's output is the head lemma's m ≥ 1/2 (a occurs) or m ≤ 0 (it does not)
whenever N + 2 ≤ e^λ/2, *at every token*; the FFN rounds it to the same bit at every token,
so the classifier's input is the same at EOS, at CLS and averaged over all tokens. One weight
changes: the planner marks BOS (its ``bos`` coordinate) to force every value to 0 there, as a
causal BOS reads nothing; under ``F`` BOS reads every token like the others, so the mark is
cleared and BOS computes the same bits as every other token.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import torch

from expressivity.algebra.commutative import is_alphabet_testable
from expressivity.automata.dfa import DFA
from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.logic import syntax as s
from expressivity.models.construct.build import DEFAULT_SHARPNESS, ConstructedModel, construct
from expressivity.models.readout import Readout
from expressivity.models.tokens import bos_id
from expressivity.models.transformer import Recognizer

__all__ = ["FULL_READOUTS", "MAX_LETTERS", "construct_full", "presence_formula"]

#: The readouts at which every token of an all-``F`` encoder holds the same bits.
FULL_READOUTS = ("eos", "cls", "mean")
#: Letters a presence formula may range over (it has up to 2^|Σ| disjuncts).
MAX_LETTERS = 10


def presence_formula(dfa: DFA) -> s.Formula:
    """⋁ over the accepted letter sets S of ⋀_{a∈S} P a ∧ ⋀_{a∉S} ¬P a (alphabet testable L)."""
    verdict = is_alphabet_testable(dfa)
    if verdict is not True:
        raise UnsupportedFragmentError(
            "an unmasked (F) encoder reads only which letters occur (docs/theory.md §12), and "
            f"this language depends on more: {verdict.describe()}")
    symbols = dfa.alphabet.symbols
    if len(symbols) > MAX_LETTERS:
        raise ConfigError(f"construct_full: at most {MAX_LETTERS} letters (2^|Σ| letter sets; "
                          f"MAX_LETTERS), got {len(symbols)}")
    terms: list[s.Formula] = []
    for bits in itertools.product((False, True), repeat=len(symbols)):
        if not dfa.accepts(tuple(a for a, on in zip(symbols, bits, strict=True) if on)):
            continue
        lits: list[s.Formula] = [s.Past(s.Symbol(a)) if on else s.Not(s.Past(s.Symbol(a)))
                                 for a, on in zip(symbols, bits, strict=True)]
        terms.append(_fold(lits, s.And))
    return _fold(terms, s.Or) if terms else s.Bottom()


def _fold(items: list[s.Formula], op: type) -> s.Formula:
    out = items[0]
    for item in items[1:]:
        out = op(out, item)
    return out


def construct_full(dfa: DFA, readout: Readout = "eos", *,
                   sharpness: float = DEFAULT_SHARPNESS) -> ConstructedModel:
    """An all-``F`` encoder read out at ``readout`` that recognizes the alphabet-testable L(dfa)
    (module docstring); `UnsupportedFragmentError` with the class witness otherwise."""
    if readout not in FULL_READOUTS:
        raise ConfigError(f"construct_full: readout {readout!r} is not served (choose one of "
                          f"{', '.join(FULL_READOUTS)}: there every token holds the same bits)")
    formula = presence_formula(dfa)
    base = construct(formula, dfa.alphabet, "global", sharpness=sharpness)
    config = replace(base.model.config, layout="F", readout=readout)
    model = Recognizer(config, len(dfa.alphabet))
    model.load_state_dict(base.model.state_dict())
    with torch.no_grad():
        model.embed.weight[bos_id(len(dfa.alphabet)), base.coordinates.index("bos")] = 0.0
    model.eval()
    heads = tuple(replace(h, pattern="F") for h in base.heads)
    return replace(base, model=model, heads=heads)
