"""Minimization and canonical form of DFAs (the quotient itself: `automata.tables.quotient`).

The canonical form of a DFA is its minimal complete DFA with the states numbered in the
order a breadth-first search from the initial state meets them, symbols in alphabet order:
two DFAs of the same language have equal canonical forms (equal tables, equal hashes).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.tables import quotient
from expressivity.errors import AutomatonError

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

    Nerode partition refinement (`tables._partition`: Moore rounds, handed over to Hopcroft's
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
        raise AutomatonError(f"a breadth-first numbering starts at state 0, not {initial}")
    table, acc = quotient(len(alphabet), delta, accepting, initial, breadth_first=breadth_first)
    return DFA._fresh(alphabet, table, acc, 0)


#: The canonical form of a DFA's language (an alias of `minimize`, named for intent).
canonical = minimize
