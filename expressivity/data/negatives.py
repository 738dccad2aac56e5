"""Negative examples: perturbed positives, exact edit distance to a language, hard negatives.

Uniform non-members are plain uniform samples of the complement DFA
(``WordSampler.build(ops.complement(dfa), n)``), so sparse and dense languages need no
rejection loop. This module adds [FLaRe]-style perturbed positives (a Geometric number of
insert/replace/delete edits, kept only when the result is a non-member), the exact edit
(Levenshtein) distance from a word to the nearest member, and edit-distance-1 hard negatives
that pair with a positive (as MLRegTest's paired test sets).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from expressivity.automata.dfa import DFA
from expressivity.data.sampling import WordSampler, code_dtype
from expressivity.errors import SamplingError

__all__ = [
    "Edit",
    "apply_edit",
    "distance_to_language",
    "edit_distance_to_language",
    "hard_negative",
    "hard_positive",
    "perturbed_negatives",
    "single_edit_neighbours",
    "single_edit_nonmembers",
]

Edit = Literal["insert", "replace", "delete"]
_OPS: tuple[Edit, ...] = ("insert", "replace", "delete")
_INF = 1 << 20


def _insertion_distances(dfa: DFA) -> np.ndarray:
    """``D[p, q]``: fewest symbols leading from state p to q (``_INF`` if unreachable)."""
    s = dfa.n_states
    adj = np.zeros((s, s), dtype=bool)
    adj[np.repeat(np.arange(s), dfa.n_symbols), dfa.transitions.ravel()] = True
    dist = np.full((s, s), _INF, dtype=np.int32)
    frontier = np.eye(s, dtype=bool)
    seen = frontier.copy()
    step = 0
    while frontier.any():
        dist[frontier] = step
        frontier = ((frontier.astype(np.int32) @ adj.astype(np.int32)) > 0) & ~seen
        seen |= frontier
        step += 1
    return dist


def _step_matrices(dfa: DFA) -> tuple[np.ndarray, np.ndarray]:
    """Per-symbol min-plus matrices of one DP layer, and the initial insertion distances.

    Reading input symbol a: ``K[a][q, q']`` is the cheapest way to consume it (match: 0,
    replace: 1, delete: 1) and then insert symbols, moving the produced word from q to q'.
    """
    d = _insertion_distances(dfa)
    t = dfa.transitions
    replace = 1 + d[t].min(axis=1)  # (S, S): any symbol, then inserts
    delete = np.where(np.eye(dfa.n_states, dtype=bool), 1, _INF).astype(np.int32)
    k = np.stack(
        [np.minimum(np.minimum(d[t[:, a]], replace), delete) for a in range(dfa.n_symbols)]
    )
    return np.minimum(k, _INF).astype(np.int32), d


def edit_distance_to_language(dfa: DFA, codes: np.ndarray, chunk: int = 1024) -> np.ndarray:
    """Exact edit distance from each word to the nearest member of L(dfa), for a batch.

    ``codes`` is ``(B, n)``: B words of one length n. A shortest-path DP over (position in
    the word, DFA state of the produced word) with unit-cost insert/replace/delete, done as one
    min-plus product per position, vectorized over the batch: O(B · n · states²).
    Raises `SamplingError` if the language is empty.
    """
    codes = np.asarray(codes)
    if codes.ndim != 2:
        raise ValueError(f"codes must be (batch, length), got shape {codes.shape}")
    k, d = _step_matrices(dfa)
    acc = dfa.accepting
    if not (d[dfa.initial][acc] < _INF).any():
        raise SamplingError("the language is empty: no word has a finite distance to it")
    out = np.empty(codes.shape[0], dtype=np.int64)
    for start in range(0, codes.shape[0], chunk):
        block = codes[start : start + chunk].astype(np.int64)
        dist = np.repeat(d[dfa.initial][None, :], block.shape[0], axis=0)
        for i in range(block.shape[1]):
            dist = (dist[:, :, None] + k[block[:, i]]).min(axis=1)
            np.minimum(dist, _INF, out=dist)
        best = dist[:, acc].min(axis=1)
        if (best >= _INF).any():
            raise SamplingError("the language is empty: no word has a finite distance to it")
        out[start : start + chunk] = best
    return out


def distance_to_language(dfa: DFA, word: Sequence[int] | np.ndarray) -> int:
    """Exact edit distance from one encoded word to the nearest member of L(dfa)."""
    row = np.asarray(word, dtype=np.int64).reshape(1, -1)
    return int(edit_distance_to_language(dfa, row)[0])


def apply_edit(word: np.ndarray, op: Edit, pos: int, symbol: int = 0) -> np.ndarray:
    """``word`` with a symbol inserted before ``pos``, or replaced or deleted at ``pos``."""
    if op == "insert":
        return np.insert(word, pos, symbol)
    if op == "replace":
        out = word.copy()
        out[pos] = symbol
        return out
    return np.delete(word, pos)


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


def single_edit_neighbours(
    dfa: DFA, word: np.ndarray, ops: Sequence[Edit] = _OPS, *, members: bool = False
) -> list[tuple[Edit, int, int]]:
    """Every distinct word one edit from ``word`` that is (``members``) or is not in the language.

    Returned as ``(op, pos, symbol)`` edits for `apply_edit`, insertions first, then
    replacements, then deletions. Each resulting word appears once: an insertion is listed at
    the last position of its run and a deletion at the last symbol of its run. Membership of
    all O(n·|Σ|) neighbours is read off forward states and backward acceptance vectors.
    """
    w = np.asarray(word, dtype=np.int64)
    n, t = w.size, dfa.transitions
    fwd = np.empty(n + 1, dtype=np.int64)
    fwd[0] = dfa.initial
    for i in range(n):
        fwd[i + 1] = t[fwd[i], w[i]]
    back = np.empty((n + 1, dfa.n_states), dtype=bool)  # back[i][q]: w[i:] accepted from q
    back[n] = dfa.accepting
    for i in range(n - 1, -1, -1):
        back[i] = back[i + 1][t[:, w[i]]]
    syms = np.arange(dfa.n_symbols)
    nxt = w[:, None] != syms[None, :]  # (n, |Σ|): a differs from w_i
    out: list[tuple[Edit, int, int]] = []
    if "insert" in ops:  # before position i; canonical unless w_i == a
        ok = back[np.arange(n + 1)[:, None], t[fwd]] == members
        ok[:n] &= nxt
        out.extend(("insert", int(i), int(a)) for i, a in zip(*np.nonzero(ok), strict=True))
    if "replace" in ops:
        ok = (back[1:][np.arange(n)[:, None], t[fwd[:-1]]] == members) & nxt
        out.extend(("replace", int(i), int(a)) for i, a in zip(*np.nonzero(ok), strict=True))
    if "delete" in ops:  # canonical unless w_i == w_{i+1}
        ok = back[1:][np.arange(n), fwd[:-1]] == members
        ok[:-1] &= w[:-1] != w[1:]
        out.extend(("delete", int(i), 0) for i in np.flatnonzero(ok))
    return out


def single_edit_nonmembers(
    dfa: DFA, word: np.ndarray, ops: Sequence[Edit] = _OPS
) -> list[tuple[Edit, int, int]]:
    """Every distinct non-member at edit distance 1 from ``word`` (see `single_edit_neighbours`)."""
    return single_edit_neighbours(dfa, word, ops, members=False)


def hard_negative(
    dfa: DFA, word: np.ndarray, rng: np.random.Generator, ops: Sequence[Edit] = _OPS
) -> np.ndarray | None:
    """A uniformly chosen distinct non-member one edit away from ``word`` (None if none exists)."""
    return _one_edit(dfa, word, rng, ops, members=False)


def hard_positive(
    dfa: DFA, word: np.ndarray, rng: np.random.Generator, ops: Sequence[Edit] = _OPS
) -> np.ndarray | None:
    """A uniformly chosen distinct member one edit away from ``word`` (None if none exists)."""
    return _one_edit(dfa, word, rng, ops, members=True)


def _one_edit(
    dfa: DFA, word: np.ndarray, rng: np.random.Generator, ops: Sequence[Edit], members: bool
) -> np.ndarray | None:
    edits = single_edit_neighbours(dfa, word, ops, members=members)
    if not edits:
        return None
    op, pos, sym = edits[int(rng.integers(0, len(edits)))]
    return apply_edit(np.asarray(word), op, pos, sym)
