"""Negative examples: perturbed positives, exact edit distance to a language, hard negatives.

Uniform non-members are plain uniform samples of the complement DFA
(``WordSampler.build(ops.complement(dfa), n)``), so sparse and dense languages need no
rejection loop. This module adds the exact edit (Levenshtein) distance from a word to the
nearest member, and edit-distance-1 hard negatives that pair with a positive (as
MLRegTest's paired test sets); [FLaRe]-style perturbed positives (a Geometric number of
insert/replace/delete edits, kept only when the result is a non-member) live in
`data.perturbed` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from expressivity.automata.dfa import DFA
from expressivity.data.perturbed import perturbed_negatives
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
