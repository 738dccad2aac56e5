"""Operations on DFAs: products, Boolean operations, equivalence, queries (and minimization).

The Boolean operations are also the `DFA`'s set operators (``|``, ``&``, ``-``, ``^``, ``~``;
inclusion ``<=``); both spellings build the same canonical DFA, in `DFA.combine`.

Every operation that builds a new automaton returns it in canonical form (minimal, complete,
states numbered in breadth-first order from the initial state, symbols in alphabet order), so
that two results of the same language are equal and hash equal. Minimization and the
canonical form live in `automata.minimal` and are re-exported here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from typing import TypeVar

import numpy as np

from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.automata.drawing import render, to_dot, to_networkx
from expressivity.automata.minimal import canonical, minimize, minimize_table, trim
from expressivity.errors import AlphabetError

_Node = TypeVar("_Node")

__all__ = [
    "canonical",
    "complement",
    "difference",
    "distinguishing_word",
    "equivalent",
    "intersection",
    "is_empty",
    "is_finite",
    "minimize",
    "minimize_table",
    "product",
    "render",
    "shortest_accepted",
    "shortest_rejected",
    "symmetric_difference",
    "to_dot",
    "to_networkx",
    "trim",
    "union",
]


def complement(dfa: DFA) -> DFA:
    """The DFA of Σ* ∖ L (the automaton is complete, so acceptance is flipped); ``~dfa``."""
    return ~dfa


def product(left: DFA, right: DFA, accept: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> DFA:
    """The product automaton with acceptance ``accept(left_mask, right_mask)``, minimized.

    Built by `DFA.combine` (`automata.tables.product_table`, then the minimal quotient), as
    the operators ``|``, ``&``, ``-`` and ``^`` are; an `AlphabetError` if the alphabets differ.
    """
    return left.combine(right, accept)


def intersection(left: DFA, right: DFA) -> DFA:
    """L1 ∩ L2 (``left & right``)."""
    return product(left, right, np.logical_and)


def union(left: DFA, right: DFA) -> DFA:
    """L1 ∪ L2 (``left | right``)."""
    return product(left, right, np.logical_or)


def difference(left: DFA, right: DFA) -> DFA:
    """L1 ∖ L2 (``left - right``)."""
    return product(left, right, lambda x, y: x & ~y)


def symmetric_difference(left: DFA, right: DFA) -> DFA:
    """L1 △ L2 (``left ^ right``)."""
    return product(left, right, np.logical_xor)


def equivalent(left: DFA, right: DFA) -> bool:
    """Whether L1 = L2 (for a word that tells them apart, see `distinguishing_word`)."""
    return distinguishing_word(left, right) is None


def distinguishing_word(left: DFA, right: DFA) -> Word | None:
    """A shortest word in exactly one of L1 and L2, or ``None`` when L1 = L2.

    Among the shortest witnesses, the first in alphabet order (shortlex) is returned. Test
    the result with ``is None``: the empty word ``()`` is a possible (falsy) witness.
    """
    if left.alphabet != right.alphabet:
        raise AlphabetError(
            f"cannot compare DFAs over different alphabets {left.alphabet} and {right.alphabet}"
        )
    t1, t2 = left.transitions.tolist(), right.transitions.tolist()
    a1, a2 = left.accepting.tolist(), right.accepting.tolist()
    start = (left.initial, right.initial)
    parent: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {start: None}
    queue = deque([start])
    while queue:
        pair = queue.popleft()
        p, q = pair
        if a1[p] != a2[q]:
            return _path(left, parent, pair)
        for a, (p2, q2) in enumerate(zip(t1[p], t2[q], strict=True)):
            if (p2, q2) not in parent:
                parent[(p2, q2)] = (pair, a)
                queue.append((p2, q2))
    return None


def _path(dfa: DFA, parent: Mapping[_Node, tuple[_Node, int] | None], node: _Node) -> Word:
    out: list[str] = []
    while (link := parent[node]) is not None:
        node, a = link
        out.append(dfa.alphabet.symbols[a])
    return tuple(reversed(out))


def _shortest(dfa: DFA, target: bool) -> Word | None:
    rows, acc = dfa.transitions.tolist(), dfa.accepting.tolist()
    parent: dict[int, tuple[int, int] | None] = {dfa.initial: None}
    queue = deque([dfa.initial])
    while queue:
        q = queue.popleft()
        if acc[q] == target:
            return _path(dfa, parent, q)
        for a, r in enumerate(rows[q]):
            if r not in parent:
                parent[r] = (q, a)
                queue.append(r)
    return None


def shortest_accepted(dfa: DFA) -> Word | None:
    """A shortest accepted word (shortlex-least), or ``None`` when L is empty."""
    return _shortest(dfa, True)


def shortest_rejected(dfa: DFA) -> Word | None:
    """A shortest rejected word (shortlex-least), or ``None`` when L = Σ*."""
    return _shortest(dfa, False)


def is_empty(dfa: DFA) -> bool:
    """Whether L = ∅ (no accepting state is reachable)."""
    return _shortest(dfa, True) is None


def _useful(dfa: DFA) -> np.ndarray:
    """States both reachable from the initial state and co-reachable to an accepting one."""
    n, rows = dfa.n_states, dfa.transitions.tolist()
    reach = np.zeros(n, dtype=bool)
    reach[dfa.initial] = True
    stack = [dfa.initial]
    preds: list[list[int]] = [[] for _ in range(n)]
    for p, row in enumerate(rows):
        for q in row:
            preds[q].append(p)
    while stack:
        for r in rows[stack.pop()]:
            if not reach[r]:
                reach[r] = True
                stack.append(r)
    coreach = dfa.accepting.copy()
    stack = np.flatnonzero(coreach).tolist()
    while stack:
        for p in preds[stack.pop()]:
            if not coreach[p]:
                coreach[p] = True
                stack.append(p)
    return reach & coreach


def is_finite(dfa: DFA) -> bool:
    """Whether L is finite: no cycle runs through a reachable, co-reachable state."""
    useful = _useful(dfa)
    rows = dfa.transitions.tolist()
    nodes = np.flatnonzero(useful).tolist()
    indegree = dict.fromkeys(nodes, 0)
    for q in nodes:
        for r in rows[q]:
            if useful[r]:
                indegree[r] += 1
    ready = [q for q in nodes if indegree[q] == 0]
    removed = 0
    while ready:
        q = ready.pop()
        removed += 1
        for r in rows[q]:
            if useful[r]:
                indegree[r] -= 1
                if indegree[r] == 0:
                    ready.append(r)
    return removed == len(nodes)
