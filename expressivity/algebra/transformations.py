"""Transformations of a finite state set as numpy rows: batched products, powers, index, period.

A transformation ``f`` of the states ``0 .. n-1`` is stored as a row with ``f[q] = q·f``; the
product ``s·t`` (first ``s``, then ``t``) is the row ``f_t[f_s]``. `compose` and `power` take
batches of rows (the last axis is the state), `index_and_period` and `omega_exponent` one row;
`RowKeys` hashes rows exactly, for deduplication and lookup.
"""

from __future__ import annotations

from math import gcd

import numpy as np

__all__ = ["RowKeys", "compose", "index_and_period", "omega_exponent", "power"]


def compose(first: np.ndarray, then: np.ndarray) -> np.ndarray:
    """Row-wise product of transformation batches: ``out[i] = then[i][first[i]]`` (first, then)."""
    return np.take_along_axis(then, first.astype(np.intp, copy=False), axis=-1)


def power(rows: np.ndarray, exponent: int) -> np.ndarray:
    """Each row raised to ``exponent`` ≥ 1, by repeated squaring over the whole batch."""
    assert exponent >= 1
    result: np.ndarray | None = None
    base = rows
    while exponent:
        if exponent & 1:
            result = base if result is None else compose(result, base)
        exponent >>= 1
        if exponent:
            base = compose(base, base)
    assert result is not None
    return result


def index_and_period(row: np.ndarray) -> tuple[int, int]:
    """The index i ≥ 1 and period p of one transformation f: f^(i+p) = f^i, both least."""
    n = len(row)
    f = row.astype(np.intp)
    # after n steps every state is on a cycle of f
    index, period = 1, 1
    for q in range(n):
        seen: dict[int, int] = {}
        x, t = q, 0
        while x not in seen:
            seen[x] = t
            x, t = int(f[x]), t + 1
        index = max(index, seen[x])
        cyc = t - seen[x]
        period = period * cyc // gcd(period, cyc)
    return max(index, 1), period


def omega_exponent(row: np.ndarray, at_least: int = 1) -> int:
    """The least multiple of the period that is ≥ max(index, at_least): f^K = f^ω."""
    index, period = index_and_period(row)
    low = max(index, at_least, 1)
    return -(-low // period) * period


class RowKeys:
    """Exact hashing of transformation rows: one int64 per row (base n) or a void byte key."""

    def __init__(self, n_states: int) -> None:
        self.n = n_states
        self.small = n_states <= 15  # n^n < 2^63
        self.weights = np.array(
            [n_states**q for q in range(n_states)] if self.small else [], dtype=np.int64
        )

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        if self.small:
            return rows.astype(np.int64) @ self.weights
        raw = np.ascontiguousarray(rows)
        return raw.view(np.dtype((np.void, raw.dtype.itemsize * self.n))).ravel()
