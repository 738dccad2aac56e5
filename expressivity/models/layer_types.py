"""Layer types from the raw masks: what a network of d attention layers can compute at EOS.

The reference for docs/theory.md §8. Tokens are ``[BOS, w1..wN, EOS]``; a token's type after
layer 0 is the token itself (NoPE: nothing else is known); after layer ℓ it is its type after
layer ℓ − 1 (the residual) and, for every distinct head pattern of layer ℓ, the *set* of
types after layer ℓ − 1 at the keys its mask row allows (sink rule applied: an empty row reads
BOS). Under the reading model of docs/theory.md §6 (assumption A) the layer-ℓ vector of a token
is a function of this type (induction on ℓ: the FFN and the residual act on the token's own
vector and what its heads read, and each head reads a function of the set of values at its
keys), so two words with one EOS type after layer d are told apart by **no** d-layer network
with that layout: the certificate behind "not at depth d". Nothing here goes through the
operators of `algebra.operators`: the masks are the ones the models use (`models.layouts`).
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import torch

from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.errors import ConfigError
from expressivity.models.layouts import Layout, Pattern, parse_layout

__all__ = [
    "MAX_WORDS",
    "Interner",
    "agree_after",
    "eos_layer_type",
    "layer_conflict",
    "layer_layout",
    "layer_types",
    "short_words",
]

#: How many short words `layer_conflict` compares at most (all words up to the longest length
#: whose words, with the shorter ones, fit): a bound on hostile alphabets.
MAX_WORDS = 1_500
#: Heads per layer a layout spelling is read with when none is given (docs/theory.md §5).
N_HEADS = 8


@dataclass
class Interner:
    """Numbers nested type values, so types of many words compare as small integers."""

    ids: dict[Hashable, int] = field(default_factory=dict)

    def __call__(self, value: Hashable) -> int:
        return self.ids.setdefault(value, len(self.ids))


def layer_layout(text: str, n_layers: int, n_heads: int = N_HEADS, seed: int = 0) -> Layout:
    """The layout a model of this size builds from ``text`` (`ConfigError` on a bad spelling)."""
    if n_layers < 1:
        raise ConfigError(f"a layout needs at least one layer, got n_layers={n_layers}")
    return parse_layout(text, n_layers, n_heads, seed=seed)


@lru_cache(maxsize=4096)
def _rows(pattern: Pattern, length: int) -> tuple[tuple[int, ...], ...]:
    """The keys of every row of ``pattern``'s mask (sink rule applied) for ``length`` tokens."""
    mask = pattern.mask(length)
    return tuple(tuple(torch.nonzero(mask[n]).flatten().tolist()) for n in range(length))


def layer_types(
    word: Sequence[str], layout: Layout, intern: Interner | None = None
) -> list[list[int]]:
    """Per layer 0..n_layers, the type ids of tokens ``[BOS, w1..wN, EOS]`` (see the module
    docstring), interned by ``intern`` (share one to compare words)."""
    intern = intern if intern is not None else Interner()
    tokens: list[Hashable] = ["<bos>", *word, "<eos>"]
    length = len(tokens)
    types = [intern(("token", t)) for t in tokens]
    out = [types]
    for row in layout.layers:
        patterns = list(dict.fromkeys(row))
        keys = [_rows(p, length) for p in patterns]
        types = [
            intern((types[n], tuple(frozenset(types[m] for m in k[n]) for k in keys)))
            for n in range(length)
        ]
        out.append(types)
    return out


def eos_layer_type(word: Sequence[str], layout: Layout, intern: Interner) -> int:
    """The EOS type id after the last layer of ``layout`` (ids compare within one ``intern``)."""
    return layer_types(word, layout, intern)[-1][-1]


def short_words(symbols: Sequence[str], max_words: int = MAX_WORDS) -> list[Word]:
    """All words by length (ε first) up to the longest length that keeps ≤ ``max_words``."""
    out: list[Word] = []
    for n in itertools.count():
        batch = [tuple(w) for w in itertools.product(symbols, repeat=n)]
        if len(out) + len(batch) > max_words:
            return out
        out.extend(batch)
    raise AssertionError("unreachable")


def layer_conflict(
    dfa: DFA, text: str, n_layers: int, *, n_heads: int = N_HEADS, seed: int = 0,
    max_words: int = MAX_WORDS,
) -> tuple[Word, Word] | None:
    """Two short words, the first in L(dfa), the second not, with one EOS type after
    ``n_layers`` layers of ``text`` (seed ``seed`` for random keys), or None among the words
    `short_words` gives. ``n_layers = 0``: every word has the EOS token as its type."""
    words = short_words(dfa.alphabet.symbols, max_words)
    if n_layers == 0:
        eos = {dfa.accepts(w): w for w in reversed(words)}
        return (eos[True], eos[False]) if len(eos) == 2 else None
    layout = layer_layout(text, n_layers, n_heads, seed)
    intern = Interner()
    first: dict[int, dict[bool, Word]] = {}
    for w in words:
        seen = first.setdefault(eos_layer_type(w, layout, intern), {})
        seen.setdefault(dfa.accepts(w), w)
        if len(seen) == 2:
            return seen[True], seen[False]
    return None


def agree_after(
    u: Sequence[str], v: Sequence[str], text: str, n_layers: int, *, n_heads: int = N_HEADS,
    seed: int = 0,
) -> bool:
    """Whether u and v share their EOS type after ``n_layers`` layers (the certificate check)."""
    if n_layers == 0:
        return True
    layout = layer_layout(text, n_layers, n_heads, seed)
    intern = Interner()
    return eos_layer_type(u, layout, intern) == eos_layer_type(v, layout, intern)
