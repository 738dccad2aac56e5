"""The `NFA` value type (with ε-moves) and its subset construction into a `DFA`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.errors import AutomatonError, StateExplosionError

#: Default bound on the states of a determinized automaton.
DEFAULT_MAX_STATES = 100_000


@dataclass(frozen=True)
class NFA:
    """A nondeterministic automaton: ``delta[q][a]`` is the set of successors of ``q`` on ``a``.

    ``epsilon[q]`` (optional, ``()`` when there are no ε-moves) is the set of ε-successors of
    ``q``. States are ``0 .. n_states - 1``. Equality is structural.
    """

    alphabet: Alphabet
    delta: tuple[tuple[frozenset[int], ...], ...]
    initial: frozenset[int]
    accepting: frozenset[int]
    epsilon: tuple[frozenset[int], ...] = ()

    def __post_init__(self) -> None:
        delta = tuple(tuple(frozenset(s) for s in row) for row in self.delta)
        object.__setattr__(self, "delta", delta)
        object.__setattr__(self, "initial", frozenset(self.initial))
        object.__setattr__(self, "accepting", frozenset(self.accepting))
        object.__setattr__(self, "epsilon", tuple(frozenset(s) for s in self.epsilon))
        n, k = len(delta), len(self.alphabet)
        if any(len(row) != k for row in delta):
            raise AutomatonError(f"every row of delta needs {k} successor sets (one per symbol)")
        if self.epsilon and len(self.epsilon) != n:
            raise AutomatonError(f"epsilon needs one set per state ({n}), got {len(self.epsilon)}")
        sets: Iterable[frozenset[int]] = (
            self.initial,
            self.accepting,
            *self.epsilon,
            *(s for row in delta for s in row),
        )
        if any(q < 0 or q >= n for s in sets for q in s):
            raise AutomatonError(f"an NFA state outside 0..{n - 1}")

    @property
    def n_states(self) -> int:
        """Number of states."""
        return len(self.delta)

    @classmethod
    def from_dfa(cls, dfa: DFA) -> NFA:
        """The DFA seen as an NFA (singleton successor sets)."""
        rows = tuple(tuple(frozenset((int(q),)) for q in row) for row in dfa.transitions)
        acc = frozenset(int(q) for q in np.flatnonzero(dfa.accepting))
        return cls(dfa.alphabet, rows, frozenset((dfa.initial,)), acc)

    def _closure_masks(self) -> list[int]:
        """ε-closure of every state, as an int bitmask over states."""
        n = self.n_states
        masks = [1 << q for q in range(n)]
        if not self.epsilon:
            return masks
        for q in range(n):
            stack, seen = [q], 1 << q
            while stack:
                for r in self.epsilon[stack.pop()]:
                    if not seen >> r & 1:
                        seen |= 1 << r
                        stack.append(r)
            masks[q] = seen
        return masks

    def accepts(self, word: Sequence[str]) -> bool:
        """Whether some run on ``word`` ends in an accepting state."""
        closure = self._closure_masks()
        current = _union(closure, _mask(self.initial))
        for s in word:
            a = self.alphabet.index(s)
            step = 0
            for q in _bits(current):
                step |= _mask(self.delta[q][a])
            current = _union(closure, step)
        return bool(current & _mask(self.accepting))

    def reverse(self) -> NFA:
        """The NFA of the reversed language (arrows flipped, initial and accepting swapped)."""
        n, k = self.n_states, len(self.alphabet)
        rows: list[list[set[int]]] = [[set() for _ in range(k)] for _ in range(n)]
        eps: list[set[int]] = [set() for _ in range(n)]
        for q, row in enumerate(self.delta):
            for a, targets in enumerate(row):
                for r in targets:
                    rows[r][a].add(q)
        for q, targets in enumerate(self.epsilon):
            for r in targets:
                eps[r].add(q)
        return NFA(
            self.alphabet,
            tuple(tuple(frozenset(s) for s in row) for row in rows),
            self.accepting,
            self.initial,
            tuple(frozenset(s) for s in eps) if self.epsilon else (),
        )

    def determinize(self, max_states: int = DEFAULT_MAX_STATES, *, what: str = "") -> DFA:
        """The subset construction: a complete DFA (not minimized) of the same language.

        Only reachable subsets are built; the empty subset becomes the sink. More than
        ``max_states`` subsets raise `StateExplosionError` (``what`` names the source).
        """
        closure = self._closure_masks()
        k = len(self.alphabet)
        step = [[_union(closure, _mask(row[a])) for a in range(k)] for row in self.delta]
        accepting = _mask(self.accepting)
        start = _union(closure, _mask(self.initial))
        index = {start: 0}
        subsets = [start]
        table: list[list[int]] = []
        i = 0
        while i < len(subsets):
            current, row = subsets[i], []
            members = list(_bits(current))
            for a in range(k):
                nxt = 0
                for q in members:
                    nxt |= step[q][a]
                j = index.get(nxt)
                if j is None:
                    if len(subsets) >= max_states:
                        raise StateExplosionError(
                            f"the subset construction{' for ' + what if what else ''} reaches "
                            f"more than {max_states} states"
                        )
                    j = index[nxt] = len(subsets)
                    subsets.append(nxt)
                row.append(j)
            table.append(row)
            i += 1
        acc = [bool(s & accepting) for s in subsets]
        return DFA(self.alphabet, np.array(table, dtype=np.int64).reshape(-1, k), acc, 0)


def _mask(states: Iterable[int]) -> int:
    out = 0
    for q in states:
        out |= 1 << q
    return out


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _union(closure: list[int], mask: int) -> int:
    out = 0
    for q in _bits(mask):
        out |= closure[q]
    return out


def reverse(dfa: DFA) -> NFA:
    """An NFA of the reversed language of ``dfa``; ``.determinize()`` it on demand."""
    return NFA.from_dfa(dfa).reverse()
