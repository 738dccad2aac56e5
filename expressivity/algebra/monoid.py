"""The transition semigroup S (image of Σ⁺) and monoid M = S¹ of a DFA, enumerated with numpy.

An element is a transformation of the states, stored as a row ``f`` with ``f[q] = q·s``; the
product ``s·t`` (first ``s``, then ``t``) is the row ``f_t[f_s]``. Elements are enumerated
breadth-first, a whole level at a time: every frontier row is composed with every letter in one
numpy gather and the candidates are deduplicated by hashing rows (an int64 key per row when
the states fit, byte keys otherwise). Index ``i`` therefore carries the shortlex-least word
representing it; rows ``0 .. |S|-1`` are S, and the identity of M is either one of them (when
some non-empty word acts as the identity) or the extra last row with the empty word. The row
arithmetic (`compose`, `power`, `index_and_period`, `omega_exponent`) and the row keys
(`RowKeys`) live in `algebra.transformations`; the arithmetic is re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from expressivity.algebra.green import GreenRelations
from expressivity.algebra.transformations import (
    RowKeys,
    compose,
    index_and_period,
    omega_exponent,
    power,
)
from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.errors import SemigroupTooLargeError

__all__ = ["MAX_SIZE", "TransitionSemigroup", "compose", "index_and_period", "omega_exponent",
           "power", "transition_semigroup"]

#: Default bound on |S|; past it `transition_semigroup` raises `SemigroupTooLargeError`.
MAX_SIZE = 250_000


@dataclass(frozen=True, eq=False)
class TransitionSemigroup:
    """S and M of ``dfa`` (assumed minimal complete): rows, words, right Cayley table.

    ``elements[i]`` is the transformation of element ``i``; ``word(i)`` its shortlex-least word;
    ``right[i, a]`` the index of ``i·a``; ``left[i, a]`` that of ``a·i``. Indices below
    `semigroup_size` form S; `identity` is the index of 1 in M.
    """

    dfa: DFA
    elements: np.ndarray
    right: np.ndarray
    parent: np.ndarray
    letter: np.ndarray
    semigroup_size: int
    identity: int
    _sorted_keys: np.ndarray = field(repr=False)
    _sorted_index: np.ndarray = field(repr=False)

    @property
    def size(self) -> int:
        """|M|, the number of rows (S plus the identity if it had to be adjoined)."""
        return int(self.elements.shape[0])

    @property
    def identity_in_semigroup(self) -> bool:
        """Whether some non-empty word acts as the identity (then S = M)."""
        return self.identity < self.semigroup_size

    def __repr__(self) -> str:
        return (
            f"TransitionSemigroup(|S|={self.semigroup_size}, |M|={self.size}, "
            f"states={self.dfa.n_states}, alphabet={self.dfa.alphabet})"
        )

    # ---------------------------------------------------------------- words and lookup
    def word(self, i: int) -> Word:
        """The shortlex-least word representing element ``i`` (non-empty for i in S)."""
        codes: list[int] = []
        i = int(i)
        while i >= 0 and self.letter[i] >= 0:
            codes.append(int(self.letter[i]))
            i = int(self.parent[i])
        return self.dfa.alphabet.decode(reversed(codes))

    def index_of(self, rows: np.ndarray) -> np.ndarray:
        """Indices of transformation rows (each must be an element of M)."""
        rows = np.atleast_2d(rows)
        keys = RowKeys(self.dfa.n_states)(rows.astype(self.elements.dtype))
        pos = np.searchsorted(self._sorted_keys, keys)
        pos = np.minimum(pos, len(self._sorted_keys) - 1)
        if not np.all(self._sorted_keys[pos] == keys):
            raise ValueError("a row is not an element of this transition monoid")
        return self._sorted_index[pos]

    def element_of(self, word: Word) -> int:
        """The index of the element a word represents (the empty word is the identity)."""
        i = self.identity
        for s in word:
            i = int(self.right[i, self.dfa.alphabet.index(s)])
        return i

    def row_of_word(self, word: Word) -> np.ndarray:
        """The transformation of a word, computed directly on the DFA (no table lookup)."""
        row = np.arange(self.dfa.n_states)
        for s in word:
            row = self.dfa.transitions[row, self.dfa.alphabet.index(s)]
        return row

    # ---------------------------------------------------------------- products
    def product(self, i: int, j: int) -> int:
        """The index of s_i · s_j."""
        return int(self.products(np.array([i]), np.array([j]))[0])

    def products(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Vectorized products s_i · s_j over index arrays of equal shape."""
        return self.index_of(compose(self.elements[i], self.elements[j]))

    def cayley_table(self, max_size: int = 4096) -> np.ndarray:
        """The full |M|×|M| multiplication table (only for |M| ≤ ``max_size``)."""
        m = self.size
        if m > max_size:
            raise SemigroupTooLargeError(
                f"a full Cayley table of {m} elements is too large (max_size={max_size}); "
                "use products() on the pairs you need"
            )
        ii, jj = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
        return self.products(ii.ravel(), jj.ravel()).reshape(m, m)

    @cached_property
    def left(self) -> np.ndarray:
        """``left[i, a]`` = index of ``a·s_i`` (left Cayley table)."""
        t = self.dfa.transitions
        cols = [self.index_of(self.elements[:, t[:, a]]) for a in range(self.dfa.n_symbols)]
        return np.stack(cols, axis=1)

    @cached_property
    def green(self) -> GreenRelations:
        """Green's relations of M (computed on first use)."""
        return GreenRelations(self)

    # ---------------------------------------------------------------- powers
    @cached_property
    def idempotent(self) -> np.ndarray:
        """Boolean mask of the idempotents e = e·e of M."""
        return np.all(compose(self.elements, self.elements) == self.elements, axis=1)

    @cached_property
    def omega(self) -> np.ndarray:
        """``omega[i]`` = index of s_i^ω, the idempotent power of s_i."""
        n = self.dfa.n_states
        base = power(self.elements, max(n, 1))  # in the cyclic group part of every element
        out = np.full(self.size, -1, dtype=np.int64)
        cur, todo = base, np.arange(self.size)
        while len(todo):  # at most the largest period (Landau's function of n) rounds
            done = np.all(compose(cur, cur) == cur, axis=1)
            if done.any():
                out[todo[done]] = self.index_of(cur[done])
            todo, cur, base = todo[~done], compose(cur[~done], base[~done]), base[~done]
        return out

    def is_aperiodic_element(self) -> np.ndarray:
        """Mask of elements with x^ω = x^(ω+1) (x^n = x^(n+1) for n states)."""
        base = power(self.elements, max(self.dfa.n_states, 1))
        return np.all(compose(base, self.elements) == base, axis=1)


def transition_semigroup(dfa: DFA, max_size: int = MAX_SIZE) -> TransitionSemigroup:
    """Enumerate S and M of ``dfa`` breadth-first (see module docstring).

    Decide classes on the **minimal complete** DFA (`classify` minimizes first). Raises
    `SemigroupTooLargeError` once |S| exceeds ``max_size``.
    """
    n, k = dfa.n_states, dfa.n_symbols
    dtype = np.uint8 if n <= 256 else np.int32
    keys_of = RowKeys(n)
    gens = np.ascontiguousarray(dfa.transitions.T.astype(dtype))  # (k, n): row of each letter
    table = _Interner(keys_of, max_size, n)
    table.admit(gens, np.full(k, -1, dtype=np.int64), np.arange(k, dtype=np.int64))
    right = np.full((max(table.size, 1), k), -1, dtype=np.int64)
    frontier = np.arange(table.size)
    while len(frontier):
        level_start = table.size
        base = table.rows[frontier].astype(np.intp)
        cand = gens[:, base].transpose(1, 0, 2).reshape(-1, n)  # (p, a) pairs, p-major
        idx = table.admit(
            cand, np.repeat(frontier, k), np.tile(np.arange(k, dtype=np.int64), len(frontier))
        )
        if table.size > right.shape[0]:
            right = np.vstack([right, np.full((table.size - right.shape[0], k), -1, np.int64)])
        right[frontier] = idx.reshape(-1, k)
        frontier = np.arange(level_start, table.size)
    semigroup_size = table.size
    ident = np.arange(n, dtype=dtype)[None, :]
    found = table.lookup(keys_of(ident))
    if found[0] >= 0:
        identity = int(found[0])
    else:  # adjoin 1: M = S ∪ {1}
        identity = table.size
        table.admit(ident, np.array([-1]), np.array([-1]))
        right = np.vstack([right, table.lookup(keys_of(gens))[None, :]])
    elements = table.rows
    elements.setflags(write=False)
    return TransitionSemigroup(
        dfa=dfa,
        elements=elements,
        right=right,
        parent=table.parent,
        letter=table.letter,
        semigroup_size=semigroup_size,
        identity=identity,
        _sorted_keys=table.keys,
        _sorted_index=table.index,
    )


class _Interner:
    """The growing set of rows: sorted keys for vectorized lookup, rows in admission order."""

    def __init__(self, keys_of: RowKeys, max_size: int, n: int) -> None:
        self.keys_of, self.max_size, self.n = keys_of, max_size, n
        self.rows = np.empty((0, n), dtype=np.uint8 if n <= 256 else np.int32)
        self.parent = np.empty(0, dtype=np.int64)
        self.letter = np.empty(0, dtype=np.int64)
        self.keys = keys_of(self.rows)
        self.index = np.empty(0, dtype=np.int64)

    @property
    def size(self) -> int:
        return int(self.rows.shape[0])

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Indices of known keys, −1 for unknown ones."""
        if not len(self.keys):
            return np.full(len(keys), -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.where(self.keys[pos] == keys, self.index[pos], -1)

    def admit(self, cand: np.ndarray, par: np.ndarray, let: np.ndarray) -> np.ndarray:
        """Intern candidate rows; new ones get indices in candidate order. Return all indices."""
        keys = self.keys_of(cand)
        idx = self.lookup(keys)
        new = np.flatnonzero(idx < 0)
        uniq, first, inverse = np.unique(keys[new], return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")  # first occurrences, in candidate order
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        idx[new] = self.size + rank[inverse.ravel()]
        chosen = new[first[order]]
        if self.size + len(chosen) > self.max_size:
            raise SemigroupTooLargeError(
                f"the transition semigroup of this {self.n}-state DFA has more than "
                f"{self.max_size} elements; pass a larger max_size, or use the depth-bounded "
                "type automata (algebra.types), which need no semigroup"
            )
        merged_keys = np.concatenate([self.keys, uniq])
        merged_index = np.concatenate([self.index, self.size + rank])
        sort = np.argsort(merged_keys, kind="stable")
        self.keys, self.index = merged_keys[sort], merged_index[sort]
        self.rows = np.concatenate([self.rows, cand[chosen].astype(self.rows.dtype)])
        self.parent = np.concatenate([self.parent, par[chosen]])
        self.letter = np.concatenate([self.letter, let[chosen]])
        return idx
