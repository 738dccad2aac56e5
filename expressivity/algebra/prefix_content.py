"""Prefix-and-content languages: membership fixed by the first M letters and the letters after them.

κ_M(w) = w when |w| < M, else (w₁..w_M, the set of letters of w_{M+1}..w_N). L is a union of
κ_M classes iff every state q reached by a word of length exactly M has a residual L_q that
depends only on the set of letters read: on the states reachable from q the letters commute and
are idempotent (the transition monoid of L_q is then a semilattice, J1; conversely, on the
minimal DFA, the sub-automaton from q is L_q's minimal DFA, whose transition monoid is L_q's
syntactic monoid). The property passes from q to its successors, so it is monotone in M.

Why layouts care (docs/theory.md §17, proved relative to assumption A): a head whose key set
K(n) always holds n − 1 and lies in 0..n − 1 — any causal pattern with G, Lk or Dk.1 in it,
whatever R atoms share the head, for every seed — defines "n = j" for every j (χ₁: only BOS is
read; χ_j: every key is BOS or satisfies some χ_i, i < j, and some key satisfies χ_{j−1}), so
with a whole-word summary E (BOS as the one global token) κ_M is read at EOS after M + 2 layers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from expressivity.automata.dfa import DFA

__all__ = ["PrefixContent", "answers_follow_key", "content_determined", "prefix_content"]


def content_determined(dfa: DFA) -> frozenset[int]:
    """The states q whose residual language depends only on the set of letters read: on every
    state p reachable from q, δ(p, ab) = δ(p, ba) and δ(p, aa) = δ(p, a) for all letters."""
    t = dfa.transitions
    n, k = t.shape
    bad = np.zeros(n, dtype=bool)
    for a in range(k):
        bad |= t[t[:, a], a] != t[:, a]
        for b in range(a + 1, k):
            bad |= t[t[:, a], b] != t[t[:, b], a]
    # q is good iff no bad state is reachable from q: search backwards from the bad states
    before: list[list[int]] = [[] for _ in range(n)]
    for p in range(n):
        for q in set(t[p].tolist()):
            before[q].append(p)
    reaches_bad = set(np.flatnonzero(bad).tolist())
    todo = list(reaches_bad)
    while todo:
        for p in before[todo.pop()]:
            if p not in reaches_bad:
                reaches_bad.add(p)
                todo.append(p)
    return frozenset(set(range(n)) - reaches_bad)


@dataclass(frozen=True)
class PrefixContent:
    """Proof that L is a union of κ_M classes (M = ``prefix_length``): decided on the DFA by
    `prefix_content`, re-checkable by brute force with `check`."""

    prefix_length: int

    def key(self, word: Sequence[str]) -> tuple[Any, ...]:
        """κ_M(word): the word itself when shorter than M, else its first M letters and the set
        of letters after them."""
        m = self.prefix_length
        if len(word) < m:
            return ("short", tuple(word))
        return ("long", tuple(word[:m]), frozenset(word[m:]))

    @property
    def layers(self) -> int:
        """Layers that read κ_M at EOS: χ₁..χ_M cost M, the summary E two more."""
        return self.prefix_length + 2

    def check(self, dfa: DFA, max_length: int) -> bool:
        """Every two words of length ≤ ``max_length`` with equal κ_M get the same answer."""
        return answers_follow_key(self.key, dfa, max_length)

    def describe(self) -> str:
        m = self.prefix_length
        first = f"the first {m} letter{'s' * (m != 1)} and " if m else ""
        return (f"membership depends only on {first}the set of letters "
                f"{'after them' if m else 'read'} (κ_{m}; docs/theory.md §17)")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "prefix-content", "prefix_length": self.prefix_length,
                "layers": self.layers}


def prefix_content(dfa: DFA, max_length: int) -> PrefixContent | None:
    """The least M ≤ ``max_length`` with L a union of κ_M classes, or None (bounded work: one
    set of states per M; the sets of states reached at length exactly M are eventually
    periodic, and once one repeats no larger M can succeed either)."""
    good = content_determined(dfa)
    level = frozenset({int(dfa.initial)})
    seen: set[frozenset[int]] = set()
    for m in range(max_length + 1):
        if level <= good:
            return PrefixContent(m)
        if level in seen:  # the levels repeat from here on: no M works at all
            return None
        seen.add(level)
        level = frozenset(int(q) for q in np.unique(dfa.transitions[sorted(level)]))
    return None


def answers_follow_key(key: Callable[[Sequence[str]], tuple[Any, ...]], dfa: DFA,
                       max_length: int) -> bool:
    """Whether every two words of length ≤ ``max_length`` with equal ``key`` get the same
    answer from ``dfa`` (brute force over all words: the check of a proof object here and in
    `algebra.window_sets`)."""
    seen: dict[tuple[Any, ...], bool] = {}
    words: list[tuple[str, ...]] = [()]
    for _ in range(max_length + 1):
        for w in words:
            if seen.setdefault(key(w), dfa.accepts(w)) != dfa.accepts(w):
                return False
        words = [(*w, s) for w in words for s in dfa.alphabet.symbols]
    return True
