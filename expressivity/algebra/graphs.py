"""Automaton-level decisions that need no semigroup: partially ordered DFAs and the pair graph.

- R-trivial (Brzozowski–Fich): the minimal complete DFA has no cycle other than self-loops.
- Definite (Perles–Rabin–Shamir): in the pair graph (p, q) → (p·a, q·a) on pairs p ≠ q, no
  cycle. Both return the same kind of witness as the algebraic decisions, so tests can check
  that the two routes agree.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from expressivity.algebra.green import strongly_connected_components
from expressivity.algebra.monoid import omega_exponent, power
from expressivity.algebra.varieties import IDENTITIES, Verdict
from expressivity.algebra.witnesses import access_words, make_witness, word_row
from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA


def _minimal(dfa: DFA) -> DFA:
    from expressivity.automata.ops import minimize

    return minimize(dfa)


def is_partially_ordered(language: DFA) -> Verdict:
    """R-trivial via the DFA: True, or the r_trivial witness read off a cycle p →u q →v p."""
    dfa = _minimal(language)
    labels = strongly_connected_components(dfa.transitions)
    sizes = np.bincount(labels)[labels]
    big = np.flatnonzero(sizes > 1)
    if not len(big):
        return True
    p = int(big[0])
    q = int(np.flatnonzero(labels == labels[p])[1])
    u, v = _path(dfa, p, q), _path(dfa, q, p)  # p·(uv)^ω = p, p·(uv)^ω u = q
    return make_witness(
        dfa,
        "r_trivial",
        IDENTITIES["r_trivial"],
        {"x": u, "y": v},
        note=f"cycle through states {p} and {q} of the minimal DFA",
    )


def is_definite_by_pair_graph(language: DFA) -> Verdict:
    """Definite via the pair graph: True, or the definite witness read off a pair cycle.

    If (p, q)·w = (p, q) with p ≠ q, then e = w^ω fixes p and q, and the access words of p
    and q cannot both satisfy (access)·e = e on the initial state: that one is x.
    """
    dfa = _minimal(language)
    n = dfa.n_states
    t = dfa.transitions
    pp, qq = np.divmod(np.arange(n * n), n)
    succ = (t[pp] * n + t[qq]).tolist()  # (n², k) successor pair codes
    off = [
        [w for w in row if w // n != w % n] if p != q else []
        for row, p, q in zip(succ, pp, qq, strict=True)
    ]
    labels = strongly_connected_components(_pad(off))
    sizes = np.bincount(labels)[labels]
    for node in range(n * n):
        p, q = divmod(node, n)
        if p == q:
            continue
        if sizes[node] > 1 or node in off[node]:
            w = _pair_cycle(dfa, node, labels)
            row = word_row(dfa, w)
            e = power(row[None, :], omega_exponent(row))[0]
            access = access_words(dfa)
            candidates = [c for c in (access[p], access[q]) if c]
            x = next(c for c in candidates if not np.array_equal(e[word_row(dfa, c)], e))
            return make_witness(
                dfa,
                "definite",
                IDENTITIES["definite"],
                {"x": x, "y": w},
                note=f"cycle of the pair ({p}, {q}) in the pair graph, on the word y",
            )
    return True


def _pad(rows: list[list[int]]) -> np.ndarray:
    """Ragged successor lists as a rectangular table, padding with self-loops."""
    width = max((len(r) for r in rows), default=0) or 1
    return np.array([r + [i] * (width - len(r)) for i, r in enumerate(rows)], dtype=np.int64)


def _path(dfa: DFA, p: int, q: int) -> Word:
    """A shortest non-empty word from p to q."""
    prev: dict[int, tuple[int, str]] = {}
    queue: deque[int] = deque()
    for a, s in enumerate(dfa.alphabet.symbols):
        r = int(dfa.transitions[p, a])
        if r not in prev:
            prev[r] = (-1, s)
            queue.append(r)
    while queue:
        r = queue.popleft()
        if r == q:
            out: list[str] = []
            while r >= 0:
                r, s = prev[r]
                out.append(s)
            return tuple(reversed(out))
        for a, s in enumerate(dfa.alphabet.symbols):
            nxt = int(dfa.transitions[r, a])
            if nxt not in prev:
                prev[nxt] = (r, s)
                queue.append(nxt)
    raise ValueError(f"state {q} is not reachable from {p}")


def _pair_cycle(dfa: DFA, start: int, labels: np.ndarray) -> Word:
    """A shortest non-empty word w with (p, q)·w = (p, q), staying in the pair's SCC."""
    n = dfa.n_states
    t = dfa.transitions
    prev: dict[int, tuple[int, str]] = {}
    queue: deque[int] = deque([start])
    while queue:
        node = queue.popleft()
        p, q = divmod(node, n)
        for a, s in enumerate(dfa.alphabet.symbols):
            nxt = int(t[p, a]) * n + int(t[q, a])
            if labels[nxt] != labels[start]:
                continue
            if nxt == start:
                out = [s]
                while node != start:
                    node, sym = prev[node]
                    out.append(sym)
                return tuple(reversed(out))
            if nxt not in prev:
                prev[nxt] = (node, s)
                queue.append(nxt)
    raise AssertionError("no cycle through a pair in a non-trivial component")
