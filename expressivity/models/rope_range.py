"""RoPE's certified range: up to which length a standard RoPE head can still single out Y^k.

A RoPE head reads Y^k (the key k positions back) with the query R(n−k)·1 against the keys
R(m)·1, where R(p) rotates channel pair i by p·θ_i, θ_i = B^(−2i/D), i < D/2, and 1 puts
(1, 0) in every pair. Its score is s(n, m) = Σ_i cos((n−k−m)·θ_i): exactly D/2 at the target
m = n−k and D/2 − g(δ) elsewhere, with δ = n−k−m ≠ 0 and the *gap*
g(δ) = Σ_i (1 − cos(δ·θ_i)) > 0. In a float format with unit roundoff u, each computed score is
within E(T) of its exact value for token indices ≤ T (`score_error_bound`, docs/theory.md), so
the computed target score is the strict maximum over every key 0 ≤ m < n ≤ T as soon as

    min { g(δ) : 1 ≤ |δ| ≤ T } > 2·E(T).

N_max is the largest word length N (token indices 0..N+1: BOS, the word, EOS) for which this
holds: a *certified* range (a sufficient condition, so the true range of the float head can
be longer), monotone because the left side only falls and the right side only grows with T.
θ_i are the frequencies as rounded to the format, i.e. those the head really uses. The paper
[JSLC26] defines its N_max for the same question; its text was not available to us, so this
is our definition (see docs/theory.md, "Periodic positions and MOD"), checked against a
brute-force float computation in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from expressivity.errors import ConfigError

__all__ = ["UNIT_ROUNDOFF", "RopeRange", "rope_frequencies", "rope_range", "score_error_bound"]

#: Unit roundoff u (half an ulp of 1) of the supported float formats.
UNIT_ROUNDOFF: dict[str, float] = {
    "float16": 2.0**-11,
    "bfloat16": 2.0**-8,
    "float32": 2.0**-24,
}
_CHUNK = 1 << 16
#: The widest rotated head `rope_range` takes.
MAX_DIM = 1_024
#: The most gap terms (search lengths × frequencies) one `rope_range` evaluates.
MAX_CELLS = 600_000_000


@dataclass(frozen=True)
class RopeRange:
    """The certified range of RoPE's Y^k head (see the module docstring)."""

    base: float
    dim: int
    dtype: str
    k: int
    n_max: int  # the largest certified word length (−1: not even the empty word)
    limit: int  # the search stopped at this word length (n_max == limit: at least this)
    gap: float  # min g(δ) over the certified range (over 1 ≤ |δ| ≤ n_max + 1)
    error: float  # 2·E(T) at T = n_max + 1
    failing_offset: int | None  # the δ of smallest gap when the certificate first failed

    @property
    def reached_limit(self) -> bool:
        """Whether the search stopped at ``limit`` before the condition failed."""
        return self.failing_offset is None

    def describe(self) -> str:
        """One paragraph for the command line."""
        head = f"RoPE base {self.base:g}, head dimension {self.dim}, {self.dtype}, Y^{self.k}: "
        if self.n_max < 0:
            return head + (
                f"no length is certified: the smallest score gap g(1) = "
                f"{_gap_at_one(self)}"
                f" does not exceed twice the {self.dtype} error bound (2E = {self.error:.3g}) even "
                "for the empty word; the certificate is sufficient, not necessary"
            )
        if self.reached_limit:
            return head + (
                f"certified for every length up to at least N = {self.n_max} (the search limit; "
                f"min gap {self.gap:.3g} > 2E = {self.error:.3g})"
            )
        return head + (
            f"certified up to N_max = {self.n_max}; at the next length the smallest score gap "
            f"(offset δ = {self.failing_offset}) no longer exceeds twice the {self.dtype} "
            f"error bound (min gap up to N_max {self.gap:.3g}, 2E = {self.error:.3g}); the "
            "certificate is sufficient, not necessary"
        )

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return {
            "base": self.base,
            "dim": self.dim,
            "dtype": self.dtype,
            "k": self.k,
            "n_max": self.n_max,
            "limit": self.limit,
            "reached_limit": self.reached_limit,
            "gap": self.gap,
            "error": self.error,
            "failing_offset": self.failing_offset,
        }


def rope_frequencies(base: float, dim: int, dtype: str = "float32") -> np.ndarray:
    """θ_i = base^(−2i/dim), i < dim/2, rounded to ``dtype`` (as float64 values)."""
    _check(base, dim, dtype, 1)
    exact = float(base) ** (-2.0 * np.arange(dim // 2) / dim)
    return _round(exact, dtype)


def score_error_bound(theta: np.ndarray, dtype: str, max_index: int) -> float:
    """E(T): a bound on |computed − exact| score for token indices n, m ≤ T = ``max_index``.

    A first-order bound (terms in u² dropped), for the head as `apply_rope` computes it: the
    key (1, 0) and the query (cos kθ_i, −sin kθ_i) of each pair rotated by their positions.
    Each angle p·θ_i is formed by rounding p and the product: error ≤ 2u·p·θ_i, for both
    positions ≤ T; the cos/sin values carry ≤ 2u each and the query's rotation (two products
    and a sum per component) ≤ 4u more, so a pair's term cos·cos + sin·sin moves by at most
    8√2·u; the D products and their sum add γ_D·D/2 with γ_D = D·u/(1 − D·u) (Higham,
    Thm 3.1), since Σ |products| ≤ D/2 (Cauchy–Schwarz per pair).
    """
    u = UNIT_ROUNDOFF[dtype]
    d = 2 * len(theta)
    angles = 2.0 * u * 2 * max_index * float(np.sum(theta))  # both positions, ≤ T
    values = len(theta) * 8 * math.sqrt(2) * u
    gamma = d * u / (1 - d * u) if d * u < 1 else math.inf
    return angles + values + gamma * d / 2


def rope_range(
    base: float = 10000.0,
    dim: int = 64,
    dtype: str = "float32",
    k: int = 1,
    *,
    limit: int = 1_000_000,
) -> RopeRange:
    """The certified N_max of standard RoPE for Y^k (module docstring), searched up to ``limit``.

    Cost O(limit · dim) numpy work, in chunks; the gap is evaluated in float64 with the
    frequencies rounded to ``dtype``.
    """
    _check(base, dim, dtype, k)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ConfigError(f"limit: expected an integer >= 1, got {limit!r}")
    if limit * (dim // 2) > MAX_CELLS:
        raise ConfigError(
            f"limit {limit} × {dim // 2} frequencies is more than MAX_CELLS = {MAX_CELLS:,} gap "
            f"terms; pass --limit {MAX_CELLS // (dim // 2):,} or less (or a smaller --dim)")
    theta = rope_frequencies(base, dim, dtype)
    slope, const = _error_line(theta, dtype)
    best = math.inf  # min gap over 1 ≤ δ ≤ T so far
    rows = _rows(theta)
    for lo in range(1, limit + 2, rows):  # T = token index bound = word length + 1
        big_t = np.arange(lo, min(lo + rows, limit + 2), dtype=np.float64)
        gaps = np.sum(1.0 - np.cos(big_t[:, None] * theta[None, :]), axis=1)  # g(δ), δ = T
        running = np.minimum.accumulate(np.minimum(gaps, best))  # min g over 1 ≤ δ ≤ T
        bad = np.flatnonzero(running <= 2.0 * (slope * big_t + const))
        if len(bad):
            fail = int(big_t[bad[0]])
            gap = float(running[bad[0] - 1]) if bad[0] else best
            n_max = fail - 2  # T = fail − 1 is the last certified bound: N = T − 1
            error = 2.0 * (slope * (n_max + 1) + const)
            offset = _argmin_offset(theta, fail)
            return RopeRange(float(base), dim, dtype, k, n_max, limit, gap, error, offset)
        best = float(running[-1])
    error = 2.0 * (slope * (limit + 1) + const)
    return RopeRange(float(base), dim, dtype, k, limit, limit, best, error, None)


def _rows(theta: np.ndarray) -> int:
    """Lengths per chunk: `_CHUNK` × 32 frequencies' worth of cells (16 MiB of float64)."""
    return max(1, (_CHUNK * 32) // max(1, len(theta)))


def _error_line(theta: np.ndarray, dtype: str) -> tuple[float, float]:
    """E(T) = slope·T + const (`score_error_bound` is affine in T)."""
    const = score_error_bound(theta, dtype, 0)
    return score_error_bound(theta, dtype, 1) - const, const


def _gap_at_one(r: RopeRange) -> str:
    theta = rope_frequencies(r.base, r.dim, r.dtype)
    return f"{float(np.sum(1.0 - np.cos(theta))):.3g}"


def _argmin_offset(theta: np.ndarray, up_to: int) -> int:
    """The offset 1 ≤ δ ≤ ``up_to`` with the smallest gap."""
    best, where = math.inf, 1
    rows = _rows(theta)
    for lo in range(1, up_to + 1, rows):
        deltas = np.arange(lo, min(lo + rows, up_to + 1), dtype=np.float64)
        gaps = np.sum(1.0 - np.cos(deltas[:, None] * theta[None, :]), axis=1)
        i = int(np.argmin(gaps))
        if gaps[i] < best:
            best, where = float(gaps[i]), int(deltas[i])
    return where


def _round(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "float32":
        return values.astype(np.float32).astype(np.float64)
    if dtype == "float16":
        return values.astype(np.float16).astype(np.float64)
    # bfloat16: keep the top 8 significand bits of float32, rounding to nearest even
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def _check(base: float, dim: int, dtype: str, k: int) -> None:
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not base > 1:
        raise ConfigError(f"base: expected a number > 1, got {base!r}")
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2 or dim % 2:
        raise ConfigError(f"dim: expected an even integer >= 2 (the rotated width), got {dim!r}")
    if dim > MAX_DIM:
        raise ConfigError(f"dim: {dim} is above MAX_DIM = {MAX_DIM} (rotated head widths in use "
                          "are at most a few hundred); pass a smaller --dim")
    if dtype not in UNIT_ROUNDOFF:
        raise ConfigError(f"dtype: expected one of {', '.join(UNIT_ROUNDOFF)}, got {dtype!r}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"k: expected an integer >= 1, got {k!r}")
