"""MOD predicates in the algebra: the stable semigroup, QR (= LTL[P,MOD]) and QLR (⊇ LTL[P,Y,MOD]).

For a language with syntactic morphism η, the sets η(Σ^n) are eventually periodic in n; the
*stability index* s is the least s ≥ 1 with η(Σ^s) = η(Σ^{2s}), and the *stable semigroup* is
T = η(Σ^s) = η(Σ^{js}) for every j ≥ 1 (a semigroup: T·T = η(Σ^{2s}) = T). For a variety V, L
is in QV when T is in V (Barrington–Compton–Straubing–Thérien 1992 for QA = FO[<,MOD];
Dartois–Paperman 2013 for fragments). The decisions here (docs/theory.md, "Periodic positions
and MOD"):

- `is_quasi_r_trivial`: QR, T is R-trivial. Equivalently (the k-block test with k = s) the
  minimal DFA read in blocks of s letters is partially ordered: no states p ≠ q with
  p →u q →v p for words u, v whose lengths are positive multiples of s. LTL[P,MOD] ⊆ QR is
  proved in the docs; QR ⊆ LTL[P,MOD] is the characterization of [JSLC26] (global attention
  with periodic positions).
- `is_quasi_locally_r_trivial`: QLR, T is locally R-trivial (eTe R-trivial for every idempotent
  e ∈ T). LTL[P,Y,MOD] ⊆ QLR (proved in the docs), so "not QLR" rules out every hybrid layout
  with periodic positions.

Witnesses are the usual identity witnesses, with every variable assigned a word whose length
is a positive multiple of s (so its element lies in T); the note names s.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from expressivity.algebra.green import strongly_connected_components
from expressivity.algebra.monoid import MAX_SIZE, TransitionSemigroup
from expressivity.algebra.varieties import IDENTITIES, Verdict, semigroup_of
from expressivity.algebra.witnesses import Identity, make_witness
from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.errors import SemigroupTooLargeError

__all__ = [
    "MODULAR_DECISIONS",
    "QUASI_IDENTITIES",
    "is_quasi_locally_r_trivial",
    "is_quasi_r_trivial",
    "stability_index",
    "stable_semigroup",
]

#: The identities of R and LR, read with variables ranging over T (words of length ks, k ≥ 1).
QUASI_IDENTITIES: dict[str, Identity] = {
    "qr": Identity("qr", IDENTITIES["r_trivial"].lhs, IDENTITIES["r_trivial"].rhs, monoid=False),
    "qlr": Identity(
        "qlr",
        IDENTITIES["locally_r_trivial"].lhs,
        IDENTITIES["locally_r_trivial"].rhs,
        monoid=False,
    ),
}

#: Bound on the steps n of the sequence η(Σ^n) before its period is found.
MAX_STEPS = 100_000


def stability_index(language: DFA | TransitionSemigroup, max_size: int = MAX_SIZE) -> int:
    """The least s ≥ 1 with η(Σ^s) = η(Σ^{2s}) (see the module docstring).

    The sets X_n = η(Σ^n) satisfy X_{n+1} = X_n·Σ; at the first repetition X_i = X_{i+p}
    the sequence is periodic from i with period p, so s is the least multiple of p that is ≥ i.
    """
    sg = semigroup_of(language, max_size=max_size)
    current = np.unique(sg.right[sg.identity])  # X_1: the letters' elements
    seen: dict[bytes, int] = {current.tobytes(): 1}
    n = 1
    while True:
        current = np.unique(sg.right[current].ravel())
        n += 1
        key = current.tobytes()
        if key in seen:
            first, period = seen[key], n - seen[key]
            return -(-first // period) * period
        if n > MAX_STEPS:
            raise SemigroupTooLargeError(f"the sets η(Σ^n) did not repeat within {MAX_STEPS} steps")
        seen[key] = n


def stable_semigroup(language: DFA | TransitionSemigroup, max_size: int = MAX_SIZE) -> np.ndarray:
    """The element indices of T = η(Σ^s), s the stability index (sorted)."""
    sg = semigroup_of(language, max_size=max_size)
    current = np.unique(sg.right[sg.identity])
    for _ in range(stability_index(sg) - 1):
        current = np.unique(sg.right[current].ravel())
    return current


def is_quasi_r_trivial(language: DFA | TransitionSemigroup) -> Verdict:
    """QR (= LTL[P,MOD], [JSLC26]): the minimal DFA read in blocks of s letters is partially
    ordered; on failure, the qr witness x = u, y = v of a block cycle p →u q →v p."""
    sg = semigroup_of(language)
    dfa, s = sg.dfa, stability_index(sg)
    succ = _phase_graph(dfa.transitions, s)
    labels = strongly_connected_components(succ)
    at_zero = labels[::s]  # node q·s + 0: state q at a block boundary
    pair = _two_in_one_class(at_zero)
    if pair is None:
        return True
    p, q = pair
    u, v = _phase_path(dfa, succ, s, p, q), _phase_path(dfa, succ, s, q, p)
    return make_witness(
        dfa,
        "qr",
        QUASI_IDENTITIES["qr"],
        {"x": u, "y": v},
        note=f"stability index s = {s}; |x| and |y| are multiples of s (a cycle through states "
        f"{p} and {q} of the minimal DFA read in blocks of s letters)",
        semigroup=sg,
    )


def is_quasi_locally_r_trivial(language: DFA | TransitionSemigroup) -> Verdict:
    """QLR (⊇ LTL[P,Y,MOD]): eTe is R-trivial for every idempotent e of the stable semigroup T.

    For a, b ∈ eTe, a R b in eTe iff a R b in T (a = b·t gives a = b·ete), and a R b in T iff
    a and b meet at a block boundary in one component of the right Cayley graph of S read in
    blocks of s letters.
    """
    sg = semigroup_of(language)
    s = stability_index(sg)
    stable = stable_semigroup(sg)
    n = sg.semigroup_size
    table = sg.right[:n]
    if int(table.max(initial=0)) >= n:  # pragma: no cover - S is closed under letters
        raise AssertionError("the right Cayley table of S leaves S")
    succ = _phase_graph(table, s)
    labels = strongly_connected_components(succ)[::s]
    for e in map(int, stable[sg.idempotent[stable]]):
        ends = np.full(len(stable), e)
        local = np.unique(sg.products(sg.products(ends, stable), ends))  # eTe
        pair = _two_in_one_class(labels[local])
        if pair is None:
            continue
        a, b = int(local[pair[0]]), int(local[pair[1]])
        u = _element_path(sg, succ, s, a, b)
        v = _element_path(sg, succ, s, b, a)
        z = sg.word(e) * s  # e^s = e, and |z| is a multiple of s
        return make_witness(
            sg.dfa,
            "qlr",
            QUASI_IDENTITIES["qlr"],
            {"x": u, "y": v, "z": z},
            note=f"stability index s = {s}; |x|, |y|, |z| are multiples of s",
            semigroup=sg,
        )
    return True


def _phase_graph(table: np.ndarray, s: int) -> np.ndarray:
    """Successors of node x·s + j under each letter: (x·a)·s + (j + 1 mod s)."""
    n, k = table.shape
    phases = np.arange(s)
    nxt = (phases + 1) % s
    return (table[:, None, :].astype(np.int64) * s + nxt[None, :, None]).reshape(n * s, k)


def _two_in_one_class(labels: np.ndarray) -> tuple[int, int] | None:
    """Positions (i, j), i < j, of the first two members of the first label used twice."""
    sizes = np.bincount(labels)[labels] if len(labels) else labels
    many = np.flatnonzero(sizes > 1)
    if not len(many):
        return None
    i = int(many[0])
    return i, int(np.flatnonzero(labels == labels[i])[1])


def _bfs_phase(succ: np.ndarray, s: int, source: int, target: int) -> list[int]:
    """Letter codes of a shortest path (source, 0) → (target, 0), source ≠ target, in the
    phase graph: its length is a positive multiple of s."""
    start, goal = source * s, target * s
    prev: dict[int, tuple[int, int]] = {start: (-1, -1)}
    queue = deque([start])
    while queue:
        x = queue.popleft()
        if x == goal:
            codes: list[int] = []
            while prev[x][0] >= 0:
                x, a = prev[x]
                codes.append(a)
            return codes[::-1]
        for a, y in enumerate(succ[x].tolist()):
            if y not in prev:
                prev[y] = (x, a)
                queue.append(y)
    raise ValueError(f"node {target} is not reachable from {source} in blocks of {s}")


def _phase_path(dfa: DFA, succ: np.ndarray, s: int, p: int, q: int) -> Word:
    return dfa.alphabet.decode(_bfs_phase(succ, s, p, q))


def _element_path(sg: TransitionSemigroup, succ: np.ndarray, s: int, a: int, b: int) -> Word:
    return sg.dfa.alphabet.decode(_bfs_phase(succ, s, a, b))


#: The decisions of this module, keyed like `varieties.DECISIONS`.
MODULAR_DECISIONS = {"qr": is_quasi_r_trivial, "qlr": is_quasi_locally_r_trivial}
