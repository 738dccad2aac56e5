"""Reference semantics of formulas, written straight from the definitions (docs/theory.md §2).

`holds` is deliberately naive (it is the reference every compiled artefact is checked
against); `truth_table` is the vectorized O(N·|φ|) evaluator used for data checks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from expressivity.alphabet import Alphabet
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


def holds(formula: Formula, word: Sequence[str], n: int) -> bool:
    """Whether ``formula`` holds at position ``n`` of ``word`` (1-based; N+1 is EOS)."""
    word = tuple(word)
    last = len(word) + 1
    if not 1 <= n <= last:
        raise ValueError(f"position {n} is outside 1..{last}")
    return _holds(formula, word, n)


def accepts(formula: Formula, word: Sequence[str]) -> bool:
    """Membership in L(φ): the formula holds at the EOS position N+1."""
    word = tuple(word)
    return _holds(formula, word, len(word) + 1)


#: An evaluator ``(formula, word, n) -> bool`` (`_holds` or `_ltlf`).
Evaluate = Callable[[Formula, tuple[str, ...], int], bool]


def _propositional(f: Formula, w: tuple[str, ...], n: int, evaluate: Evaluate) -> bool | None:
    """The cases LTL and LTLf read alike (letters, constants, MOD, the Boolean connectives),
    the operands by ``evaluate``; None for the other nodes (each semantics' own)."""
    match f:
        case Symbol(name):
            return n <= len(w) and w[n - 1] == name
        case Top():
            return True
        case Bottom():
            return False
        case Start():
            return n == 1
        case Mod(modulus, residue):
            return n % modulus == residue
        case Not(a):
            return not evaluate(a, w, n)
        case And(a, b):
            return evaluate(a, w, n) and evaluate(b, w, n)
        case Or(a, b):
            return evaluate(a, w, n) or evaluate(b, w, n)
        case Implies(a, b):
            return (not evaluate(a, w, n)) or evaluate(b, w, n)
        case Iff(a, b):
            return evaluate(a, w, n) == evaluate(b, w, n)
    return None


@lru_cache(maxsize=1 << 16)
def _holds(f: Formula, w: tuple[str, ...], n: int) -> bool:
    shared = _propositional(f, w, n, _holds)
    if shared is not None:
        return shared
    last = len(w) + 1
    match f:
        case Eos():
            return n == last
        case Past(a):
            return any(_holds(a, w, m) for m in range(1, n))
        case Yesterday(a, k):
            return n > k and _holds(a, w, n - k)
        case BoundedPast(a, k):
            return any(_holds(a, w, m) for m in range(max(1, n - k), n))
        case Historically(a):
            return all(_holds(a, w, m) for m in range(1, n))
        case Since(a, b):
            return any(
                _holds(b, w, m) and all(_holds(a, w, j) for j in range(m + 1, n))
                for m in range(1, n)
            )
        case Next(a):
            return n < last and _holds(a, w, n + 1)
        case WeakNext(a):
            return n == last or _holds(a, w, n + 1)
        case Eventually(a):
            return any(_holds(a, w, m) for m in range(n + 1, last + 1))
        case Globally(a):
            return all(_holds(a, w, m) for m in range(n + 1, last + 1))
        case Until(a, b):
            return any(
                _holds(b, w, m) and all(_holds(a, w, j) for j in range(n + 1, m))
                for m in range(n + 1, last + 1)
            )
    raise TypeError(f"not a formula node: {f!r}")


def ltlf_accepts(formula: Formula, word: Sequence[str]) -> bool:
    """Membership in the LTLf language of ``formula``: it holds at position 1 in LTLf's
    semantics (`ltlf_holds`); the empty word included (docs/theory.md §10)."""
    return _ltlf(formula, tuple(word), 1)


def ltlf_holds(formula: Formula, word: Sequence[str], n: int) -> bool:
    """Whether ``formula`` holds at position ``n`` ∈ 1..N+1 of ``word`` read as LTLf.

    Written from the LTLf definitions [De Giacomo & Vardi 2013]: X φ needs n < N, WX φ holds
    when n ≥ N, F, G and U range over n..N (non-strict). Position N+1 (past the last letter)
    is where the empty word is evaluated: letters, X, F and U are false there, WX and G true,
    as in ltlf2dfa + MONA. Past operators and ``eos`` are not LTLf (`TypeError`).
    """
    word = tuple(word)
    if not 1 <= n <= len(word) + 1:
        raise ValueError(f"position {n} is outside 1..{len(word) + 1}")
    return _ltlf(formula, word, n)


@lru_cache(maxsize=1 << 16)
def _ltlf(f: Formula, w: tuple[str, ...], n: int) -> bool:
    shared = _propositional(f, w, n, _ltlf)
    if shared is not None:
        return shared
    last = len(w)  # the last letter position N; the range n..N is empty when n = N+1
    match f:
        case Next(a):
            return n < last and _ltlf(a, w, n + 1)
        case WeakNext(a):
            return n >= last or _ltlf(a, w, n + 1)
        case Eventually(a):
            return any(_ltlf(a, w, m) for m in range(n, last + 1))
        case Globally(a):
            return all(_ltlf(a, w, m) for m in range(n, last + 1))
        case Until(a, b):
            return any(
                _ltlf(b, w, m) and all(_ltlf(a, w, j) for j in range(n, m))
                for m in range(n, last + 1)
            )
    raise TypeError(f"not an LTLf formula node: {f!r}")


__all__ = ["accepts", "holds", "ltlf_accepts", "ltlf_holds", "truth_table"]


def truth_table(
    formula: Formula, word: Sequence[str] | np.ndarray, alphabet: Alphabet | None = None
) -> np.ndarray:
    """Truth of ``formula`` at every position 1..N+1, as a bool array of length N+1 (index n−1).

    Each subformula is evaluated once over the whole word with prefix/suffix scans, so the
    cost is O(N·|φ|) for every operator, ``Y<=k`` included. ``word`` may also be an integer
    array of codes together with the ``alphabet`` that encoded it.
    """
    from expressivity.logic.vectorized import truth_table as _tt

    return _tt(formula, word, alphabet)
