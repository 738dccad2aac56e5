"""Automaton constructions on plain transition tables, below the `DFA` value: product, quotient.

`DFA`'s set operators and `automata.ops` both build their results here, so the Boolean
operations have one implementation whichever spelling calls them (``a | b`` or
``ops.union(a, b)``). A table is ``delta[q·k + a]`` = δ(q, a) (or an ``(n, k)`` array) with an
accepting mask; nothing here knows the alphabet's names.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["product_table", "quotient"]


def product_table(
    left: np.ndarray,
    left_initial: int,
    right: np.ndarray,
    right_initial: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The reachable part of the product of two complete ``(n, k)`` transition tables.

    Returns ``(table, first, second)``: the product's table with its states numbered in the
    order a breadth-first exploration from the pair of initial states meets them (state 0 is
    that pair), and for every product state the state of each factor, so that any Boolean
    combination of the factors' accepting masks is ``accept(acc1[first], acc2[second])``.
    """
    n2, k = right.shape[0], left.shape[1]
    index = {left_initial * n2 + right_initial: 0}
    codes = [left_initial * n2 + right_initial]
    frontier = np.asarray(codes, dtype=np.int64)
    blocks = []
    while frontier.size:
        nxt = left[frontier // n2] * n2 + right[frontier % n2]
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
    return np.concatenate(blocks), pairs // n2, pairs % n2


def quotient(
    k: int,
    delta: list[int],
    accepting: Sequence[int],
    initial: int = 0,
    *,
    breadth_first: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The minimal quotient of a complete table over ``k`` symbols, in canonical numbering.

    Returns the ``(m, k)`` int64 table and the ``(m,)`` bool accepting mask of the minimal
    DFA, its states numbered breadth-first from the initial one (state 0). See
    `automata.minimal.minimize_table` for ``breadth_first`` (the caller checks ``initial``).
    """
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
    return np.array(table, dtype=np.int64).reshape(len(order), k), acc


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
