"""The checkable witnesses a failed identity decision returns (identities: `algebra.identities`).

A witness spells out which identity fails, the words assigned to its variables, both sides
instantiated as words (ω replaced by a concrete exponent K, a multiple of every period that
is at least every index, so ``x^K`` *is* ``x^ω``), and a context (u, v) such that exactly one
of u·lhs·v and u·rhs·v is in the language: a pair of words the class cannot tell apart (for
K large, see `IdentityWitness.pair`) but the language does. Witnesses are falsy, so
``if is_definite(m): ...`` reads naturally.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from expressivity.algebra.identities import (
    Identity,
    Pow,
    Term,
    evaluate,
    exponent_for,
    instantiate,
    render,
)
from expressivity.algebra.monoid import TransitionSemigroup
from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA

__all__ = [
    "CONTEXT_TRIES",
    "Identity",
    "IdentityWitness",
    "Pow",
    "Term",
    "access_words",
    "check_witness",
    "distinguishing_word",
    "evaluate",
    "exponent_for",
    "instantiate",
    "make_witness",
    "render",
    "separating_context",
    "word_row",
]


def word_row(dfa: DFA, word: Word) -> np.ndarray:
    """The transformation of the states induced by ``word``."""
    row = np.arange(dfa.n_states)
    for s in word:
        row = dfa.transitions[row, dfa.alphabet.index(s)]
    return row


@dataclass(frozen=True)
class IdentityWitness:
    """A failed identity with everything needed to check it by hand (see module docstring)."""

    variety: str
    identity: Identity
    assignment: tuple[tuple[str, Word], ...]
    exponent: int
    lhs: Word
    rhs: Word
    context: tuple[Word, Word]
    accepted: tuple[bool, bool]
    note: str = ""
    #: shortlex-least words of the lhs and rhs elements (when decided on the semigroup)
    elements: tuple[Word, Word] | None = None

    def __bool__(self) -> bool:
        return False

    @property
    def pair(self) -> tuple[Word, Word]:
        """u·lhs·v and u·rhs·v: exactly one is in the language."""
        u, v = self.context
        return u + self.lhs + v, u + self.rhs + v

    def pumped(self, dfa: DFA, at_least: int) -> tuple[Word, Word]:
        """The pair with ω replaced by a valid exponent ≥ ``at_least`` (longer adversarial pair)."""
        words = dict(self.assignment)
        rows = {x: word_row(dfa, w) for x, w in words.items()}
        n = dfa.n_states
        k = exponent_for(self.identity.lhs + self.identity.rhs, rows, n, at_least)
        u, v = self.context
        return (
            u + instantiate(self.identity.lhs, words, k) + v,
            u + instantiate(self.identity.rhs, words, k) + v,
        )

    def describe(self, fmt: Any = None) -> str:
        """One line: the failing identity, the assignment, and the separating pair."""
        f = fmt or (lambda w: "".join(w) if w else "ε")
        assign = ", ".join(f"{x} = {f(w)}" for x, w in self.assignment)
        first, second = self.pair
        tag = ("∈", "∉") if self.accepted[0] else ("∉", "∈")
        return (
            f"{self.identity} fails for {assign} (ω = {self.exponent}): "
            f"{f(first)} {tag[0]} L but {f(second)} {tag[1]} L"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (words as lists of symbols)."""
        first, second = self.pair
        return {
            "variety": self.variety,
            "identity": str(self.identity),
            "assignment": {x: list(w) for x, w in self.assignment},
            "omega": self.exponent,
            "lhs": list(self.lhs),
            "rhs": list(self.rhs),
            "context": [list(self.context[0]), list(self.context[1])],
            "pair": [list(first), list(second)],
            "accepted": list(self.accepted),
            "elements": [list(w) for w in self.elements] if self.elements else None,
            "note": self.note,
        }


def make_witness(
    dfa: DFA,
    prop: str,
    identity: Identity,
    words: dict[str, Word],
    note: str = "",
    semigroup: TransitionSemigroup | None = None,
) -> IdentityWitness:
    """Instantiate ``identity`` at ``words``; both sides must differ on the (minimal) DFA.

    With ``semigroup``, the two sides' elements are also named by their shortlex-least words.
    """
    n = dfa.n_states
    rows = {x: word_row(dfa, w) for x, w in words.items()}
    lhs_row = evaluate(identity.lhs, rows, n)
    rhs_row = evaluate(identity.rhs, rows, n)
    if np.array_equal(lhs_row, rhs_row):
        raise AssertionError(f"{identity} holds at {words}: not a witness")
    k = exponent_for(identity.lhs + identity.rhs, rows, n, 1)
    u, v = separating_context(dfa, lhs_row, rhs_row)
    lhs, rhs = instantiate(identity.lhs, words, k), instantiate(identity.rhs, words, k)
    acc = (dfa.accepts(u + lhs + v), dfa.accepts(u + rhs + v))
    assert acc[0] != acc[1], "separating context does not separate"
    order = [x for x in identity.variables if x in words]
    elements = None
    if semigroup is not None:
        i, j = semigroup.index_of(np.stack([lhs_row, rhs_row]))
        elements = (semigroup.word(int(i)), semigroup.word(int(j)))
    return IdentityWitness(
        variety=prop,
        identity=identity,
        assignment=tuple((x, tuple(words[x])) for x in order),
        exponent=k,
        lhs=lhs,
        rhs=rhs,
        context=(u, v),
        accepted=acc,
        note=note,
        elements=elements,
    )


#: How many states `separating_context` tries once it has a context: each try is a breadth-first
#: search over pairs of states, so trying all of a large DFA's states costs minutes.
CONTEXT_TRIES = 32


def separating_context(dfa: DFA, f: np.ndarray, g: np.ndarray) -> tuple[Word, Word]:
    """Shortest-ish (u, v): u reaches a state q with q·f ≠ q·g, v tells q·f from q·g.

    States q are tried in shortlex order of their access words u, at most `CONTEXT_TRIES` of
    them after the first context is found; the shortest u·v among those tried is returned.
    """
    access = access_words(dfa)
    best: tuple[Word, Word] | None = None
    tries = 0
    for q in sorted(range(dfa.n_states), key=lambda q: (len(access[q]), q)):
        if f[q] == g[q] or access[q] is None:
            continue
        if best is not None:
            tries += 1
            if tries > CONTEXT_TRIES:
                break
        v = distinguishing_word(dfa, int(f[q]), int(g[q]))
        if v is not None and (best is None or len(access[q]) + len(v) < sum(map(len, best))):
            best = (access[q], v)
        if best is not None and len(access[q]) >= sum(map(len, best)):
            break
    if best is None:
        raise ValueError("the transformations act alike on reachable, distinguishable states")
    return best


def access_words(dfa: DFA) -> list[Word]:
    """Shortlex-least word reaching every state (unreachable states get ``()``)."""
    words: list[Word | None] = [None] * dfa.n_states
    words[dfa.initial] = ()
    queue = deque([dfa.initial])
    while queue:
        p = queue.popleft()
        for a, s in enumerate(dfa.alphabet.symbols):
            q = int(dfa.transitions[p, a])
            if words[q] is None:
                words[q] = (*words[p], s)  # type: ignore[misc]
                queue.append(q)
    return [w if w is not None else () for w in words]


def distinguishing_word(dfa: DFA, p: int, q: int) -> Word | None:
    """A shortest v with exactly one of p·v, q·v accepting (None if p and q are equivalent)."""
    prev: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {(p, q): None}
    queue = deque([(p, q)])
    while queue:
        pair = queue.popleft()
        if dfa.accepting[pair[0]] != dfa.accepting[pair[1]]:
            out: list[str] = []
            while (link := prev[pair]) is not None:
                pair, s = link
                out.append(s)
            return tuple(reversed(out))
        for a, s in enumerate(dfa.alphabet.symbols):
            nxt = (int(dfa.transitions[pair[0], a]), int(dfa.transitions[pair[1], a]))
            if nxt not in prev:
                prev[nxt] = (pair, s)
                queue.append(nxt)
    return None


def check_witness(dfa: DFA, w: IdentityWitness) -> None:
    """Raise AssertionError unless ``w`` is sound on ``dfa``: words map to the elements the
    identity prescribes, the two sides are different elements, and the pair is separated."""
    words = dict(w.assignment)
    rows = {x: word_row(dfa, wd) for x, wd in words.items()}
    n = dfa.n_states
    lhs_row, rhs_row = evaluate(w.identity.lhs, rows, n), evaluate(w.identity.rhs, rows, n)
    assert np.array_equal(word_row(dfa, w.lhs), lhs_row), "lhs word is not the lhs element"
    assert np.array_equal(word_row(dfa, w.rhs), rhs_row), "rhs word is not the rhs element"
    assert not np.array_equal(lhs_row, rhs_row), "the identity holds at this assignment"
    if not w.identity.monoid:
        assert all(words[x] for x in words), "semigroup identity with an empty variable"
    if w.elements is not None:
        assert np.array_equal(word_row(dfa, w.elements[0]), lhs_row), "lhs element misnamed"
        assert np.array_equal(word_row(dfa, w.elements[1]), rhs_row), "rhs element misnamed"
    first, second = w.pair
    assert (dfa.accepts(first), dfa.accepts(second)) == w.accepted
    assert w.accepted[0] != w.accepted[1], "the pair is not separated"
