"""The `DFA` value type: a complete deterministic automaton over an ordered alphabet."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from expressivity.alphabet import Alphabet, Word

if TYPE_CHECKING:
    import networkx as nx
    import numpy.typing as npt

    from expressivity.automata.nfa import NFA


@dataclass(frozen=True, eq=False)
class DFA:
    """A complete DFA: ``transitions[q, a]`` is the state reached from ``q`` on symbol code ``a``.

    Values are immutable (the arrays are made read-only). Equality and hashing are
    *structural*: two DFAs are equal iff alphabet, initial state, table and accepting mask are
    identical. Canonical DFAs (see `automata.ops.canonical`) of the same language are therefore
    equal; use `is_equivalent` for language equality of arbitrary DFAs.
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

    # ------------------------------------------------------------ counting (see automata.counting)
    def count(self, length: int) -> int:
        """The exact number of accepted words of length ``length``."""
        from expressivity.automata.counting import count_words

        return count_words(self, length)

    def count_table(self, max_len: int) -> np.ndarray:
        """Exact counts (Python ints) of accepted words of every length ``0..max_len``."""
        from expressivity.automata.counting import count_table

        return count_table(self, max_len)

    def density(self, length: int) -> float:
        """The fraction of words of length ``length`` that are accepted."""
        from expressivity.automata.counting import density

        return density(self, length)

    def words(self, length: int) -> Iterator[Word]:
        """Every accepted word of length ``length``, lazily, in lexicographic order."""
        from expressivity.automata.counting import words_of_length

        return words_of_length(self, length)

    # ------------------------------------------------------------ operations (see automata.ops)
    def minimize(self) -> DFA:
        """The minimal DFA of the language, in canonical numbering (Hopcroft)."""
        from expressivity.automata.ops import minimize

        return minimize(self)

    def canonical(self) -> DFA:
        """The canonical form: minimal, breadth-first numbered; equal languages give equal DFAs."""
        return self.minimize()

    def complement(self) -> DFA:
        """Σ* ∖ L."""
        from expressivity.automata.ops import complement

        return complement(self)

    def intersection(self, other: DFA) -> DFA:
        """L ∩ L(other)."""
        from expressivity.automata.ops import intersection

        return intersection(self, other)

    def union(self, other: DFA) -> DFA:
        """L ∪ L(other)."""
        from expressivity.automata.ops import union

        return union(self, other)

    def difference(self, other: DFA) -> DFA:
        """L ∖ L(other)."""
        from expressivity.automata.ops import difference

        return difference(self, other)

    def symmetric_difference(self, other: DFA) -> DFA:
        """L △ L(other)."""
        from expressivity.automata.ops import symmetric_difference

        return symmetric_difference(self, other)

    def __invert__(self) -> DFA:
        return self.complement()

    def __and__(self, other: DFA) -> DFA:
        return self.intersection(other)

    def __or__(self, other: DFA) -> DFA:
        return self.union(other)

    def __sub__(self, other: DFA) -> DFA:
        return self.difference(other)

    def __xor__(self, other: DFA) -> DFA:
        return self.symmetric_difference(other)

    def is_equivalent(self, other: DFA) -> Word | None:
        """``None`` when the languages are equal, else a shortest distinguishing word.

        Test with ``is None``: the empty word ``()`` is a possible witness.
        """
        from expressivity.automata.ops import is_equivalent

        return is_equivalent(self, other)

    def is_empty(self) -> bool:
        """Whether L = ∅."""
        from expressivity.automata.ops import is_empty

        return is_empty(self)

    def is_finite(self) -> bool:
        """Whether L is finite."""
        from expressivity.automata.ops import is_finite

        return is_finite(self)

    def shortest_accepted(self) -> Word | None:
        """A shortest accepted word (shortlex-least), ``None`` if L = ∅."""
        from expressivity.automata.ops import shortest_accepted

        return shortest_accepted(self)

    def shortest_rejected(self) -> Word | None:
        """A shortest rejected word (shortlex-least), ``None`` if L = Σ*."""
        from expressivity.automata.ops import shortest_rejected

        return shortest_rejected(self)

    def reverse(self) -> NFA:
        """An NFA of the reversed language; ``.determinize()`` it on demand."""
        from expressivity.automata.nfa import NFA

        return NFA.from_dfa(self).reverse()

    def to_networkx(self) -> nx.DiGraph:
        """A networkx graph of the automaton (see `automata.drawing.to_networkx`)."""
        from expressivity.automata.drawing import to_networkx

        return to_networkx(self)

    def to_dot(self, *, hide_sink: bool = False) -> str:
        """Graphviz DOT text of the automaton."""
        from expressivity.automata.drawing import to_dot

        return to_dot(self, hide_sink=hide_sink)

    def render(self, path: str | Path, *, hide_sink: bool = False) -> Path:
        """Draw the automaton with Graphviz into ``path`` (``.png``, ``.svg``, ...)."""
        from expressivity.automata.drawing import render

        return render(self, path, hide_sink=hide_sink)
