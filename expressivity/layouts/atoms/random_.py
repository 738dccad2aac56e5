"""``Rr``: BigBird random keys, r distinct earlier symbols per query drawn from the head's seed."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from expressivity.layouts.kind import AtomKind, Index, Reads
from expressivity.logic.operators import Head

__all__ = ["ATOM", "Random", "random_table"]


@lru_cache(maxsize=64)
def _table(length: int, r: int, seed: int) -> np.ndarray:
    keys = np.full((length, r), -1, dtype=np.int64)
    for n in range(2, length):
        # Row n depends only on (seed, n): masks of different lengths agree on their common prefix,
        # so a padded batch sees exactly the keys each string would see alone.
        rng = np.random.default_rng([seed, n])
        take = min(r, n - 1)
        keys[n, :take] = np.sort(1 + rng.choice(n - 1, size=take, replace=False))
    keys.setflags(write=False)
    return keys


def random_table(length: int, r: int, seed: int) -> np.ndarray:
    """Row ``n`` holds ``min(r, n−1)`` distinct keys from ``1..n−1`` (then −1); shape (T, r),
    read-only. Drawn once for the next power of two and cut: exact by prefix consistency, and
    the many lengths of an evaluation share one table."""
    return _table(1 << max(0, length - 1).bit_length(), r, seed)[:length]


def _like(n: Index, table: np.ndarray) -> Index:
    """``table`` as an array of ``n``'s library (a torch tensor on ``n``'s device, or numpy)."""
    return n.new_tensor(table) if hasattr(n, "new_tensor") else table


@dataclass(frozen=True)
class Random(AtomKind):
    """Key ``m`` is one of the drawn keys of row ``n`` (`random_table`)."""

    def allowed(self, n: Index, m: Index, params: tuple[int, ...], seed: int = 0,
                length: Index | None = None) -> Index:
        (r,) = params
        rows = int(n.max()) + 1 if len(n.reshape(-1)) else 1
        table = _like(n, random_table(rows, r, seed))
        return (table[n * (n >= 0)] == m[..., None]).any(-1) & (m >= 1)

    def reads(self, params: tuple[int, ...]) -> Reads:
        # seed-free part: a row n >= 2 has a key (min(r, n−1) >= 1 of them among 1..n−1)
        return Reads(Head(offsets=(1,), flag_only=True), seeded=True)

    def keys(self, n: int, length: int, params: tuple[int, ...], seed: int = 0) -> frozenset[int]:
        (r,) = params
        if n < 2:
            return frozenset()
        drawn = np.random.default_rng([seed, n]).choice(n - 1, size=min(r, n - 1), replace=False)
        return frozenset(int(x) + 1 for x in drawn)


ATOM = Random(letter="R", arity=1, spelling="Rr", meaning="r random keys", label="{} random",
              measure="random keys r", rank=4, small=((1, 4),))
