"""Test helpers: all words of a length, and a batch reference evaluator of formulas over them.

`batch_accepts` evaluates a formula on *every* word of one length at once, straight from the
definitions of docs/theory.md §2 (one numpy array of shape (words, positions) per subformula; S and
U by their quantifier definitions, not by recurrences). It is independent of the compiler and
is itself checked against the naive `logic.semantics.accepts` (test_reference.py), so the
large property tests can compare 500+ formulas against it cheaply.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.logic import syntax as s
from expressivity.logic import temporal as tl


@cache
def all_codes(k: int, n: int) -> np.ndarray:
    """Every word of length ``n`` over ``k`` symbols, as rows of codes in lexicographic order."""
    if n == 0:
        return np.zeros((1, 0), dtype=np.int64)
    return np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64)


@cache
def all_words(alphabet: Alphabet, max_len: int) -> tuple[tuple[str, ...], ...]:
    """Every word of length ≤ ``max_len``, shortest first, lexicographic within a length."""
    return tuple(
        w for n in range(max_len + 1) for w in itertools.product(alphabet.symbols, repeat=n)
    )


@cache
def word_lengths(k: int, max_len: int) -> np.ndarray:
    """Lengths of the words of `all_words` (for an alphabet of ``k`` symbols)."""
    return np.repeat(np.arange(max_len + 1), [k**n for n in range(max_len + 1)])


def dfa_language(dfa: DFA, max_len: int) -> np.ndarray:
    """Membership of every word of length ≤ ``max_len`` (order of `all_words`), vectorized."""
    k = dfa.n_symbols
    return np.concatenate([dfa.accepts_codes(all_codes(k, n)) for n in range(max_len + 1)])


def formula_language(formula: s.Formula, alphabet: Alphabet, max_len: int) -> np.ndarray:
    """Membership in L(φ) of every word of length ≤ ``max_len`` (order of `all_words`)."""
    return np.concatenate([batch_accepts(formula, alphabet, n) for n in range(max_len + 1)])


def batch_accepts(formula: s.Formula, alphabet: Alphabet, n: int) -> np.ndarray:
    """Whether each word of length ``n`` (order of `all_codes`) is in L(φ)."""
    codes = all_codes(len(alphabet), n)
    memo: dict[s.Formula, np.ndarray] = {}
    return _truth(formula, codes, alphabet, memo)[:, n]


def _truth(
    f: s.Formula, codes: np.ndarray, alphabet: Alphabet, memo: dict[s.Formula, np.ndarray]
) -> np.ndarray:
    """(words, N+1) truth table; column j is position j+1 (column N is EOS)."""
    if f in memo:
        return memo[f]
    w, n = codes.shape
    last = n  # column of the EOS position

    def go(g: s.Formula) -> np.ndarray:
        return _truth(g, codes, alphabet, memo)

    def cols(fill: bool) -> np.ndarray:
        return np.full((w, n + 1), fill, dtype=bool)

    match f:
        case s.Symbol(name):
            out = cols(False)
            out[:, :n] = codes == alphabet.index(name)
        case s.Top():
            out = cols(True)
        case s.Bottom():
            out = cols(False)
        case s.Start():
            out = cols(False)
            out[:, 0] = True
        case s.Eos():
            out = cols(False)
            out[:, last] = True
        case s.Mod(modulus, residue):
            out = cols(False)
            out[:, np.arange(1, n + 2) % modulus == residue] = True
        case s.Not(a):
            out = ~go(a)
        case s.And(a, b):
            out = go(a) & go(b)
        case s.Or(a, b):
            out = go(a) | go(b)
        case s.Implies(a, b):
            out = ~go(a) | go(b)
        case s.Iff(a, b):
            out = go(a) == go(b)
        case tl.Past(a):
            v, out = go(a), cols(False)
            for j in range(n + 1):
                out[:, j] = v[:, :j].any(axis=1)
        case tl.Historically(a):
            v, out = go(a), cols(True)
            for j in range(n + 1):
                out[:, j] = v[:, :j].all(axis=1)
        case tl.Yesterday(a, k):
            v, out = go(a), cols(False)
            if k <= n:
                out[:, k:] = v[:, : n + 1 - k]
        case tl.BoundedPast(a, k):
            v, out = go(a), cols(False)
            for j in range(n + 1):
                out[:, j] = v[:, max(0, j - k) : j].any(axis=1)
        case tl.Since(a, b):
            va, vb, out = go(a), go(b), cols(False)
            for j in range(n + 1):
                for m in range(j):
                    out[:, j] |= vb[:, m] & va[:, m + 1 : j].all(axis=1)
        case tl.Next(a):
            v, out = go(a), cols(False)
            out[:, :last] = v[:, 1:]
        case tl.WeakNext(a):
            v, out = go(a), cols(True)
            out[:, :last] = v[:, 1:]
        case tl.Eventually(a):
            v, out = go(a), cols(False)
            for j in range(n + 1):
                out[:, j] = v[:, j + 1 :].any(axis=1)
        case tl.Globally(a):
            v, out = go(a), cols(True)
            for j in range(n + 1):
                out[:, j] = v[:, j + 1 :].all(axis=1)
        case tl.Until(a, b):
            va, vb, out = go(a), go(b), cols(False)
            for j in range(n + 1):
                for m in range(j + 1, n + 1):
                    out[:, j] |= vb[:, m] & va[:, j + 1 : m].all(axis=1)
        case _:
            raise TypeError(f"not a formula node: {f!r}")
    memo[f] = out
    return out
