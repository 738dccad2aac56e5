"""Perturbed negatives: uniform members edited at random, kept when they are non-members.

[FLaRe]-style: each candidate applies a Geometric number of insert/replace/delete edits (a
script, `_draw_scripts`) to a uniform member of the length that makes the result exactly the
asked length; the scripts of a batch are applied together (`_apply_scripts`), and
`perturbed_negatives` keeps the candidates that are non-members.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from expressivity.data.sampling import WordSampler, code_dtype

__all__ = ["perturbed_negatives"]


@dataclass(frozen=True)
class _Scripts:
    """A batch of edit scripts: kinds (0 insert, 1 replace, 2 delete), positions, symbols."""

    sources: np.ndarray  # (M,) length of the positive each script edits
    counts: np.ndarray  # (M,) number of edits
    ops: np.ndarray  # (sum counts,) kinds, script after script
    pos: np.ndarray  # (sum counts,) position in the word as it is when the edit applies
    sym: np.ndarray  # (sum counts,) inserted symbol, or replacement offset in 1..|Σ|-1


def _draw_scripts(
    rng: np.random.Generator, size: int, p: float, length: int, n_symbols: int, ok: np.ndarray
) -> _Scripts:
    """``size`` Geometric(p) scripts, kept when their source length is feasible (``ok``)."""
    counts = rng.geometric(p, size=size).astype(np.int64)
    total = int(counts.sum())
    kinds = rng.integers(0, 3 if n_symbols > 1 else 2, size=total)
    ops = kinds if n_symbols > 1 else 2 * kinds  # a one-letter word has no replacement
    delta = np.where(ops == 0, 1, np.where(ops == 2, -1, 0))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    owner = np.repeat(np.arange(size), counts)
    csum = np.cumsum(delta)
    before = csum - delta - (csum[starts] - delta[starts])[owner]  # net change before each edit
    sources = length - np.add.reduceat(delta, starts)
    cur = sources[owner] + before  # word length when the edit applies
    bad = np.logical_or.reduceat((ops != 0) & (cur <= 0), starts)
    valid = ~bad & (sources >= 0) & (sources < ok.size)
    valid &= ok[np.clip(sources, 0, ok.size - 1)]
    pos = rng.integers(0, np.maximum(np.where(ops == 0, cur + 1, cur), 1))
    sym = rng.integers(0, np.where(ops == 1, max(n_symbols - 1, 1), n_symbols)) + (ops == 1)
    keep_op = valid[owner]
    return _Scripts(sources[valid], counts[valid], ops[keep_op], pos[keep_op], sym[keep_op])


def _apply_scripts(words: np.ndarray, scripts: _Scripts, n_symbols: int) -> np.ndarray:
    """Apply every script to its row of ``words`` (B, width ≥ final lengths), edit by edit.

    Step j applies the j-th edit of every script that has one, vectorized over the batch:
    an insertion or deletion shifts the row's tail by one (a gather), a replacement sets one cell.
    """
    words = words.copy()
    counts = scripts.counts
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    col = np.arange(words.shape[1])[None, :]
    for j in range(int(counts.max()) if counts.size else 0):
        rows = np.flatnonzero(counts > j)
        k = starts[rows] + j
        op, pos, sym = scripts.ops[k], scripts.pos[k], scripts.sym[k]
        rep = op == 1
        words[rows[rep], pos[rep]] = (words[rows[rep], pos[rep]] + sym[rep]) % n_symbols
        for kind, shift in ((0, -1), (2, 1)):  # insert: take from col-1 after pos; delete: col+1
            sel = op == kind
            if not sel.any():
                continue
            r, pc = rows[sel], pos[sel][:, None]
            src = np.clip(np.where(col < pc, col, col + shift), 0, words.shape[1] - 1)
            shifted = np.take_along_axis(words[r], src, axis=1)
            if kind == 0:
                shifted = np.where(col == pc, sym[sel][:, None], shifted)
            words[r] = shifted
    return words


def perturbed_negatives(
    sampler: WordSampler,
    length: int,
    n: int,
    rng: np.random.Generator,
    *,
    p: float = 0.5,
    exclude: Collection[bytes] = frozenset(),
    distinct: bool = False,
    budget: int = 16,
) -> tuple[np.ndarray, np.ndarray]:
    """Up to ``n`` non-members of ``length`` made by editing uniform members: (codes, edits).

    Each candidate draws a Geometric(p) number of edits, each uniformly an insertion (uniform
    position and symbol), a replacement (uniform position, uniform *different* symbol) or a
    deletion; the source positive is uniform among members of the length that makes the
    result exactly ``length`` long (so labels can be balanced per length). Candidates that are
    members, excluded, or (with ``distinct``) repeated are rejected. At most ``budget · n + 64``
    candidates are tried, so fewer than ``n`` rows come back for languages whose members are
    rarely one or two edits from a non-member (callers fall back to uniform non-members).
    """
    dfa = sampler.dfa
    m = dfa.n_symbols
    found: list[np.ndarray] = []
    edits: list[int] = []
    seen: set[bytes] = set()
    dtype = code_dtype(m)
    has_members = sampler.counts[:, dfa.initial] != 0
    left = budget * n + 64  # candidates still allowed
    rate = 0.5  # running estimate of the share of candidates kept, sizes the next round
    while len(found) < n and left > 0:
        need = n - len(found)
        size = min(int(need / rate * 1.25) + 8, left)
        left -= size
        scripts = _draw_scripts(rng, size, p, length, m, has_members)
        if not scripts.sources.size:
            rate = max(rate / 4, 1e-3)
            continue
        padded = sampler.sample_mixed(scripts.sources, rng)
        width = max(padded.shape[1], length) + int(scripts.counts.max())
        words = np.zeros((padded.shape[0], width), dtype=np.int64)
        words[:, : padded.shape[1]] = padded
        cand = _apply_scripts(words, scripts, m)[:, :length].astype(dtype)
        member = dfa.accepts_codes(cand, np.full(cand.shape[0], length))
        kept = 0
        for j in np.flatnonzero(~member):
            key = cand[j].tobytes()
            if key in exclude or (distinct and key in seen):
                continue
            seen.add(key)
            found.append(cand[j])
            edits.append(int(scripts.counts[j]))
            kept += 1
            if len(found) == n:
                break
        rate = max(kept / cand.shape[0], 1e-3) if kept else max(rate / 4, 1e-3)
    codes = np.stack(found) if found else np.empty((0, length), dtype=dtype)
    return codes, np.asarray(edits, dtype=np.int64)
