"""Adversarial pairs: a member and a non-member that every formula of a fragment confuses.

Three families (docs/theory.md §4), each pair labelled with the fragment and depth it fools. Depths
follow `logic.syntax`, where ``start`` is a depth-0 atom (as in `algebra.type_automata`): a pair
the papers state for formulas of depth ≤ K without ``start`` (where ``start`` = ¬P⊤ has depth 1)
is recorded with depth K − 1, the depth up to which it agrees in the toolkit's logic.

- ``lc25``: [LC25, Lemma C.3] u(st)^K s v and u(st)^K v agree on every LTL[P] formula of
  depth ≤ K. For a language outside LTL[P] the minimal DFA has a cycle p →s q →t p with
  p ≠ q (not R-trivial); with u reaching p and v separating p from q, p·(st)^K = p for all
  K, so the pair is separated for *every* K. (Computed here from the transition table: the
  cycle is the (st)^ω s ≠ (st)^ω witness of the R-trivial identity.)
- ``lc26``: [LC26] (a b^{k-1})^r a and (a b^{k-1})^r agree on every LTL[P,Y^{≤k}] formula of
  depth ≤ r; kept for the letter pairs (a, b) the language separates.
- ``type``: the shortest words with equal depth-r EOS type (`fragment_types`) that the
  language separates, found by breadth-first search over (type state, DFA state).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from expressivity.automata.dfa import DFA
from expressivity.automata.ops import minimize
from expressivity.data.fragment_types import EOS, TypeState, TypeTracker
from expressivity.logic.operators import Fragment

__all__ = [
    "AdversarialPair",
    "Lc25Witness",
    "equal_type_pair",
    "lc25_pairs",
    "lc25_witness",
    "lc26_pairs",
]

_INF = 1 << 30


@dataclass(frozen=True, eq=False)
class AdversarialPair:
    """A member and a non-member agreeing on every ``fragment`` formula of depth ≤ ``depth``."""

    member: np.ndarray
    nonmember: np.ndarray
    family: str  # "lc25", "lc26" or "type"
    fragment: str  # e.g. "LTL[P]", "LTL[P,Y<=2]"
    depth: int


@dataclass(frozen=True)
class Lc25Witness:
    """Words u, s, t, v (symbol codes) with u(st)^K s v and u(st)^K v separated for every K."""

    u: tuple[int, ...]
    s: tuple[int, ...]
    t: tuple[int, ...]
    v: tuple[int, ...]

    def words(self, k: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """``(u(st)^K s v, u(st)^K v)``."""
        head = self.u + (self.s + self.t) * k
        return head + self.s + self.v, head + self.v


def _shortest_words(dfa: DFA, source: int) -> list[tuple[int, ...] | None]:
    """Breadth-first shortest (then lexicographically least) word from ``source`` to each state."""
    words: list[tuple[int, ...] | None] = [None] * dfa.n_states
    words[source] = ()
    queue = deque([source])
    while queue:
        p = queue.popleft()
        for a, q in enumerate(dfa.transitions[p].tolist()):
            if words[q] is None:
                words[q] = (*words[p], a)  # type: ignore[misc]
                queue.append(q)
    return words


def _separating_suffixes(dfa: DFA) -> tuple[np.ndarray, np.ndarray]:
    """Length of the shortest word separating states p and q, and its first symbol."""
    s, t = dfa.n_states, dfa.transitions
    acc = dfa.accepting
    dist = np.where(acc[:, None] != acc[None, :], 0, _INF).astype(np.int64)
    first = np.full((s, s), -1, dtype=np.int64)
    while True:
        cand = np.stack([dist[np.ix_(t[:, a], t[:, a])] for a in range(dfa.n_symbols)]) + 1
        best_a = cand.argmin(axis=0)
        best = cand.min(axis=0)
        better = best < dist
        if not better.any():
            return dist, first
        dist = np.where(better, best, dist)
        first = np.where(better, best_a, first)


def lc25_witness(dfa: DFA) -> Lc25Witness | None:
    """A shortest u, s, t, v as above, or None when the minimal DFA only has self-loop cycles
    (the language is R-trivial, i.e. in LTL[P], and no such pair exists)."""
    m = minimize(dfa)
    paths = [_shortest_words(m, p) for p in range(m.n_states)]
    dist, first = _separating_suffixes(m)
    best: tuple[int, int, int] | None = None
    for p in range(m.n_states):
        for q in range(m.n_states):
            s_word, t_word = paths[p][q], paths[q][p]
            if p == q or s_word is None or t_word is None or dist[p, q] >= _INF:
                continue
            u_word = paths[m.initial][p]
            assert u_word is not None  # minimize keeps reachable states only
            size = len(u_word) + len(s_word) + len(t_word) + int(dist[p, q])
            if best is None or size < best[0]:
                best = (size, p, q)
    if best is None:
        return None
    _, p, q = best
    v: list[int] = []
    x, y = p, q
    while m.accepting[x] == m.accepting[y]:
        a = int(first[x, y])
        v.append(a)
        x, y = int(m.transitions[x, a]), int(m.transitions[y, a])
    u, s, t = paths[m.initial][p], paths[p][q], paths[q][p]
    assert u is not None and s is not None and t is not None
    return Lc25Witness(u, s, t, tuple(v))


def _spread(lo: int, hi: int, count: int) -> list[int]:
    """Up to ``count`` distinct integers spread evenly over ``lo..hi``."""
    if hi < lo or count <= 0:
        return []
    return sorted({round(x) for x in np.linspace(lo, hi, num=min(count, hi - lo + 1))})


def _ordered(
    dfa: DFA, left: tuple[int, ...], right: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray] | None:
    a, b = np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64)
    in_a, in_b = bool(dfa.accepting[dfa.run_codes(a)[0]]), bool(dfa.accepting[dfa.run_codes(b)[0]])
    if in_a == in_b:
        return None
    return (a, b) if in_a else (b, a)


def lc25_pairs(dfa: DFA, lengths: tuple[int, int], count: int) -> list[AdversarialPair]:
    """Up to ``count`` [LC25] Lemma C.3 pairs with both words' lengths in ``lengths``.

    K is spread over the lengths; each pair records depth K − 1 (see the module docstring).
    """
    w = lc25_witness(dfa)
    if w is None:
        return []
    period = len(w.s) + len(w.t)
    fixed = len(w.u) + len(w.v)
    k_lo = max(1, -(-(lengths[0] - fixed) // period))
    k_hi = (lengths[1] - fixed - len(w.s)) // period
    out = []
    for k in _spread(k_lo, k_hi, count):
        pair = _ordered(dfa, *w.words(k))
        assert pair is not None, "an LC25 witness separates its pair for every K"
        out.append(AdversarialPair(pair[0], pair[1], "lc25", "LTL[P]", k - 1))
    return out


def lc26_pairs(
    dfa: DFA, window: int, lengths: tuple[int, int], count: int
) -> list[AdversarialPair]:
    """Up to ``count`` [LC26] pairs (a b^{k-1})^r a / (a b^{k-1})^r the language separates.

    Letter pairs (a, b) are tried in alphabet order; for each r (spread over the lengths) the
    first separated letter pair is kept, with depth r − 1 (see the module docstring).
    """
    m = dfa.n_symbols
    letters = [(a, b) for a in range(m) for b in range(m) if a != b] or [(0, 0)]
    r_lo, r_hi = max(1, -(-lengths[0] // window)), (lengths[1] - 1) // window
    out = []
    for r in _spread(r_lo, r_hi, count):
        for a, b in letters:
            block = (a, *([b] * (window - 1)))
            pair = _ordered(dfa, block * r + (a,), block * r)
            if pair is not None:
                label = str(Fragment(past=True, window=window))
                out.append(AdversarialPair(pair[0], pair[1], "lc26", label, r - 1))
                break
    return out


def equal_type_pair(
    dfa: DFA,
    fragment: Fragment,
    depth: int,
    max_len: int = 10,
    max_nodes: int = 20_000,
    avoid: Callable[[tuple[int, ...], bool], bool] | None = None,
) -> AdversarialPair | None:
    """The shortest member/non-member with the same depth-``depth`` EOS type, if one is found.

    Breadth-first over words, merging prefixes that reach the same (type state, DFA state);
    gives up (None) beyond ``max_len`` or ``max_nodes``. Words for which ``avoid(word,
    is_member)`` holds (e.g. training words) are extended but never returned. A pair proves
    the language is not definable in ``fragment`` at depth ≤ ``depth``; None proves nothing.
    """
    tracker = TypeTracker(fragment, depth)
    start = (tracker.initial(), dfa.initial)
    frontier: list[tuple[tuple[int, ...], TypeState, int]] = [((), *start)]
    visited = {start}
    first_seen: dict[tuple[int, bool], tuple[int, ...]] = {}
    for _length in range(max_len + 1):
        nxt = []
        for word, state, q in frontier:
            eos = tracker.types_at(state, EOS)[-1]
            accept = bool(dfa.accepting[q])
            other = first_seen.get((eos, not accept))
            if avoid is not None and avoid(word, accept):
                other = None
            else:
                first_seen.setdefault((eos, accept), word)
            if other is not None:
                member, nonmember = (word, other) if accept else (other, word)
                return AdversarialPair(
                    np.asarray(member, dtype=np.int64),
                    np.asarray(nonmember, dtype=np.int64),
                    "type",
                    str(fragment),
                    depth,
                )
            for a in range(dfa.n_symbols):
                key = (tracker.push(state, a), int(dfa.transitions[q, a]))
                if key not in visited:
                    visited.add(key)
                    nxt.append(((*word, a), *key))
        if len(visited) > max_nodes:
            return None
        frontier = nxt
    return None
