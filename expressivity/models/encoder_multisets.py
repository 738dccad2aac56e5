"""Encoder types with multiplicities: which certificates hold for every precision, not only A.

`encoder_types` reads each row as the *set* of its keys' types (reading model A, docs/theory.md
§13). A NoPE soft-attention head in exact arithmetic computes, at query n, the softmax-weighted
average of its keys' values with scores q_n·k_m: a function of the query's vector and the
*multiset* of its keys' vectors. So the types below, where a row reads the multiset of its
keys' types (and ``mean`` the multiset of all tokens' types), are a function of nothing a
network of those masks can tell apart at any precision: two words with one multiset readout
type after d layers are separated by no d-layer NoPE encoder with those masks and readout,
however it rounds (`agree_with_multiplicities`). A pair that agrees under A but not here is a
certificate relative to A only: a float32 network can read the multiplicities of a bounded row
(docs/theory.md §15), and such a "no" may be beaten.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence

from expressivity.models.encoder_types import MaskFn, Readout, readout_position
from expressivity.models.layer_types import Interner

__all__ = ["agree_with_multiplicities", "multiset_readout"]


def multiset_readout(word: Sequence[str], masks: MaskFn, n_layers: int, readout: Readout,
                     intern: Interner) -> int:
    """The id of the readout after ``n_layers`` layers when every row reads the multiset of its
    keys' types (module docstring); share one ``intern`` to compare words."""
    length = len(word) + 2
    layers = masks(length)
    rows = [[[tuple(int(m) for m in mask[n].nonzero()[0]) for n in range(length)]
             for mask in row] for row in layers]
    tokens: list[Hashable] = ["<bos>", *word, "<eos>"]
    types = [intern(("token", t)) for t in tokens]
    for layer in range(n_layers):
        keys = rows[layer % len(rows)]
        types = [intern((types[n], tuple(_multiset(types[m] for m in k[n]) for k in keys)))
                 for n in range(length)]
    at = readout_position(len(word), readout)
    return intern(("mean", _multiset(types))) if at is None else types[at]


def _multiset(items: object) -> frozenset[tuple[int, int]]:
    return frozenset(Counter(items).items())  # type: ignore[call-overload]


def agree_with_multiplicities(u: Sequence[str], v: Sequence[str], masks: MaskFn, n_layers: int,
                              readout: Readout) -> bool:
    """Whether u and v share their multiset readout type after ``n_layers`` layers: then no
    NoPE encoder with these masks tells them apart, at any precision."""
    intern = Interner()
    return (multiset_readout(u, masks, n_layers, readout, intern)
            == multiset_readout(v, masks, n_layers, readout, intern))
