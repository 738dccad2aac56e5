"""Reference implementations and random automata for the algebra tests.

The references are deliberately naive: the semigroup as the set of transformations of all
words up to a length, Green's relations from principal ideals of a full Cayley table, and every
variety decided by checking its identity on *all* assignments of its variables.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st

from expressivity.algebra.monoid import TransitionSemigroup, transition_semigroup
from expressivity.algebra.varieties import IDENTITIES
from expressivity.algebra.witnesses import Identity, Pow, Term
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import minimize

AB = Alphabet(("a", "b"))
ABC = Alphabet(("a", "b", "c"))


def dfa(alphabet: Alphabet, table: list[list[int]], accepting: list[int], initial: int = 0) -> DFA:
    """A minimal DFA from a transition table and the list of accepting states."""
    n = len(table)
    return minimize(DFA(alphabet, np.array(table), np.isin(np.arange(n), accepting), initial))


def random_dfa(
    rng: np.random.Generator, alphabet: Alphabet = AB, max_states: int = 4, min_states: int = 2
) -> DFA:
    """The minimal DFA of a random complete automaton, with at least ``min_states`` states."""
    while True:
        n = int(rng.integers(min_states, max_states + 1))
        table = rng.integers(0, n, (n, len(alphabet)))
        if rng.random() < 0.5:  # bias towards acyclic-ish automata (R-trivial, LR, ...)
            table = np.maximum(table, np.arange(n)[:, None])
        d = minimize(DFA(alphabet, table, rng.random(n) < 0.5, 0))
        if d.n_states >= min_states:
            return d


@st.composite
def dfas(draw: st.DrawFn, alphabet: Alphabet = AB, max_states: int = 4) -> DFA:
    """Minimal DFAs of random complete automata (half of them with only forward edges plus
    self-loops, so that R-trivial, LR, DA ... languages are well represented)."""
    n = draw(st.integers(1, max_states))
    k = len(alphabet)
    table = np.array(draw(st.lists(st.integers(0, n - 1), min_size=n * k, max_size=n * k)))
    table = table.reshape(n, k)
    if draw(st.booleans()):
        table = np.maximum(table, np.arange(n)[:, None])
    accepting = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return minimize(DFA(alphabet, table, accepting, 0))


def brute_force_rows(d: DFA, max_len: int) -> set[bytes]:
    """Transformations of all non-empty words up to ``max_len`` (as byte keys)."""
    out = set()
    for length in range(1, max_len + 1):
        for word in itertools.product(d.alphabet.symbols, repeat=length):
            row = np.arange(d.n_states)
            for s in word:
                row = d.transitions[row, d.alphabet.index(s)]
            out.add(row.astype(np.int64).tobytes())
    return out


def evaluate_on_table(
    term: Term, values: dict[str, int], table: np.ndarray, omega: np.ndarray, one: int
) -> int:
    """A term's element, by Cayley table products (reference for the witness evaluator)."""
    acc = one
    for atom in term:
        val = (
            omega[evaluate_on_table(atom.body, values, table, omega, one)]
            if isinstance(atom, Pow)
            else values[atom]
        )
        acc = int(table[acc, val])
    return acc


def identity_holds(sg: TransitionSemigroup, identity: Identity) -> bool:
    """Check ``identity`` on every assignment (variables over S, or over M if ``monoid``)."""
    table = sg.cayley_table()
    omega = sg.omega
    domain = range(sg.size) if identity.monoid else range(sg.semigroup_size)
    names = identity.variables
    for values in itertools.product(domain, repeat=len(names)):
        v = dict(zip(names, values, strict=True))
        lhs = evaluate_on_table(identity.lhs, v, table, omega, sg.identity)
        rhs = evaluate_on_table(identity.rhs, v, table, omega, sg.identity)
        if lhs != rhs:
            return False
    return True


def reference_membership(sg: TransitionSemigroup, cls: str) -> bool:
    """Class membership by brute-force identity checking."""
    keys = {
        "j_trivial": ("r_trivial", "l_trivial"),
        "locally_testable": ("locally_idempotent", "locally_commutative"),
    }.get(cls, (cls,))
    return all(identity_holds(sg, IDENTITIES[k]) for k in keys)


def semigroup(d: DFA) -> TransitionSemigroup:
    """Shorthand: the transition semigroup of the minimal DFA."""
    return transition_semigroup(minimize(d))


def random_combination(rng: np.random.Generator, atoms: list[DFA], n: int = 3) -> DFA:
    """A random Boolean combination of ``n`` of the ``atoms`` (each maybe complemented)."""
    pick = [atoms[int(i)] for i in rng.integers(len(atoms), size=n)]
    out = pick[0] if rng.random() < 0.5 else ~pick[0]
    for a in pick[1:]:
        a = a if rng.random() < 0.5 else ~a
        out = out | a if rng.random() < 0.5 else out & a
    return out
