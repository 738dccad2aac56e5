"""Vectorized semantics: a formula's truth at every position of a word in O(N·|φ|) numpy work.

Each distinct subformula node is evaluated once over the whole word (positions 1..N+1, array
index n−1) from its children's arrays, with no Python loop over positions:

- ``P``/``H``: shifted cumulative or/and; ``F``/``G``: the same on the reversed array;
- ``Y^k``/``X``/``WX``: shifts; ``Y<=k``: a window count from prefix sums (O(N) for any k);
- ``ψ1 S ψ2`` at n: the latest m < n with ψ2 has no ¬ψ1 strictly between m and n (an earlier
  m cannot help, its interval is larger), i.e. ``last_ψ2(n) ≥ last_¬ψ1(n)`` with both "last"
  arrays from a running maximum; ``U`` mirrors it with running minima.

`expressivity.logic.semantics.holds` is the reference; the two agree (tests/logic).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from expressivity.alphabet import Alphabet
from expressivity.errors import AlphabetError
from expressivity.logic.syntax import (
    And,
    Bottom,
    Eos,
    Formula,
    Iff,
    Implies,
    Mod,
    Not,
    Or,
    Start,
    Symbol,
    Top,
)
from expressivity.logic.temporal import (
    BoundedPast,
    Eventually,
    Globally,
    Historically,
    Next,
    Past,
    Since,
    Until,
    WeakNext,
    Yesterday,
)

__all__ = ["accepts_vectorized", "truth_table"]

BoolArray = np.ndarray


def truth_table(
    formula: Formula, word: Sequence[str] | np.ndarray, alphabet: Alphabet | None = None
) -> BoolArray:
    """Truth of ``formula`` at positions 1..N+1 of ``word``: a bool array, index n−1 = position n.

    ``word`` is a sequence of symbol names, or (with ``alphabet``) an integer array of symbol
    codes as produced by `Alphabet.encode`. Symbols are not checked against an alphabet: a
    symbol of the formula that does not occur in the word is simply false everywhere.
    """
    if isinstance(word, np.ndarray) and word.dtype.kind in "iu":
        if alphabet is None:
            raise TypeError("an integer-coded word needs the alphabet that encoded it")
        codes = np.asarray(word, dtype=np.int64).reshape(-1)
        if codes.size and not (codes.min() >= 0 and codes.max() < len(alphabet)):
            bad = int(codes[(codes < 0) | (codes >= len(alphabet))][0])
            raise AlphabetError(f"code {bad} is outside the alphabet {alphabet}")
        index = {s: i for i, s in enumerate(alphabet.symbols)}
        return _Evaluator(codes, index).value(formula)
    letters = tuple(word)
    index = {}
    codes = np.fromiter(
        (index.setdefault(s, len(index)) for s in letters), dtype=np.int64, count=len(letters)
    )
    return _Evaluator(codes, index).value(formula)


def accepts_vectorized(
    formula: Formula, word: Sequence[str] | np.ndarray, alphabet: Alphabet | None = None
) -> bool:
    """Membership in L(φ) via `truth_table` (the value at the EOS position)."""
    return bool(truth_table(formula, word, alphabet)[-1])


class _Evaluator:
    """Evaluates a formula bottom-up over one word, each distinct subformula exactly once.

    `Formula.fold` shares subformulas by structure, so repeated subformulas share one array
    even when they are different objects; the walk is iterative.
    """

    def __init__(self, codes: np.ndarray, index: dict[str, int]) -> None:
        self.codes = codes
        self.index = index
        self.length = len(codes) + 1  # positions 1..N+1

    def value(self, formula: Formula) -> BoolArray:
        return formula.fold(self._eval)

    def _eval(self, f: Formula, args: Sequence[BoolArray]) -> BoolArray:
        size = self.length
        match f:
            case Symbol(name):
                out = np.zeros(size, dtype=bool)
                if name in self.index:
                    out[:-1] = self.codes == self.index[name]
                return out
            case Top():
                return np.ones(size, dtype=bool)
            case Bottom():
                return np.zeros(size, dtype=bool)
            case Start():
                out = np.zeros(size, dtype=bool)
                out[0] = True
                return out
            case Eos():
                out = np.zeros(size, dtype=bool)
                out[-1] = True
                return out
            case Mod(modulus, residue):
                return np.arange(1, size + 1) % modulus == residue
            case Not():
                return ~args[0]
            case And():
                return args[0] & args[1]
            case Or():
                return args[0] | args[1]
            case Implies():
                return ~args[0] | args[1]
            case Iff():
                return args[0] == args[1]
            case Past():
                return _shift_right(np.logical_or.accumulate(args[0]), 1, False)
            case Historically():
                return _shift_right(np.logical_and.accumulate(args[0]), 1, True)
            case Yesterday(_, k):
                return _shift_right(args[0], k, False)
            case BoundedPast(_, k):
                return _window_any(args[0], k)
            case Since():
                return _since(args[0], args[1])
            case Next():
                return _shift_left(args[0], 1, False)
            case WeakNext():
                return _shift_left(args[0], 1, True)
            case Eventually():
                return _shift_right(np.logical_or.accumulate(args[0][::-1]), 1, False)[::-1]
            case Globally():
                return _shift_right(np.logical_and.accumulate(args[0][::-1]), 1, True)[::-1]
            case Until():
                return _since(args[0][::-1], args[1][::-1])[::-1]
        raise TypeError(f"not a formula node: {f!r}")


def _shift_right(a: BoolArray, k: int, fill: bool) -> BoolArray:
    """``out[i] = a[i − k]`` (``fill`` for i < k)."""
    out = np.full(len(a), fill, dtype=bool)
    if k < len(a):
        out[k:] = a[: len(a) - k]
    return out


def _shift_left(a: BoolArray, k: int, fill: bool) -> BoolArray:
    """``out[i] = a[i + k]`` (``fill`` past the end)."""
    return _shift_right(a[::-1], k, fill)[::-1]


def _window_any(a: BoolArray, k: int) -> BoolArray:
    """``out[i] = any(a[max(0, i − k) : i])``: the strict window of the k predecessors."""
    k = min(k, len(a))
    counts = np.concatenate(([0], np.cumsum(a, dtype=np.int64)))
    idx = np.arange(len(a))
    return counts[idx] - counts[np.maximum(idx - k, 0)] > 0


def _since(hold: BoolArray, target: BoolArray) -> BoolArray:
    """Strict since over index order: some j < i has ``target``, ``hold`` on all of (j, i)."""
    idx = np.arange(len(hold))
    last_target = _shift_right_int(np.maximum.accumulate(np.where(target, idx, -1)))
    last_break = _shift_right_int(np.maximum.accumulate(np.where(hold, -1, idx)))
    return (last_target >= 0) & (last_target >= last_break)


def _shift_right_int(a: np.ndarray) -> np.ndarray:
    out = np.full(len(a), -1, dtype=np.int64)
    out[1:] = a[:-1]
    return out
