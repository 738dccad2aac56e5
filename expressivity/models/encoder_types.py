"""Encoder layer types from raw bidirectional masks, read at EOS, CLS, the mean or the last token.

The reference for docs/theory.md §13, generalizing `models.layer_types` (causal masks, EOS
readout) to any mask and any readout. Tokens are ``[CLS = BOS, w1..wN, SEP = EOS]`` with
indices 0..N+1. A token's type after layer 0 is the token; after layer ℓ it is its type after
layer ℓ − 1 and, for every distinct head mask of layer ℓ, the *set* of layer-(ℓ − 1) types at
the keys of its row (reading model A of §6: a fixed-precision NoPE head reads a function of
the set of values at its keys; an empty row reads the empty set, a constant). The **readout
type** after d layers is what the classifier sees under A:

- ``eos``: the type of token N+1; ``cls``: of token 0; ``last``: of token N (token 0 for ε);
- ``mean``: the *set* of the types of tokens 0..N+1 (mean pooling is a uniform average, which
  under A reads the set of values, like an unmasked head).

So two words with one readout type after d layers are told apart by no d-layer encoder with
those masks and that readout: the certificate behind "not at depth d". The masks come in as
a function (`MaskFn`) from the number of tokens to, per layer, the distinct head masks (boolean
(T, T) arrays, row = query): the registry's ``allowed`` or a test's explicit reference.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np

from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.errors import ConfigError
from expressivity.models.layer_types import MAX_WORDS, Interner, short_words
from expressivity.models.readout import READOUTS, Readout

__all__ = [
    "READOUTS",
    "MaskFn",
    "MaskTypes",
    "Readout",
    "agree_after",
    "check_readout",
    "encoder_types",
    "readout_conflict",
    "readout_position",
    "readout_type",
]

#: Number of tokens -> per layer, the distinct head masks of that layer (bool (T, T), row =
#: query); layer ℓ of a deeper network uses entry ℓ mod the number of entries (layers repeat).
MaskFn = Callable[[int], Sequence[Sequence[np.ndarray]]]


def check_readout(readout: str) -> Readout:
    """``readout`` as a `Readout`, or a `ConfigError` listing the choices."""
    if readout not in READOUTS:
        raise ConfigError(f"readout: unknown value {readout!r}; choose one of "
                          f"{', '.join(READOUTS)} (eos is the default)")
    return readout  # type: ignore[return-value]


def readout_position(n_symbols: int, readout: Readout) -> int | None:
    """The token index a readout reads (None for ``mean``): EOS N+1, CLS 0, last N (0 for ε)."""
    return {"eos": n_symbols + 1, "cls": 0, "last": n_symbols, "mean": None}[readout]


def encoder_types(word: Sequence[str], masks: MaskFn, n_layers: int,
                  intern: Interner | None = None) -> list[list[int]]:
    """Per layer 0..n_layers, the type ids of tokens ``[BOS, w1..wN, EOS]`` (module docstring);
    share one ``intern`` to compare words."""
    intern = intern if intern is not None else Interner()
    out = [_tokens(word, intern)]
    rows = _key_rows(masks, len(word) + 2)
    for layer in range(n_layers):
        out.append(_step(out[-1], rows[layer % len(rows)], intern))
    return out


def _tokens(word: Sequence[str], intern: Interner) -> list[int]:
    tokens: list[Hashable] = ["<bos>", *word, "<eos>"]
    return [intern(("token", t)) for t in tokens]


def _key_rows(masks: MaskFn, length: int) -> list[list[list[tuple[int, ...]]]]:
    """Per layer, per head, per query: the keys of its mask row."""
    layers = masks(length)
    if not layers:
        raise ConfigError("the masks have no layers")
    return [[[tuple(np.flatnonzero(mask[n]).tolist()) for n in range(length)] for mask in row]
            for row in layers]


def _step(types: list[int], keys: list[list[tuple[int, ...]]], intern: Interner) -> list[int]:
    return [intern((types[n], tuple(frozenset(types[m] for m in k[n]) for k in keys)))
            for n in range(len(types))]


def readout_type(word: Sequence[str], masks: MaskFn, n_layers: int, readout: Readout,
                 intern: Interner) -> int:
    """The id of what the classifier reads after ``n_layers`` layers (module docstring)."""
    types = encoder_types(word, masks, n_layers, intern)[n_layers]
    at = readout_position(len(word), readout)
    if at is None:
        return intern(("mean", frozenset(types)))
    return types[at]


class MaskTypes:
    """The `algebra.encoder_families.EncoderTypes` of a layout from its raw masks: readout types
    and all positions' types, comparable across calls (one shared interner; the key rows of
    each length and the layers computed for each word are kept)."""

    def __init__(self, masks: MaskFn, readout: Readout, period: int) -> None:
        self.masks, self.readout_kind, self.period = masks, readout, period
        self.intern = Interner()
        self._rows: dict[int, list[list[list[tuple[int, ...]]]]] = {}
        self._layers: dict[tuple[str, ...], list[list[int]]] = {}

    def layers(self, word: Word, n_layers: int) -> list[list[int]]:
        word = tuple(word)
        rows = self._rows.get(len(word) + 2)
        if rows is None:
            rows = self._rows[len(word) + 2] = _key_rows(self.masks, len(word) + 2)
        out = self._layers.setdefault(word, [_tokens(word, self.intern)])
        while len(out) <= n_layers:
            out.append(_step(out[-1], rows[(len(out) - 1) % len(rows)], self.intern))
        return out[: n_layers + 1]

    def readout(self, word: Word, n_layers: int) -> Hashable:
        return self.read(word, self.layers(word, n_layers)[n_layers])

    def read(self, word: Word, types: list[int]) -> Hashable:
        """The readout of one layer's types of ``word``."""
        at = readout_position(len(word), self.readout_kind)
        return self.intern(("mean", frozenset(types))) if at is None else types[at]


def agree_after(u: Sequence[str], v: Sequence[str], masks: MaskFn, n_layers: int,
                readout: Readout) -> bool:
    """Whether u and v share their readout type after ``n_layers`` layers (the certificate
    check of every "no")."""
    intern = Interner()
    return (readout_type(u, masks, n_layers, readout, intern)
            == readout_type(v, masks, n_layers, readout, intern))


def readout_conflict(dfa: DFA, masks: MaskFn, n_layers: int, readout: Readout, *,
                     max_words: int = MAX_WORDS,
                     words: Sequence[Word] | None = None) -> tuple[Word, Word] | None:
    """Two words, the first in L(dfa) and the second not, with one readout type after
    ``n_layers`` layers, among ``words`` (default: `short_words`, at most ``max_words``)."""
    pool = short_words(dfa.alphabet.symbols, max_words) if words is None else words
    intern = Interner()
    first: dict[int, dict[bool, Word]] = {}
    for w in pool:
        seen = first.setdefault(readout_type(w, masks, n_layers, readout, intern), {})
        seen.setdefault(dfa.accepts(w), tuple(w))
        if len(seen) == 2:
            return seen[True], seen[False]
    return None
