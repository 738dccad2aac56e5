"""Prefix, content and window sets: what an exact k-window with a whole-word view reads for sure.

κ_{M,k}(w) = w when |w| < M, else (w₁..w_M, the letters of w_{M+1}..w_N, the set F_k(w) of the
letter sets of the length-k factors of w, the letter set of the last min(k, N) letters). L is
a union of κ_{M,k} classes iff no value of κ_{M,k} meets both an accepting and a rejecting
state in the reachable product of the DFA with the automaton that computes κ_{M,k} (it keeps
the last k letters to extend F_k); the decision is exact, and monotone in M (κ_{M+1,k}
determines κ_{M,k}).

Why layouts care (docs/theory.md §17, proved relative to assumption A): with an exact head
whose keys are the k previous positions (`Lk`, with BOS as a hub or not), the positions n = j
are definable (`algebra.prefix_content`), the window's letter set at a position m ≥ k + 1 is
the set of the factor w_{m−k}..w_{m−1}, and EOS's own window is the last factor; P (a global
head) or E (BOS as the one global token) then reads every window of the word. For k = 2,
"the factor cc occurs" is the window {c} at some m ≥ 3: P ψ ∨ ψ with ψ = ¬start ∧ ¬χ₂ ∧
¬Y<=2 ¬c and χ₂ = Y<=2 start ∧ ¬Y<=2 ¬start ("n = 2").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from expressivity.algebra.prefix_content import answers_follow_key
from expressivity.automata.dfa import DFA

__all__ = ["MAX_PREFIX", "MAX_PRODUCT", "WindowSets", "window_sets"]

#: Bound on the reachable product (DFA state, κ automaton state) per prefix length tried.
MAX_PRODUCT = 20_000
#: Longest prefix tried (each more letter multiplies the product by up to |Σ|).
MAX_PREFIX = 3


@dataclass(frozen=True)
class WindowSets:
    """Proof that L is a union of κ_{M,k} classes (M = ``prefix_length``, k = ``window``),
    decided by `window_sets`, re-checkable by brute force with `check`."""

    prefix_length: int
    window: int
    summary: bool = False  # read through the summary E (two layers) rather than P (one)

    def key(self, word: Sequence[str]) -> tuple[Any, ...]:
        """κ_{M,k}(word) (see the module docstring)."""
        m, k = self.prefix_length, self.window
        if len(word) < m:
            return ("short", tuple(word))
        factors = frozenset(frozenset(word[i:i + k]) for i in range(len(word) - k + 1))
        return ("long", tuple(word[:m]), frozenset(word[m:]), factors,
                frozenset(word[max(0, len(word) - k):]))

    @property
    def layers(self) -> int:
        """Layers that read κ_{M,k} at EOS: positions up to max(M, k), then P (one layer) or
        the summary E (two, ``summary``)."""
        return max(self.prefix_length, self.window, 1) + (2 if self.summary else 1)

    def check(self, dfa: DFA, max_length: int) -> bool:
        """Every two words of length ≤ ``max_length`` with equal κ_{M,k} get the same answer."""
        return answers_follow_key(self.key, dfa, max_length)

    def describe(self) -> str:
        m, k = self.prefix_length, self.window
        first = f"the first {m} letter{'s' * (m != 1)}, the letters after them, " if m else (
            "the letters read, ")
        return (f"membership depends only on {first}the letter sets of the factors of length "
                f"{k} and of the last {k} letters (κ_{m},{k}; docs/theory.md §17)")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "window-sets", "prefix_length": self.prefix_length,
                "window": self.window, "layers": self.layers}


def _step(state: tuple[Any, ...], a: str, m: int, k: int) -> tuple[Any, ...]:
    """The κ automaton: ("short", w) below length M, then (prefix, content, F, last k)."""
    if state[0] == "short":
        w = (*state[1], a)
        if len(w) < m:
            return ("short", w)
        factors = frozenset(frozenset(w[i:i + k]) for i in range(len(w) - k + 1))
        return ("long", w, frozenset(), factors, w[max(0, len(w) - k):])
    _, prefix, content, factors, tail = state
    tail = (*tail, a)
    if len(tail) >= k:
        factors = factors | {frozenset(tail[-k:])}
    return ("long", prefix, content | {a}, factors, tail[max(0, len(tail) - k):])


def _key(state: tuple[Any, ...]) -> tuple[Any, ...]:
    if state[0] == "short":
        return state
    _, prefix, content, factors, tail = state
    return ("long", prefix, content, factors, frozenset(tail))


def _union_of_classes(dfa: DFA, m: int, k: int, max_product: int) -> bool | None:
    """Whether L is a union of κ_{m,k} classes (None: the product outgrew ``max_product``)."""
    symbols = dfa.alphabet.symbols
    empty: tuple[Any, ...] = ("short", ()) if m else ("long", (), frozenset(), frozenset(), ())
    start = (int(dfa.initial), empty)
    seen = {start}
    todo = [start]
    answer: dict[tuple[Any, ...], bool] = {}
    while todo:
        q, state = todo.pop()
        if answer.setdefault(_key(state), bool(dfa.accepting[q])) != bool(dfa.accepting[q]):
            return False
        for code, a in enumerate(symbols):
            nxt = (int(dfa.transitions[q, code]), _step(state, a, m, k))
            if nxt not in seen:
                if len(seen) >= max_product:
                    return None
                seen.add(nxt)
                todo.append(nxt)
    return True


def window_sets(dfa: DFA, k: int, max_prefix: int = MAX_PREFIX,
                max_product: int = MAX_PRODUCT) -> WindowSets | None:
    """The least M ≤ ``max_prefix`` with L a union of κ_{M,k} classes (k ≥ 1), or None (none up
    to ``max_prefix``, or a product over ``max_product`` states: bounded work)."""
    if k < 1:
        raise ValueError(f"window_sets needs a window k >= 1, got {k}")
    for m in range(max_prefix + 1):
        found = _union_of_classes(dfa, m, k, max_product)
        if found is None:
            return None
        if found:
            return WindowSets(m, k)
    return None
