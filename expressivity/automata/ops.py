"""Operations on DFAs: Hopcroft minimization, canonical form, products, equivalence, queries.

Every operation that builds a new automaton returns it in canonical form (minimal, complete,
states numbered in breadth-first order from the initial state, symbols in alphabet order), so
that two results of the same language are equal and hash equal.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

import numpy as np

from expressivity.alphabet import Alphabet, Word
from expressivity.automata.dfa import DFA
from expressivity.automata.drawing import render, to_dot, to_networkx
from expressivity.errors import AlphabetError

_Node = TypeVar("_Node")

__all__ = [
    "canonical",
    "complement",
    "difference",
    "intersection",
    "is_empty",
    "is_equivalent",
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


def trim(dfa: DFA) -> DFA:
    """Drop unreachable states and renumber breadth-first (symbols in alphabet order).

    Applied to a minimal DFA this is its canonical numbering; it does not merge states.
    """
    rows = dfa.transitions.tolist()
    index = [-1] * dfa.n_states
    index[dfa.initial] = 0
    order = [dfa.initial]
    i = 0
    while i < len(order):
        for q in rows[order[i]]:
            if index[q] < 0:
                index[q] = len(order)
                order.append(q)
        i += 1
    idx = np.asarray(index, dtype=np.int64)
    sel = np.asarray(order, dtype=np.int64)
    return DFA(dfa.alphabet, idx[dfa.transitions[sel]], dfa.accepting[sel], 0)


def minimize(dfa: DFA) -> DFA:
    """The minimal complete DFA of the same language, in canonical numbering.

    Nerode partition refinement (`_partition`: Moore rounds, handed over to Hopcroft's
    O(n·|Σ|·log n) algorithm when they do not converge quickly), then the quotient restricted
    to the reachable states. Idempotent, and canonical: DFAs of the same language give equal
    results.
    """
    return minimize_table(
        dfa.alphabet, dfa.transitions.reshape(-1).tolist(), dfa.accepting.tolist(), dfa.initial
    )


def minimize_table(
    alphabet: Alphabet,
    delta: list[int],
    accepting: Sequence[int],
    initial: int = 0,
    *,
    breadth_first: bool = False,
) -> DFA:
    """`minimize` of the complete DFA given as plain lists: ``delta[q·|Σ| + a]`` is δ(q, a).

    ``accepting[q]`` is truthy when q accepts. Saves the compilers a round trip through
    numpy arrays; the result is the same canonical DFA.

    ``breadth_first=True`` promises that every state is reachable and that the states are
    numbered as a breadth-first search from ``initial = 0`` meets them, successors in symbol
    order (as `automata.explore` numbers them). The canonical numbering of the quotient is
    then the order in which the blocks first appear among the states, so no search is needed:
    the first member of a block is reached by the least (state, symbol) edge into the block,
    and that edge leaves the first member of its own block.
    """
    k = len(alphabet)
    accept = [bool(x) for x in accepting]
    # Nerode equivalence of two states does not depend on which states are reachable, so the
    # partition is computed on all states and only the reachable blocks are kept.
    block_of = _partition(delta, k, accept)
    # block -> its first state (any member represents its block): the last write wins
    rep = dict(zip(reversed(block_of), range(len(block_of) - 1, -1, -1), strict=True))
    table: list[int] = []
    if breadth_first and initial == 0:
        order = list(dict.fromkeys(block_of))
        number = dict(zip(order, range(len(order)), strict=True)).__getitem__
        for b in order:
            q = rep[b] * k
            table.extend(map(number, map(block_of.__getitem__, delta[q : q + k])))
    else:  # the quotient, numbered breadth-first from the initial block (what `trim` does)
        start = block_of[initial]
        index = {start: 0}
        order = [start]
        for b in order:  # grows while iterating: a breadth-first queue
            q = rep[b] * k
            for c in map(block_of.__getitem__, delta[q : q + k]):
                j = index.get(c)
                if j is None:
                    j = index[c] = len(order)
                    order.append(c)
                table.append(j)
    acc = np.array([accept[rep[b]] for b in order], dtype=bool)
    table_array = np.array(table, dtype=np.int64).reshape(len(order), k)
    return DFA._fresh(alphabet, table_array, acc, 0)


#: The canonical form of a DFA's language (an alias of `minimize`, named for intent).
canonical = minimize

#: Moore rounds allowed per ⌈log2 n⌉ before `_partition` switches to Hopcroft's algorithm.
_MOORE_ROUNDS_PER_LOG = 2


def _partition(delta: list[int], k: int, accepting: list[bool]) -> list[int]:
    """The Nerode partition (block id per state) of a complete DFA.

    ``delta[q·k + a]`` is δ(q, a). Moore's refinement (a state's signature is its block and
    its successors' blocks) costs O(n·|Σ|) per round, with the per-state work done by C-level
    ``zip``/``map``; it usually converges in a few rounds, which beats Hopcroft's bookkeeping
    on small automata. It may need up to n rounds, so after ``2·⌈log2 n⌉ + 2`` rounds it
    gives up and Hopcroft's algorithm computes the partition from scratch: the total stays
    O(n·|Σ|·log n). Both give the same partition (the coarsest one compatible with acceptance
    and transitions), up to block names.
    """
    n = len(accepting)
    block = [1 if a else 0 for a in accepting]
    count = len(set(block))
    cols = [delta[a::k] for a in range(k)]  # cols[a][q] = δ(q, a)
    for _ in range(_MOORE_ROUNDS_PER_LOG * max(1, (n - 1).bit_length()) + 2):
        if count == n:
            return block
        keys = list(zip(block, *(map(block.__getitem__, col) for col in cols), strict=True))
        ids = {key: i for i, key in enumerate(dict.fromkeys(keys))}
        if len(ids) == count:  # no block split: a fixpoint
            return block
        block, count = list(map(ids.__getitem__, keys)), len(ids)
    return _hopcroft([delta[q * k : q * k + k] for q in range(n)], accepting, k)


def _hopcroft(rows: list[list[int]], accepting: list[bool], k: int) -> list[int]:
    """Coarsest partition compatible with acceptance and transitions; returns block ids."""
    n = len(rows)
    inverse: list[list[list[int]]] = [[[] for _ in range(n)] for _ in range(k)]
    for p, row in enumerate(rows):
        for a, q in enumerate(row):
            inverse[a][q].append(p)
    acc = {q for q in range(n) if accepting[q]}
    rej = set(range(n)) - acc
    blocks: list[set[int]] = [b for b in (acc, rej) if b]
    block_of = [0] * n
    for b, members in enumerate(blocks):
        for q in members:
            block_of[q] = b
    if len(blocks) < 2:
        return block_of
    smaller = 0 if len(blocks[0]) <= len(blocks[1]) else 1
    work = [(smaller, a) for a in range(k)]
    pending = set(work)
    while work:
        splitter = work.pop()
        pending.discard(splitter)
        b, a = splitter
        inv_a = inverse[a]
        touched: dict[int, list[int]] = {}
        for q in blocks[b]:
            for p in inv_a[q]:
                touched.setdefault(block_of[p], []).append(p)
        for y, moved in touched.items():
            old = blocks[y]
            if len(moved) == len(old):
                continue
            z = len(blocks)
            old.difference_update(moved)
            blocks.append(set(moved))
            for p in moved:
                block_of[p] = z
            smaller = y if len(old) <= len(moved) else z
            for c in range(k):
                # a pending (y, c) now stands for the rest of Y: add the moved part too;
                # otherwise the smaller half suffices (Hopcroft's "process the smaller half")
                new = (z, c) if (y, c) in pending else (smaller, c)
                pending.add(new)
                work.append(new)
    return block_of


def complement(dfa: DFA) -> DFA:
    """The DFA of Σ* ∖ L (the automaton is complete, so acceptance is flipped)."""
    return minimize(DFA(dfa.alphabet, dfa.transitions, ~dfa.accepting, dfa.initial))


def product(left: DFA, right: DFA, accept: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> DFA:
    """The product automaton with acceptance ``accept(left_mask, right_mask)``, minimized."""
    if left.alphabet != right.alphabet:
        raise AlphabetError(
            f"cannot combine DFAs over different alphabets {left.alphabet} and {right.alphabet}"
        )
    n2, k = right.n_states, left.n_symbols
    index = {left.initial * n2 + right.initial: 0}
    codes = [left.initial * n2 + right.initial]
    frontier = np.asarray(codes, dtype=np.int64)
    blocks = []
    while frontier.size:
        nxt = left.transitions[frontier // n2] * n2 + right.transitions[frontier % n2]
        flat = nxt.ravel().tolist()
        ids = []
        first_new = len(codes)
        for c in flat:
            j = index.get(c)
            if j is None:
                j = index[c] = len(codes)
                codes.append(c)
            ids.append(j)
        blocks.append(np.asarray(ids, dtype=np.int64).reshape(-1, k))
        frontier = np.asarray(codes[first_new:], dtype=np.int64)
    pairs = np.asarray(codes, dtype=np.int64)
    acc = accept(left.accepting[pairs // n2], right.accepting[pairs % n2])
    return minimize(DFA(left.alphabet, np.concatenate(blocks), acc, 0))


def intersection(left: DFA, right: DFA) -> DFA:
    """L1 ∩ L2."""
    return product(left, right, np.logical_and)


def union(left: DFA, right: DFA) -> DFA:
    """L1 ∪ L2."""
    return product(left, right, np.logical_or)


def difference(left: DFA, right: DFA) -> DFA:
    """L1 ∖ L2."""
    return product(left, right, lambda x, y: x & ~y)


def symmetric_difference(left: DFA, right: DFA) -> DFA:
    """L1 △ L2."""
    return product(left, right, np.logical_xor)


def is_equivalent(left: DFA, right: DFA) -> Word | None:
    """``None`` when L1 = L2, else a shortest word in exactly one of them.

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
