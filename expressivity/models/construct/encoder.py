"""Exact encoder constructions: `F` heads (which letters occur), `W1` heads (first or last letter).

docs/theory.md §13, Proposition 13.2: under an unmasked head every token reads the set of
letters of the word, and an alphabet-testable language (a Boolean combination of "a occurs",
decided by `algebra.commutative.is_alphabet_testable`) is a union of classes of that set. The
construction writes L as the formula ⋁_{S accepted} (⋀_{a∈S} P a ∧ ⋀_{a∉S} ¬P a), builds the
one-layer NoPE recognizer of `construct` (one head per letter: query λ, key = value = [token
is a], a rounding FFN), and lays it over ``F`` heads read out at ``eos``, ``cls`` or ``mean``.
Why the weights carry over: under ``F`` every row's keys are all tokens 0..N+1, a superset of
the global row of EOS by one key (EOS itself, whose value and score are those of a non-a
letter), so each head's output is the head lemma's m ≥ 1/2 (a occurs) or m ≤ 0 (it does not)
whenever N + 2 ≤ e^λ/2, *at every token*; the FFN rounds it to the same bit at every token,
so the classifier's input is the same at EOS, at CLS and averaged over all tokens. With
length-aware logits (``attention_scale``) the satisfying keys score λ·log(N + 2) and the lemma
holds at every length (docs/theory.md §9: N^{λ−1} ≥ 2θ for every N ≥ 2).

The same one-layer model over ``W1`` heads reads, at CLS, the keys {0, 1}: the bit of letter a
is [w₁ = a], so ``W1``@cls recognizes every language fixed by its first symbol (reverse
definite of degree ≤ 1, `algebra.encoder_families.reverse_definite_degree`); at EOS the keys
{N, N+1}: [w_N = a], every language fixed by its last symbol (definite of degree ≤ 1). The
head lemma needs only two keys there. Deeper prefixes need the index-learning layers of
Proposition 13.4' and are not constructed. One weight
changes: the planner marks BOS (its ``bos`` coordinate) to force every value to 0 there, as a
causal BOS reads nothing; under ``F`` BOS reads every token like the others, so the mark is
cleared and BOS computes the same bits as every other token.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import torch

from expressivity.algebra.commutative import is_alphabet_testable
from expressivity.algebra.encoder_families import definite_degree, reverse_definite_degree
from expressivity.automata.dfa import DFA
from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.logic import syntax as s
from expressivity.logic import temporal as tl
from expressivity.models.construct.build import DEFAULT_SHARPNESS, construct
from expressivity.models.construct.constructed import ConstructedModel
from expressivity.models.readout import Readout
from expressivity.models.scaling import AttentionScale
from expressivity.models.tokens import bos_id
from expressivity.models.transformer import Recognizer

__all__ = ["CONSTRUCTIBLE", "MAX_LETTERS", "construct_encoder", "presence_formula"]

#: (layout, readout) pairs constructed, and what the readout token's bit of letter a says.
CONSTRUCTIBLE = {
    ("F", "eos"): "a occurs", ("F", "cls"): "a occurs", ("F", "mean"): "a occurs",
    ("W1", "cls"): "the first symbol is a", ("W1", "eos"): "the last symbol is a",
}
#: Letters a presence formula may range over (it has up to 2^|Σ| disjuncts).
MAX_LETTERS = 10


def presence_formula(dfa: DFA, layout: str = "F", readout: str = "eos") -> s.Formula:
    """⋁ over the accepted bit patterns S of ⋀_{a∈S} P a ∧ ⋀_{a∉S} ¬P a, where P a is read at
    the readout token (module docstring); `UnsupportedFragmentError` when L is not a union of
    classes of those bits."""
    symbols = dfa.alphabet.symbols
    if len(symbols) > MAX_LETTERS:
        raise ConfigError(f"construct_encoder: at most {MAX_LETTERS} letters (2^|Σ| letter sets;"
                          f" MAX_LETTERS), got {len(symbols)}")
    _check_class(dfa, layout, readout)
    if layout == "F":
        patterns = list(itertools.product((False, True), repeat=len(symbols)))
    else:  # one letter (or none, ε) at the key the readout reads
        patterns = [tuple(b == a for b in symbols) for a in (None, *symbols)]
    terms: list[s.Formula] = []
    for bits in patterns:
        word = tuple(a for a, on in zip(symbols, bits, strict=True) if on)
        if not dfa.accepts(word):
            continue
        lits: list[s.Formula] = [tl.Past(s.Symbol(a)) if on else s.Not(tl.Past(s.Symbol(a)))
                                 for a, on in zip(symbols, bits, strict=True)]
        terms.append(_fold(lits, s.And))
    return _fold(terms, s.Or) if terms else s.Bottom()


def _check_class(dfa: DFA, layout: str, readout: str) -> None:
    if layout == "F":
        verdict = is_alphabet_testable(dfa)
        if verdict is not True:
            raise UnsupportedFragmentError(
                "an unmasked (F) encoder reads only which letters occur (docs/theory.md §13), "
                f"and this language depends on more: {verdict.describe()}")
        return
    degree = (reverse_definite_degree if readout == "cls" else definite_degree)(dfa)
    if degree is None or degree > 1:
        side = "first" if readout == "cls" else "last"
        raise UnsupportedFragmentError(
            f"W1@{readout} is constructed for languages fixed by the {side} symbol; this one "
            + ("needs more symbols (degree " + str(degree) + "; docs/theory.md §13, "
               "Proposition 13.4', proves a deeper recognizer exists)" if degree is not None
               else f"is not fixed by any bounded {'prefix' if readout == 'cls' else 'suffix'}"))


def _fold(items: list[s.Formula], op: type) -> s.Formula:
    out = items[0]
    for item in items[1:]:
        out = op(out, item)
    return out


def construct_encoder(dfa: DFA, layout: str = "F", readout: Readout = "eos", *,
                      sharpness: float = DEFAULT_SHARPNESS,
                      attention_scale: AttentionScale = "none") -> ConstructedModel:
    """A one-layer encoder over ``layout`` heads read out at ``readout`` that recognizes L(dfa)
    (module docstring; the pairs of `CONSTRUCTIBLE`); `UnsupportedFragmentError` with the
    reason when L is outside what that readout token reads. ``attention_scale`` builds the
    same weights into a length-aware model, exact at every length (docs/theory.md §9)."""
    if (layout, readout) not in CONSTRUCTIBLE:
        served = ", ".join(f"{lay}@{ro}" for lay, ro in CONSTRUCTIBLE)
        raise ConfigError(f"construct_encoder: {layout}@{readout} is not constructed (served: "
                          f"{served})")
    formula = presence_formula(dfa, layout, readout)
    base = construct(formula, dfa.alphabet, "global", sharpness=sharpness,
                     attention_scale=attention_scale)
    config = replace(base.model.config, layout=layout, readout=readout)
    model = Recognizer(config, len(dfa.alphabet))
    model.load_state_dict(base.model.state_dict())
    with torch.no_grad():
        model.embed.weight[bos_id(len(dfa.alphabet)), base.coordinates.index("bos")] = 0.0
    model.eval()
    heads = tuple(replace(h, pattern=layout) for h in base.heads)
    return replace(base, model=model, heads=heads)
