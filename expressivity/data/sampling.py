"""Exact uniform sampling of accepted words, many at once, by counting accepted completions.

A word of length n is drawn symbol by symbol: with k symbols left in state q, symbol a is
chosen with probability C[k-1, δ(q, a)] / C[k, q] (`automata.counting.completion_table`),
which makes every accepted word of length n exactly equally likely. Each choice compares a
53-bit uniform integer U with integer thresholds ``ceil(2^53 · cum_a / C[k, q])`` precomputed
from the exact counts, so the hot loop is int64 numpy over the whole batch; the rare U whose
interval [U, U+1)/2^53 straddles a boundary (probability < |Σ|/2^53 per symbol) is resolved
with further random bits in exact integer arithmetic. No floating point touches a probability.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from expressivity.automata.counting import codes_of_length, completion_table
from expressivity.automata.dfa import DFA
from expressivity.errors import SamplingError

__all__ = [
    "LengthDistribution",
    "Shortfall",
    "WordSampler",
    "code_dtype",
    "exact_choice",
    "length_weights",
    "sample_distinct",
    "sample_lengths",
    "within_class",
]

LengthDistribution = Literal["flare", "uniform", "members"]
Shortfall = Literal["error", "repeat", "truncate"]

_BITS = 53
_ONE = 1 << _BITS
_SENTINEL = _ONE + 1  # never equal to U + 1 ≤ 2^53
_CHUNK = 1 << 15  # rows per vectorized block (keeps the working set in cache)
#: Up to this many words of a length, `sample_distinct` enumerates instead of rejecting.
ENUMERATE_BELOW = 1 << 16


def code_dtype(n_symbols: int) -> type[np.signedinteger]:
    """The narrowest signed dtype holding symbol codes ``0..n_symbols-1`` (int8 or int16)."""
    return np.int8 if n_symbols <= 127 else np.int16


def _thresholds(weights: Sequence[int]) -> list[int]:
    """``ceil(2^53 · cum_j / total)`` for j = 1..m-1, then a sentinel; ``total > 0``."""
    total = sum(weights)
    out, cum = [], 0
    for w in weights[:-1]:
        cum += w
        out.append(-((-cum << _BITS) // total))
    out.append(_SENTINEL)
    return out


def _resolve(weights: Sequence[int], u: int, rng: np.random.Generator) -> int:
    """Exact choice for a 53-bit prefix ``u`` straddling a boundary: refine with more bits."""
    total = sum(weights)
    bounds, cum = [], 0
    for w in weights[:-1]:
        cum += w
        bounds.append(cum)
    bits = _BITS
    while True:
        lo, hi = u * total, (u + 1) * total  # the interval [u, u+1)/2^bits, scaled by total·2^bits
        scaled = [b << bits for b in bounds]
        if not any(lo < b < hi for b in scaled):
            return sum(1 for b in scaled if b <= lo)
        u = (u << 62) | int(rng.integers(0, 1 << 62))
        bits += 62


def exact_choice(weights: Sequence[int], n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` exact draws of index ``i`` with probability ``weights[i] / sum(weights)`` (int64)."""
    weights = [int(w) for w in weights]
    if not weights or min(weights) < 0 or sum(weights) == 0:
        raise SamplingError(f"weights must be non-negative with a positive sum, got {weights}")
    lo = np.array(_thresholds(weights), dtype=np.int64)
    rows = np.broadcast_to(lo, (n, lo.size))
    u = rng.integers(0, _ONE, size=n, dtype=np.int64)
    choice = (u[:, None] >= rows).sum(axis=1)
    for i in np.flatnonzero(u + 1 == lo[choice]):
        choice[i] = _resolve(weights, int(u[i]), rng)
    return choice.astype(np.int64)


@dataclass(frozen=True, eq=False)
class WordSampler:
    """Exact uniform sampler of the words of ``dfa`` of any length ``0..max_len``.

    Build once with `WordSampler.build` (O(max_len · states · |Σ|) big-integer work); draws
    are then int64 numpy over the batch. ``counts[k, q]`` are the exact completion counts and
    ``thresholds[k, q]`` the per-symbol integer thresholds (sentinel-terminated).
    """

    dfa: DFA
    max_len: int
    counts: np.ndarray  # (max_len + 1, states) object: exact completion counts
    thresholds: np.ndarray  # (max_len + 1, states, |Σ|) int64
    columns: tuple[np.ndarray, ...]  # thresholds[:, :, j].ravel() for j < |Σ| - 1 (contiguous)

    @classmethod
    def build(cls, dfa: DFA, max_len: int) -> WordSampler:
        """Precompute counts and thresholds for all lengths up to ``max_len``."""
        counts = completion_table(dfa, max_len)
        s, m = dfa.n_states, dfa.n_symbols
        thr = np.full((max_len + 1, s, m), _SENTINEL, dtype=np.int64)
        if m > 1 and max_len > 0:
            w = counts[:-1][:, dfa.transitions]  # (max_len, s, m): C[k-1, δ(q, a)]
            cum = np.cumsum(w, axis=2)[:, :, :-1]
            total = np.where(counts[1:] == 0, 1, counts[1:])[:, :, None]
            thr[1:, :, :-1] = (-((-cum * _ONE) // total)).astype(np.int64)
        thr.setflags(write=False)
        columns = tuple(np.ascontiguousarray(thr[:, :, j].ravel()) for j in range(m - 1))
        return cls(dfa, int(max_len), counts, thr, columns)

    def count(self, length: int) -> int:
        """Exact number of accepted words of ``length``."""
        self._check(length)
        return int(self.counts[length, self.dfa.initial])

    def _check(self, length: int) -> None:
        if not 0 <= length <= self.max_len:
            raise SamplingError(
                f"length {length} is outside this sampler's range 0..{self.max_len}; "
                "build a WordSampler with a larger max_len"
            )

    def _weights(self, k: int, q: int) -> list[int]:
        return [int(self.counts[k - 1, int(r)]) for r in self.dfa.transitions[q]]

    def sample(self, length: int, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` independent exactly-uniform accepted words of ``length``: ``(n, length)`` codes.

        Raises `SamplingError` when no word of that length is accepted.
        """
        self._check(length)
        if n < 0:
            raise SamplingError(f"cannot draw a negative number of words ({n})")
        if n and self.count(length) == 0:
            raise SamplingError(
                f"the language has no word of length {length}; choose lengths that have members "
                "(see length_weights) or use the complement for non-members"
            )
        return self.sample_mixed(np.full(n, length, dtype=np.int64), rng)

    def sample_mixed(self, lengths: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One exactly-uniform accepted word per entry of ``lengths`` (each length may differ).

        Returns ``(n, max(lengths))`` codes, row ``i`` right-padded with 0 beyond
        ``lengths[i]``. Raises `SamplingError` if some requested length has no member.
        """
        lengths = np.asarray(lengths, dtype=np.int64).reshape(-1)
        n = lengths.size
        width = int(lengths.max()) if n else 0
        if n and (lengths.min() < 0 or width > self.max_len):
            raise SamplingError(
                f"lengths must lie in 0..{self.max_len}, got {lengths.min()}..{width}"
            )
        dead = [int(k) for k in np.unique(lengths) if self.counts[k, self.dfa.initial] == 0]
        if dead:
            raise SamplingError(
                f"the language has no word of length {dead[0]}; choose lengths that have members "
                "(see length_weights) or use the complement for non-members"
            )
        if n > _CHUNK:  # cache-sized blocks, drawn one after another from the same stream
            parts = [self.sample_mixed(lengths[i : i + _CHUNK], rng) for i in range(0, n, _CHUNK)]
            out_all = np.zeros((n, width), dtype=code_dtype(self.dfa.n_symbols))
            for i, part in zip(range(0, n, _CHUNK), parts, strict=True):
                out_all[i : i + part.shape[0], : part.shape[1]] = part
            return out_all
        out = np.zeros((width, n), dtype=code_dtype(self.dfa.n_symbols))  # transposed
        q = np.full(n, self.dfa.initial, dtype=np.int64)
        s, m = self.dfa.n_states, self.dfa.n_symbols
        trans, flat = self.dfa.transitions.ravel(), self.thresholds.ravel()
        same = bool(n == 0 or (lengths == width).all())
        for i in range(width):
            # row r = k * states + q of the threshold table, k = symbols still to draw
            k: int | np.ndarray = width - i if same else np.maximum(lengths - i, 0)
            r = k * s + q
            u = rng.integers(0, _ONE, size=n, dtype=np.int64)
            a = np.zeros(n, dtype=np.int64)
            for col in self.columns:  # a = #{j : u >= threshold_j}; finished rows get 0
                a += u >= col[r]
            edge = u + 1 == flat[r * m + a]
            if edge.any():  # rare: the 53-bit interval may straddle a boundary; refine exactly
                kk = np.broadcast_to(k, (n,))
                for j in np.flatnonzero(edge & (kk > 0)):
                    a[j] = _resolve(self._weights(int(kk[j]), int(q[j])), int(u[j]), rng)
            out[i] = a
            q = trans[q * m + a] if same else np.where(k > 0, trans[q * m + a], q)
        assert n == 0 or bool(self.dfa.accepting[q].all())
        return np.ascontiguousarray(out.T)


def length_weights(
    sampler: WordSampler, lengths: Sequence[int], distribution: LengthDistribution
) -> list[int]:
    """Exact (unnormalized) probabilities of each length under a length distribution.

    ``"flare"``: uniform over the lengths that have members [FLaRe]; ``"uniform"``: uniform
    over all lengths; ``"members"``: proportional to the number of members (uniform over all
    member strings in the range).
    """
    counts = [sampler.count(n) for n in lengths]
    if distribution == "flare":
        return [1 if c > 0 else 0 for c in counts]
    if distribution == "uniform":
        return [1] * len(counts)
    if distribution == "members":
        return counts
    raise SamplingError(f"unknown length distribution {distribution!r}: flare, uniform, members")


def within_class(dist: LengthDistribution) -> LengthDistribution:
    """``dist`` for words of one class: only lengths that have a word of that class.

    ``"flare"`` and ``"members"`` weigh a length without the class 0 already; ``"uniform"``
    weighs every length 1, so draws of one class (a sized set's owed examples, the members
    that anchor hard pairs) use ``"flare"``'s weights: uniform over the lengths that have
    the class, never a length with no such word.
    """
    return "flare" if dist == "uniform" else dist


def sample_lengths(
    sampler: WordSampler,
    lengths: Sequence[int],
    n: int,
    rng: np.random.Generator,
    distribution: LengthDistribution = "flare",
) -> np.ndarray:
    """``n`` lengths drawn exactly from ``distribution`` over ``lengths`` (int64 array)."""
    weights = length_weights(sampler, lengths, distribution)
    if sum(weights) == 0:
        raise SamplingError(
            f"the language has no member of any length in {min(lengths)}..{max(lengths)}"
        )
    return np.asarray(lengths, dtype=np.int64)[exact_choice(weights, n, rng)]


def sample_distinct(
    sampler: WordSampler,
    length: int,
    n: int,
    rng: np.random.Generator,
    exclude: Collection[bytes] = frozenset(),
    shortfall: Shortfall = "error",
) -> np.ndarray:
    """``n`` distinct accepted words of ``length`` outside ``exclude``, as a uniform random subset.

    ``exclude`` holds ``codes.tobytes()`` keys (in `code_dtype`). When fewer than ``n`` such
    words exist: ``"error"`` raises `SamplingError`, ``"truncate"`` returns all of them (in
    random order), ``"repeat"`` returns all of them then uniform draws with replacement from
    them. Small sets are enumerated; large ones use rejection of repeats and excluded words
    (first ``n`` distinct draws of an i.i.d. uniform stream form a uniform random subset).
    """
    total = sampler.count(length)
    dtype = code_dtype(sampler.dfa.n_symbols)
    if n == 0:
        return np.empty((0, length), dtype=dtype)
    if total == 0:
        raise SamplingError(f"the language has no word of length {length}")
    if total <= max(ENUMERATE_BELOW, 2 * (n + len(exclude))):
        words = codes_of_length(sampler.dfa, length).astype(dtype)
        keep = [i for i in range(words.shape[0]) if words[i].tobytes() not in exclude]
        pool = words[np.asarray(keep, dtype=np.int64)][rng.permutation(len(keep))]
        if pool.shape[0] >= n:
            return pool[:n]
        return _shortfall(pool, n, length, total, shortfall, rng)
    chosen: dict[bytes, np.ndarray] = {}
    while len(chosen) < n:
        batch = sampler.sample(length, 2 * (n - len(chosen)) + 16, rng)
        for row in batch:
            key = row.tobytes()
            if key not in exclude and key not in chosen:
                chosen[key] = row
                if len(chosen) == n:
                    break
    return np.stack(list(chosen.values())).reshape(n, length)


def _shortfall(
    pool: np.ndarray, n: int, length: int, total: int, policy: Shortfall, rng: np.random.Generator
) -> np.ndarray:
    if policy == "truncate":
        return pool
    if policy == "repeat" and pool.shape[0] > 0:
        extra = pool[rng.integers(0, pool.shape[0], size=n - pool.shape[0])]
        return np.concatenate([pool, extra])
    raise SamplingError(
        f"asked for {n} distinct words of length {length} but only {pool.shape[0]} are available "
        f"({total} in the language, the rest excluded); lower the quota or allow repeats"
    )
