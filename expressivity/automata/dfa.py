"""The `DFA` value type: a complete deterministic automaton over an ordered alphabet."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from expressivity.alphabet import Alphabet
from expressivity.automata.tables import product_table, quotient
from expressivity.errors import AlphabetError, AutomatonError

if TYPE_CHECKING:
    import numpy.typing as npt


@dataclass(frozen=True, eq=False)
class DFA:
    """A complete DFA: ``transitions[q, a]`` is the state reached from ``q`` on symbol code ``a``.

    Values are immutable (the arrays are made read-only). Equality and hashing are
    *structural*: two DFAs are equal iff alphabet, initial state, table and accepting mask are
    identical. Canonical DFAs (see `automata.ops.canonical`) of the same language are therefore
    equal; use `ops.equivalent` for language equality of arbitrary DFAs.

    A DFA is also a Python value for its language L, in automata-lib's spelling: ``word in
    dfa`` is membership, ``a | b``, ``a & b``, ``a - b``, ``a ^ b`` and ``~a`` are the DFAs
    (canonical) of L1 ∪ L2, L1 ∩ L2, L1 ∖ L2, L1 △ L2 and Σ* ∖ L (`ops.union` ... `ops.complement`),
    and ``a <= b``, ``a < b``, ``a >= b``, ``a > b`` compare languages by inclusion (proper for
    ``<``/``>``). Combining DFAs over different alphabets raises `AlphabetError`. ``==`` stays
    structural: ``a <= b <= a`` says L1 = L2 without ``a == b`` unless both are canonical.

    The class holds the value and runs words; what else one does with an automaton is a
    function of it: `automata.ops` (minimize, equivalence, shortest words),
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
            raise AutomatonError(
                f"transition table must have shape (states, {len(self.alphabet)}), got {t.shape}"
            )
        n = t.shape[0]
        if n == 0:
            raise AutomatonError("a DFA needs at least one state")
        if acc.shape != (n,):
            raise AutomatonError(f"accepting mask must have length {n}, got {acc.shape}")
        if t.size and (t.min() < 0 or t.max() >= n):
            raise AutomatonError("transition table refers to a state outside 0..n-1")
        if not 0 <= self.initial < n:
            raise AutomatonError(f"initial state {self.initial} outside 0..{n - 1}")
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
        """``word in dfa``: `accepts` for every word spelling it takes (a tuple or list of
        symbol names, a string of one-character symbols, ...); a word with a symbol outside Σ,
        or a value that is not a word, is not in L."""
        try:
            return self.accepts(word)  # type: ignore[arg-type]
        except (AlphabetError, TypeError):
            return False

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

    # ------------------------------------------------------------ the language as a set
    def _pairs(self, other: DFA, action: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The reachable product with ``other`` (`tables.product_table`), same alphabet only."""
        if self.alphabet != other.alphabet:
            raise AlphabetError(
                f"cannot {action} DFAs over different alphabets {self.alphabet} and "
                f"{other.alphabet}; build both over one alphabet (same symbols, same order)"
            )
        return product_table(self.transitions, self.initial, other.transitions, other.initial)

    def _minimal(self, transitions: np.ndarray, accepting: np.ndarray, initial: int) -> DFA:
        """The canonical DFA of a complete table over this alphabet (`ops.minimize`)."""
        flat = transitions.reshape(-1).tolist()
        table, acc = quotient(self.n_symbols, flat, accepting.tolist(), initial)
        return DFA._fresh(self.alphabet, table, acc, 0)

    def combine(self, other: DFA, accept: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> DFA:
        """The canonical product DFA accepting where ``accept(in_self, in_other)`` holds
        (`ops.product`); an `AlphabetError` if the alphabets differ."""
        table, first, second = self._pairs(other, "combine")
        return self._minimal(table, accept(self.accepting[first], other.accepting[second]), 0)

    def _includes(self, other: object, strict: bool) -> bool:
        """L(self) ⊆ L(other) (⊊ when ``strict``), read off the reachable product states."""
        if not isinstance(other, DFA):
            return NotImplemented
        _, first, second = self._pairs(other, "compare")
        mine, theirs = self.accepting[first], other.accepting[second]
        return not (mine & ~theirs).any() and (not strict or bool((theirs & ~mine).any()))

    def __or__(self, other: object) -> DFA:
        return self.combine(other, np.logical_or) if isinstance(other, DFA) else NotImplemented

    def __and__(self, other: object) -> DFA:
        return self.combine(other, np.logical_and) if isinstance(other, DFA) else NotImplemented

    def __sub__(self, other: object) -> DFA:
        if not isinstance(other, DFA):
            return NotImplemented
        return self.combine(other, lambda x, y: x & ~y)

    def __xor__(self, other: object) -> DFA:
        return self.combine(other, np.logical_xor) if isinstance(other, DFA) else NotImplemented

    def __invert__(self) -> DFA:
        """Σ* ∖ L: the table is complete, so acceptance is flipped (`ops.complement`)."""
        return self._minimal(self.transitions, ~self.accepting, self.initial)

    def __le__(self, other: object) -> bool:
        return self._includes(other, False)

    def __lt__(self, other: object) -> bool:
        return self._includes(other, True)

    def __ge__(self, other: object) -> bool:
        return other._includes(self, False) if isinstance(other, DFA) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return other._includes(self, True) if isinstance(other, DFA) else NotImplemented
