"""Exact counts and lexicographic enumeration of the words a DFA accepts, length by length."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterator
from fractions import Fraction

import numpy as np

from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.errors import SamplingError

__all__ = [
    "codes_of_length",
    "completion_table",
    "count_table",
    "count_words",
    "density",
    "live_table",
    "log_count_table",
    "log_density",
    "words_of_length",
]

#: Largest number of words `codes_of_length` materializes before it refuses.
ENUMERATION_LIMIT = 1 << 24


def _check_length(length: int, name: str = "length") -> int:
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 0:
        raise SamplingError(f"{name} must be a non-negative integer, got {length!r}")
    return int(length)


def completion_table(dfa: DFA, max_len: int) -> np.ndarray:
    """``C[k, q]``: the number of words of length ``k`` accepted from state ``q``, ``k ≤ max_len``.

    Exact Python integers in an object array of shape ``(max_len + 1, n_states)``, read-only.
    Rows are computed in int64 while ``|Σ|^k < 2^62`` guarantees no overflow, then with
    arbitrary-precision integers: ``C[0] = accepting``, ``C[k][q] = Σ_a C[k-1][δ(q, a)]``.
    The longest table computed per DFA is cached (a few DFAs) and sliced for shorter requests.
    """
    max_len = _check_length(max_len, "max_len")
    cached = _CACHE.get(dfa)
    if cached is None or cached.shape[0] <= max_len:
        cached = _compute_table(
            dfa, max(max_len, 2 * (cached.shape[0] - 1) if cached is not None else 0)
        )
        _CACHE[dfa] = cached
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    _CACHE.move_to_end(dfa)
    view = cached[: max_len + 1]
    view.setflags(write=False)
    return view


_CACHE: OrderedDict[DFA, np.ndarray] = OrderedDict()
_CACHE_SIZE = 16


def _compute_table(dfa: DFA, max_len: int) -> np.ndarray:
    t = dfa.transitions
    n_symbols = dfa.n_symbols
    safe = max_len if n_symbols == 1 else int(62 / math.log2(n_symbols))
    table = np.empty((max_len + 1, dfa.n_states), dtype=object)
    row: np.ndarray = dfa.accepting.astype(np.int64)
    for k in range(max_len + 1):
        table[k] = row.astype(object) if row.dtype != object else row  # numpy int → Python int
        if k == max_len:
            break
        if k + 1 > safe and row.dtype != object:
            row = row.astype(object)
        row = row[t].sum(axis=1)
    table.setflags(write=False)
    return table


def count_words(dfa: DFA, length: int) -> int:
    """The exact number of words of length ``length`` that ``dfa`` accepts."""
    length = _check_length(length)
    return int(completion_table(dfa, length)[length, dfa.initial])


def count_table(dfa: DFA, max_len: int) -> np.ndarray:
    """Exact counts of accepted words of every length ``0..max_len`` (object array of ints)."""
    col = completion_table(dfa, max_len)[:, dfa.initial].copy()
    col.setflags(write=False)
    return col


def density(dfa: DFA, length: int) -> float:
    """The fraction ``count / |Σ|^length`` of words of length ``length`` that are accepted.

    Exactly rounded to float (it underflows to 0.0 only below ~1e-308; see `log_density`).
    """
    length = _check_length(length)
    return float(Fraction(count_words(dfa, length), dfa.n_symbols**length))


def log_count_table(dfa: DFA, max_len: int) -> np.ndarray:
    """Natural logs of the counts of accepted words of lengths ``0..max_len`` (float64).

    Computed entirely in log space (``logaddexp`` over successors), so it is cheap for lengths
    in the tens of thousands where exact integers grow long; ``-inf`` marks lengths with no
    member. Agrees with ``log(count_table)`` to float rounding.
    """
    max_len = _check_length(max_len, "max_len")
    t = dfa.transitions
    with np.errstate(divide="ignore"):
        row = np.log(dfa.accepting.astype(np.float64))
    out = np.empty(max_len + 1, dtype=np.float64)
    for k in range(max_len + 1):
        out[k] = row[dfa.initial]
        if k < max_len:
            row = np.logaddexp.reduce(row[t], axis=1)
    return out


def log_density(dfa: DFA, length: int) -> float:
    """``log(density)`` computed in log space (``-inf`` when no word of the length is accepted)."""
    length = _check_length(length)
    return float(log_count_table(dfa, length)[length] - length * math.log(dfa.n_symbols))


def live_table(dfa: DFA, max_len: int) -> np.ndarray:
    """``L[k, q]``: whether some word of length ``k`` is accepted from ``q`` (bool, read-only)."""
    max_len = _check_length(max_len, "max_len")
    t = dfa.transitions
    table = np.empty((max_len + 1, dfa.n_states), dtype=bool)
    row = dfa.accepting.copy()
    for k in range(max_len + 1):
        table[k] = row
        row = row[t].any(axis=1)
    table.setflags(write=False)
    return table


def words_of_length(dfa: DFA, length: int) -> Iterator[Word]:
    """Every accepted word of length ``length``, lazily, in lexicographic order of symbol codes.

    A depth-first walk that never enters a dead branch, so each word costs O(length) even
    when members are sparse.
    """
    length = _check_length(length)
    live = live_table(dfa, length)
    symbols = dfa.alphabet.symbols
    t = dfa.transitions
    if not live[length, dfa.initial]:
        return
    if length == 0:
        yield ()
        return
    word: list[int] = []
    states = [dfa.initial]
    stack = [0]  # next symbol to try at each depth
    while stack:
        depth = len(stack) - 1
        a = stack[-1]
        if a == len(symbols):
            stack.pop()
            states.pop()
            if word:
                word.pop()
            continue
        stack[-1] = a + 1
        q = int(t[states[-1], a])
        remaining = length - depth - 1
        if not live[remaining, q]:
            continue
        if remaining == 0:
            yield tuple(symbols[c] for c in [*word, a])
            continue
        word.append(a)
        states.append(q)
        stack.append(0)


def codes_of_length(dfa: DFA, length: int, limit: int = ENUMERATION_LIMIT) -> np.ndarray:
    """All accepted words of length ``length`` as a ``(count, length)`` int64 array, lexicographic.

    Built layer by layer (prefixes extended by each symbol in code order, dead ones dropped).
    Raises `SamplingError` when there are more than ``limit`` of them.
    """
    length = _check_length(length)
    total = count_words(dfa, length)
    if total > limit:
        raise SamplingError(
            f"{total} words of length {length} exceed the enumeration limit {limit}; "
            "sample them instead (expressivity.data.sampling)"
        )
    live = live_table(dfa, length)
    t = dfa.transitions
    words = np.zeros((1 if live[length, dfa.initial] else 0, 0), dtype=np.int64)
    states = np.full(words.shape[0], dfa.initial, dtype=np.int64)
    for i in range(length):
        nxt = t[states]  # (m, |Σ|) successor of each prefix on each symbol
        keep = live[length - i - 1][nxt]  # (m, |Σ|)
        rows, syms = np.nonzero(keep)  # row-major: prefix order, then symbol order
        words = np.concatenate([words[rows], syms[:, None].astype(np.int64)], axis=1)
        states = nxt[rows, syms]
    assert words.shape[0] == total
    return words
