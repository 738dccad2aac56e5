"""Formula synthesis: LTL[P] for R-trivial languages, LTL[Y] for definite ones, verified.

- R-trivial ([LC25] Lemma C.1): the minimal DFA is partially ordered, so a run enters and leaves
  each state at most once. With In_q true at n iff the run is in q before reading w_n:
  Visited_q = ⊤ for the initial state, else P(∨_{p≠q, p·a=q} In_p ∧ a);
  In_q = Visited_q ∧ ¬P(Visited_q ∧ ∨_{q·a≠q} a); and L = ∨_{q accepting} In_q at EOS.
- Definite: membership depends on a bounded suffix; reading the word backwards from EOS, a
  decision tree on ``Y^i a`` (and ``¬Y^i ⊤`` for words shorter than the suffix) stops at each
  suffix s after which acceptance no longer depends on the prefix (every state·s agrees).

Each result is simplified (`boolean.simplify`), compiled back with `compile_formula` and checked
equivalent to the language; a mismatch is a bug and raises AssertionError.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.errors import NotInFragmentError, SynthesisTooLargeError
from expressivity.logic.syntax import FALSE, TRUE, And, Formula, Not, Symbol, disj
from expressivity.logic.temporal import Past, Yesterday

from .boolean import simplify


def _minimal(dfa: DFA) -> DFA:
    from expressivity.automata.ops import minimize

    return minimize(dfa)


def _letters(symbols: list[str]) -> Formula:
    return disj(*(Symbol(s) for s in symbols))


def synthesize_past(language: DFA) -> Formula:
    """An LTL[P] formula for an R-trivial language (raises `NotInFragmentError` otherwise)."""
    from expressivity.algebra.graphs import is_partially_ordered

    dfa = _minimal(language)
    verdict = is_partially_ordered(dfa)
    if verdict is not True:
        raise NotInFragmentError(f"not R-trivial, so not in LTL[P]: {verdict.describe()}")
    sym = dfa.alphabet.symbols
    t = dfa.transitions
    order = _topological(dfa)
    inside: dict[int, Formula] = {}
    for q in order:
        if q == dfa.initial:
            visited: Formula = TRUE
        else:
            entries = [
                And(inside[p], _letters([s for a, s in enumerate(sym) if t[p, a] == q]))
                for p in order
                if p != q and p in inside and (t[p] == q).any()
            ]
            visited = Past(simplify(_bounded(disj(*entries)), sym, at_eos=False))
        leaving = [s for a, s in enumerate(sym) if t[q, a] != q]
        left = Past(And(visited, _letters(leaving))) if leaving else FALSE
        inside[q] = simplify(_bounded(And(visited, Not(left))), sym, at_eos=False)
    accepting = [q for q in order if dfa.accepting[q]]
    rejecting = [q for q in order if not dfa.accepting[q]]
    if len(rejecting) < len(accepting):
        formula: Formula = Not(disj(*(inside[q] for q in rejecting)))
    else:
        formula = disj(*(inside[q] for q in accepting))
    # In_q has no letter outside P, so its letter-position simplification also holds at EOS
    return _verified(simplify(_bounded(formula), sym), dfa)


#: The most states of a definite DFA `synthesize_yesterday` builds a formula for.
MAX_SUFFIX_STATES = 128
#: The most nodes a synthesized formula may have written out as a tree (its parts are shared
#: in memory, so the written size can grow exponentially with the DFA: aⁿ gives about 2ⁿ).
MAX_SYNTHESIS_SIZE = 20_000


def tree_size(formula: Formula, limit: int | None = None) -> int:
    """Nodes of ``formula`` written out as a tree, counted over its shared parts (time linear
    in the distinct subformulas); stops counting past ``limit``."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Formula, bool]] = [(formula, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in sizes:
            continue
        if ready:
            sizes[id(node)] = 1 + sum(sizes[id(c)] for c in node.children)
            if limit is not None and sizes[id(node)] > limit:
                return sizes[id(node)]
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in node.children if id(c) not in sizes)
    return sizes[id(formula)]


def _bounded(formula: Formula) -> Formula:
    size = tree_size(formula, MAX_SYNTHESIS_SIZE)
    if size > MAX_SYNTHESIS_SIZE:
        raise SynthesisTooLargeError(
            f"the synthesized formula outgrows MAX_SYNTHESIS_SIZE = {MAX_SYNTHESIS_SIZE:,} "
            "nodes written out (its size can double with every state of the DFA); no formula "
            "is given for this language")
    return formula


def _topological(dfa: DFA) -> list[int]:
    """States of a partially ordered DFA, every state after all its proper predecessors."""
    n = dfa.n_states
    indeg = np.zeros(n, dtype=np.int64)
    edges = {(p, int(q)) for p in range(n) for q in dfa.transitions[p] if int(q) != p}
    for _, q in edges:
        indeg[q] += 1
    queue = deque(sorted(q for q in range(n) if indeg[q] == 0))
    order: list[int] = []
    while queue:
        p = queue.popleft()
        order.append(p)
        for pp, q in sorted(edges):
            if pp == p:
                indeg[q] -= 1
                if indeg[q] == 0:
                    queue.append(q)
    return order


def synthesize_yesterday(language: DFA, max_suffix: int | None = None) -> Formula:
    """An LTL[Y] formula (``Y^i`` = i-fold Y) for a definite language."""
    from expressivity.algebra.graphs import is_definite_by_pair_graph

    dfa = _minimal(language)
    verdict = is_definite_by_pair_graph(dfa)
    if verdict is not True:
        raise NotInFragmentError(f"not definite, so not in LTL[Y]: {verdict.describe()}")
    if dfa.n_states > MAX_SUFFIX_STATES:  # the suffix tree nests about one Y per state
        raise SynthesisTooLargeError(
            f"the minimal DFA has {dfa.n_states} states, more than MAX_SUFFIX_STATES = "
            f"{MAX_SUFFIX_STATES}: its LTL[Y] formula would nest too deep to build and print; no "
            "formula is given for this language")
    limit = max_suffix if max_suffix is not None else dfa.n_states * dfa.n_states + 1
    sym = dfa.alphabet.symbols
    everywhere = np.arange(dfa.n_states)
    formula = _suffix_tree(dfa, (), everywhere, limit)
    return _verified(simplify(_bounded(formula), sym), dfa)


def _suffix_tree(dfa: DFA, suffix: Word, states: np.ndarray, limit: int) -> Formula:
    """Formula at EOS for words ending in ``suffix``; ``states`` = {q·suffix : q ∈ Q}."""
    acc = dfa.accepting[states]
    if acc.all() or not acc.any():
        return TRUE if acc.all() else FALSE
    if len(suffix) >= limit:
        raise AssertionError("a definite language needs a longer suffix than its bound")
    i = len(suffix) + 1
    exact = dfa.accepts(suffix)  # the word is exactly the suffix
    # letters with one column of the DFA give one subtree (it reads only states, never the
    # letter): one call per class, not per letter (3^12 calls for a length-only language)
    classes: dict[bytes, list[int]] = {}
    for a in range(len(dfa.alphabet)):
        classes.setdefault(dfa.transitions[:, a].tobytes(), []).append(a)
    branches: dict[Formula, list[int]] = {}
    for members in classes.values():
        a = members[0]
        # states reached by (anything)·s·suffix: those q·suffix with q in the image of s
        image = np.unique(dfa.transitions[:, a])
        sub = _run_all(dfa, image, suffix)
        s = dfa.alphabet.symbols[a]
        branches.setdefault(_suffix_tree(dfa, (s, *suffix), sub, limit), []).extend(members)
    sym = dfa.alphabet.symbols
    parts: list[Formula] = [
        And(Yesterday(_letters([sym[a] for a in sorted(letters)]), i), sub)
        for sub, letters in branches.items()
    ]
    if exact:
        parts.append(Not(Yesterday(TRUE, i)))
    return disj(*parts)


def _run_all(dfa: DFA, states: np.ndarray, word: Word) -> np.ndarray:
    out = states
    for s in word:
        out = dfa.transitions[out, dfa.alphabet.index(s)]
    return np.unique(out)


def _verified(formula: Formula, dfa: DFA) -> Formula:
    from expressivity.automata.compile import compile_formula
    from expressivity.automata.ops import distinguishing_word

    compiled = compile_formula(formula, dfa.alphabet)
    diff = distinguishing_word(compiled, dfa)
    if diff is not None:
        raise AssertionError(f"synthesized {formula} differs from the language on {diff!r}")
    return formula
