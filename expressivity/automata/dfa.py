"""The `DFA` value type: a complete deterministic automaton over an ordered alphabet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from expressivity.alphabet import Alphabet

if TYPE_CHECKING:
    import numpy.typing as npt


@dataclass(frozen=True, eq=False)
class DFA:
    """A complete DFA: ``transitions[q, a]`` is the state reached from ``q`` on symbol code ``a``.

    Values are immutable (the arrays are made read-only). Equality and hashing are
    *structural*: two DFAs are equal iff alphabet, initial state, table and accepting mask are
    identical. Canonical DFAs (see `automata.ops.canonical`) of the same language are therefore
    equal; use `ops.equivalent` for language equality of arbitrary DFAs.

    The class holds the value and runs words; what one does with an automaton is a function of
    it: `automata.ops` (minimize, complement, products, equivalence, shortest words),
    `automata.counting` (count, words), `automata.nfa` (reverse) and `automata.drawing`.
    """

    alphabet: Alphabet
    transitions: np.ndarray  # (n_states, |Σ|) int64
    accepting: np.ndarray  # (n_states,) bool
    initial: int = 0

    if TYPE_CHECKING:  # the generated __init__ also takes nested lists; it converts them

        def __init__(
            self,
            alphabet: Alphabet,
            transitions: npt.ArrayLike,
            accepting: npt.ArrayLike,
            initial: int = 0,
        ) -> None: ...

    def __post_init__(self) -> None:
        t = np.array(self.transitions, dtype=np.int64, copy=True)
        acc = np.array(self.accepting, dtype=bool, copy=True).reshape(-1)
        if t.ndim != 2 or t.shape[1] != len(self.alphabet):
            raise ValueError(
                f"transition table must have shape (states, {len(self.alphabet)}), got {t.shape}"
            )
        n = t.shape[0]
        if n == 0:
            raise ValueError("a DFA needs at least one state")
        if acc.shape != (n,):
            raise ValueError(f"accepting mask must have length {n}, got {acc.shape}")
        if t.size and (t.min() < 0 or t.max() >= n):
            raise ValueError("transition table refers to a state outside 0..n-1")
        if not 0 <= self.initial < n:
            raise ValueError(f"initial state {self.initial} outside 0..{n - 1}")
        t.setflags(write=False)
        acc.setflags(write=False)
        object.__setattr__(self, "transitions", t)
        object.__setattr__(self, "accepting", acc)
        object.__setattr__(self, "initial", int(self.initial))

    @classmethod
    def _fresh(
        cls, alphabet: Alphabet, transitions: np.ndarray, accepting: np.ndarray, initial: int = 0
    ) -> DFA:
        """Internal: wrap arrays the caller just built and will not touch again, unchecked.

        ``transitions`` must be an int64 ``(n, |Σ|)`` table with entries in ``0..n-1`` and
        ``accepting`` a bool ``(n,)`` mask; they are made read-only and kept, not copied.
        """
        dfa = object.__new__(cls)
        transitions.setflags(write=False)
        accepting.setflags(write=False)
        object.__setattr__(dfa, "alphabet", alphabet)
        object.__setattr__(dfa, "transitions", transitions)
        object.__setattr__(dfa, "accepting", accepting)
        object.__setattr__(dfa, "initial", int(initial))
        return dfa

    # ------------------------------------------------------------ identity
    def _key(self) -> tuple[Any, ...]:
        return (
            self.alphabet.symbols,
            self.initial,
            self.transitions.shape,
            self.transitions.tobytes(),
            self.accepting.tobytes(),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DFA) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"DFA(states={self.n_states}, alphabet={self.alphabet}, "
            f"accepting={np.flatnonzero(self.accepting).tolist()}, initial={self.initial})"
        )

    # ------------------------------------------------------------ basics
    @property
    def n_states(self) -> int:
        """Number of states (the sink included)."""
        return int(self.transitions.shape[0])

    @property
    def n_symbols(self) -> int:
        """Alphabet size |Σ|."""
        return int(self.transitions.shape[1])

    def run(self, word: Sequence[str], state: int | None = None) -> int:
        """The state reached from ``state`` (default: initial) after reading ``word``."""
        q = self.initial if state is None else state
        for s in word:
            q = int(self.transitions[q, self.alphabet.index(s)])
        return q

    def accepts(self, word: Sequence[str]) -> bool:
        """Whether the DFA accepts ``word`` (a sequence of symbol names)."""
        return bool(self.accepting[self.run(word)])

    def __contains__(self, word: object) -> bool:
        return isinstance(word, (tuple, list)) and self.accepts(word)

    def run_codes(self, codes: np.ndarray, lengths: np.ndarray | None = None) -> np.ndarray:
        """Final states for a batch of encoded words.

        ``codes`` is ``(B, T)`` integer symbol codes (padding beyond each length is ignored);
        ``lengths`` is ``(B,)`` (default: all ``T``). Vectorized over the batch.
        """
        codes = np.asarray(codes, dtype=np.int64)
        if codes.ndim == 1:
            codes = codes[None, :]
        b, t = codes.shape
        lens = np.full(b, t, dtype=np.int64) if lengths is None else np.asarray(lengths)
        q = np.full(b, self.initial, dtype=np.int64)
        for i in range(t):
            live = lens > i
            if not live.any():
                break
            q = np.where(live, self.transitions[q, np.where(live, codes[:, i], 0)], q)
        return q

    def accepts_codes(self, codes: np.ndarray, lengths: np.ndarray | None = None) -> np.ndarray:
        """Vectorized membership for a batch of encoded words (see `run_codes`)."""
        return self.accepting[self.run_codes(codes, lengths)]
