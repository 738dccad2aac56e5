"""Compile temporal-logic formulas into canonical minimal DFAs (semantics of docs/theory.md §2).

Pure-past formulas (P, Y, Y^k, Y^{≤k}, H, S and Boolean connectives) are compiled by a direct
deterministic construction: a state holds the registers the past operators need (see
`automata.circuit`), one letter is read per position, and a state accepts iff the formula
holds when the EOS step (where no letter of Σ holds) is read from it. The reachable register
states are enumerated breadth-first, bit-parallel over each layer
(`automata.circuit_to_automaton`, which runs the circuit as the program of
`automata.circuit_to_program`), and the result is minimized
(`automata.minimal`).

Formulas with future operators (X, WX, F, G, U), alone or mixed with past ones, use the same
registers plus a guess of every future operator's value at each position, checked one step
later against its unfolding (``F ψ ≡ X(ψ ∨ F ψ)``, ...) and forced at EOS (``F``, ``X``, ``U``
false; ``G``, ``WX`` true). Exactly one run per word is consistent, so this is an
(unambiguous) NFA; it is trimmed to states that can still accept, determinized by the subset
construction and minimized. A future-heavy formula is instead read right to left
(`automata.mirror`), where its future operators are deterministic and its past ones guessed,
and the automaton of the reversed language is reversed back; whichever direction guesses
fewer operators is used. MOD predicates (``mod(m,r)``) are read forwards only, by a counter of
one-hot registers that cycles through the m phases (`automata.circuit`).

Every intermediate automaton is bounded by ``max_states``: a larger one raises
`StateExplosionError` naming the formula and the bound, after work proportional to the bound.
"""

from __future__ import annotations

import numpy as np

from expressivity.alphabet import Alphabet
from expressivity.automata.circuit import Circuit, build_circuit
from expressivity.automata.circuit_to_automaton import Exploration, explore
from expressivity.automata.dfa import DFA
from expressivity.automata.mirror import mirrored_circuit
from expressivity.automata.nfa import DEFAULT_MAX_STATES, NFA, reverse
from expressivity.automata.ops import minimize, minimize_table
from expressivity.errors import AutomatonError, StateExplosionError
from expressivity.logic.syntax import Formula

__all__ = ["DEFAULT_MAX_STATES", "compile_formula", "compile_with"]


def compile_formula(
    formula: Formula, alphabet: Alphabet | str, *, max_states: int = DEFAULT_MAX_STATES
) -> DFA:
    """The canonical minimal DFA of L(φ) = { w : w, N+1 ⊨ φ } over ``alphabet``.

    ``alphabet`` may be an `Alphabet` or text such as ``"a,b,c"``; a symbol of the formula
    outside it raises `AlphabetError`. ``max_states`` bounds every intermediate automaton.
    """
    return compile_with(formula, alphabet, max_states=max_states, direction="auto")


def compile_with(
    formula: Formula,
    alphabet: Alphabet | str,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    direction: str = "auto",
) -> DFA:
    """`compile_formula` with a chosen construction: ``"forward"``, ``"backward"`` or ``"auto"``.

    Forward reads the word left to right and guesses the future operators; backward reads
    it right to left (`automata.mirror`) and guesses the past ones; auto takes the one with
    fewer guesses (forward, deterministic, for pure-past formulas). All give the same DFA.
    Backward rejects formulas with MOD predicates (`UnsupportedFragmentError`).
    """
    sigma = alphabet if isinstance(alphabet, Alphabet) else Alphabet.parse(alphabet)
    if max_states < 1:
        raise AutomatonError(f"max_states must be positive, got {max_states}")
    if direction not in ("auto", "forward", "backward"):
        raise AutomatonError(f"direction must be auto, forward or backward, not {direction!r}")
    try:
        circuit = build_circuit(formula, sigma, max_modulus=max_states)
        if direction == "auto" and circuit.future and not circuit.cycle:
            mirrored, sigma2 = mirrored_circuit(formula, sigma)
            if len(mirrored.future) < len(circuit.future):
                return _backward(mirrored, sigma2, sigma, max_states)
        if direction == "backward":
            return _backward(*mirrored_circuit(formula, sigma), sigma, max_states)
        if circuit.is_pure_past:  # deterministic: minimize the explored table as it is
            found = explore(circuit, len(sigma), max_states=max_states)
            return minimize_table(sigma, found.dst, found.accepting, breadth_first=True)
        return minimize(_automaton(circuit, sigma, max_states))
    except StateExplosionError as err:
        raise StateExplosionError(
            f"compiling {describe(formula)} over {sigma} needs more than {max_states} states "
            f"({err}); raise max_states or simplify the formula"
        ) from None


def _automaton(circuit: Circuit, sigma: Alphabet, max_states: int) -> DFA:
    """A DFA (not minimal) of the words at whose EOS step the circuit's root holds."""
    found = explore(circuit, len(sigma), max_states=max_states)
    if found.src is None:  # deterministic: the complete table, state-major
        table = np.array(found.dst, dtype=np.int64).reshape(found.n_states, len(sigma))
        accepting = np.frombuffer(found.accepting, dtype=np.uint8).astype(bool)
        return DFA._fresh(sigma, table, accepting, 0)
    return _trimmed_nfa(found, sigma).determinize(max_states)


def _backward(mirrored: Circuit, extended: Alphabet, sigma: Alphabet, max_states: int) -> DFA:
    """The mirrored automaton reads # · reverse(w): start after #, drop #, reverse back."""
    dfa = _automaton(mirrored, extended, max_states)
    k = len(sigma)  # the marker # is the last symbol of `extended`
    reversed_language = DFA(sigma, dfa.transitions[:, :k], dfa.accepting, dfa.transitions[0, k])
    return minimize(reverse(reversed_language).determinize(max_states))


def _trimmed_nfa(found: Exploration, sigma: Alphabet) -> NFA:
    """The guessing automaton restricted to states from which acceptance is still possible."""
    n = found.n_states
    assert found.src is not None and found.letter is not None  # an exploration with guesses
    src, letter = found.src.tolist(), found.letter.tolist()
    alive = list(map(bool, found.accepting))
    preds: list[list[int]] = [[] for _ in range(n)]
    for p, q in zip(src, found.dst, strict=True):
        preds[q].append(p)
    stack = [q for q in range(n) if alive[q]]
    while stack:
        for p in preds[stack.pop()]:
            if not alive[p]:
                alive[p] = True
                stack.append(p)
    rows: list[list[set[int]]] = [[set() for _ in range(len(sigma))] for _ in range(n)]
    edges = zip(src, letter, found.dst, strict=True)
    for p, a, q in edges:
        if alive[p] and alive[q]:
            rows[p][a].add(q)
    delta = tuple(tuple(frozenset(s) for s in row) for row in rows)
    accepting = frozenset(q for q in range(n) if found.accepting[q])
    return NFA(sigma, delta, frozenset((0,)), accepting)


def describe(formula: Formula, limit: int = 200) -> str:
    """The formula as text for messages, shortened to ``limit`` characters."""
    try:
        text = str(formula)
    except Exception:
        text = repr(formula)
    return text if len(text) <= limit else text[: limit - 1] + "…"
