"""Small DFAs, a random-DFA strategy and brute-force references shared by the data tests."""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA

ABC = Alphabet(("a", "b", "c"))
AB = Alphabet(("a", "b"))


def last_a() -> DFA:
    """Σ*a over {a,b,c}: definite, not LTL[P]."""
    return DFA(ABC, [[1, 0, 0], [1, 0, 0]], [False, True])


def first_b() -> DFA:
    """bΣ* over {a,b,c}: LTL[P] (R-trivial)."""
    return DFA(ABC, [[2, 1, 2], [1, 1, 1], [2, 2, 2]], [False, True, False])


def dyck11() -> DFA:
    """(ab)* over {a,b}."""
    return DFA(AB, [[1, 2], [2, 0], [2, 2]], [True, False, False])


def parity() -> DFA:
    """An even number of b's over {a,b}: a group language."""
    return DFA(AB, [[0, 1], [1, 0]], [True, False])


def lt2() -> DFA:
    """Σ*abΣ* over {a,b,c}: LTL[P,Y], not LTL[P]."""
    return DFA(ABC, [[1, 0, 0], [1, 2, 0], [2, 2, 2]], [False, False, True])


@st.composite
def random_dfas(draw: st.DrawFn, max_states: int = 5, max_symbols: int = 3) -> DFA:
    """A random complete DFA (not necessarily minimal or with members)."""
    m = draw(st.integers(1, max_symbols))
    s = draw(st.integers(1, max_states))
    table = draw(
        st.lists(st.lists(st.integers(0, s - 1), min_size=m, max_size=m), min_size=s, max_size=s)
    )
    acc = draw(st.lists(st.booleans(), min_size=s, max_size=s))
    return DFA(Alphabet(tuple("abc"[:m])), table, acc, 0)


def all_words(n_symbols: int, length: int) -> np.ndarray:
    """Every word of ``length`` in lexicographic order, as a (|Σ|^length, length) array."""
    rows = list(itertools.product(range(n_symbols), repeat=length))
    return np.asarray(rows, dtype=np.int64).reshape(len(rows), length)


def accepts(dfa: DFA, word: tuple[int, ...]) -> bool:
    q = dfa.initial
    for a in word:
        q = int(dfa.transitions[q, a])
    return bool(dfa.accepting[q])


def neighbours(word: tuple[int, ...], n_symbols: int) -> set[tuple[int, ...]]:
    """All words one insertion, replacement or deletion away (brute force)."""
    out = set()
    for i in range(len(word) + 1):
        for a in range(n_symbols):
            out.add((*word[:i], a, *word[i:]))
    for i in range(len(word)):
        out.add(word[:i] + word[i + 1 :])
        for a in range(n_symbols):
            if a != word[i]:
                out.add((*word[:i], a, *word[i + 1 :]))
    return out


def brute_distance(dfa: DFA, word: tuple[int, ...], cap: int = 8) -> int | None:
    """Breadth-first over single edits until a member is reached (None beyond ``cap``)."""
    seen = {word}
    frontier = deque([(word, 0)])
    while frontier:
        w, d = frontier.popleft()
        if accepts(dfa, w):
            return d
        if d == cap:
            continue
        for v in neighbours(w, dfa.n_symbols):
            if v not in seen:
                seen.add(v)
                frontier.append((v, d + 1))
    return None
