"""Minimization and canonical form: Moore refinement with a Hopcroft fallback, then the quotient.

The canonical form of a DFA is its minimal complete DFA with the states numbered in the
order a breadth-first search from the initial state meets them, symbols in alphabet order:
two DFAs of the same language have equal canonical forms (equal tables, equal hashes).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA

__all__ = ["canonical", "minimize", "minimize_table", "trim"]


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
    order (as `automata.circuit_to_automaton` numbers them). The canonical numbering of the
    quotient is then the order in which the blocks first appear among the states, so no search
    is needed: the first member of a block is reached by the least (state, symbol) edge into the
    block, and that edge leaves the first member of its own block.
    """
    if breadth_first and initial != 0:
        raise ValueError(f"a breadth-first numbering starts at state 0, not {initial}")
    k = len(alphabet)
    accept = [bool(x) for x in accepting]
    # Nerode equivalence of two states does not depend on which states are reachable, so the
    # partition is computed on all states and only the reachable blocks are kept.
    block_of = _partition(delta, k, accept)
    # block -> its first state (any member represents its block): the last write wins
    rep = dict(zip(reversed(block_of), range(len(block_of) - 1, -1, -1), strict=True))
    table: list[int] = []
    if breadth_first:
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
