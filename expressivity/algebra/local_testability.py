"""Locally threshold testable languages (Beauquier–Pin; Thérien–Weiss), decided on the semigroup.

L is **locally threshold testable** (LTT) when membership depends on the prefix and suffix of
some length k − 1 and on the number of occurrences of each factor of length k, counted up to a
threshold t. Thérien & Weiss (1985) and Beauquier & Pin (1989) characterize LTT by the
syntactic semigroup S (image of Σ⁺): S is aperiodic and satisfies

    e x f y e z f = e z f y e x f      for all idempotents e, f and all x, y, z in S.

Writing a = exf, b = ezf (elements of eSf) and c = fye (an element of fSe), the identity says
a·c·b = b·c·a, which is what `is_locally_threshold_testable` checks, pair (e, f) by pair, in
numpy. Locally testable (LT, `varieties.is_locally_testable`) ⊆ LTT, and threshold counting
(`commutative.is_threshold_counting`) ⊆ LTT: both inclusions are tested on random DFAs.
Conventions as in `varieties`: the minimal complete DFA, the semigroup (not the monoid).
"""

from __future__ import annotations

import numpy as np

from expressivity.algebra.monoid import TransitionSemigroup, compose
from expressivity.algebra.varieties import Verdict, is_aperiodic, semigroup_of
from expressivity.algebra.witnesses import Identity, Pow, make_witness
from expressivity.automata.dfa import DFA
from expressivity.errors import SemigroupTooLargeError

__all__ = ["LTT_IDENTITY", "MAX_LTT_WORK", "is_locally_threshold_testable", "sandwich"]

_E, _F = Pow(("e",)), Pow(("f",))
#: e x f y e z f = e z f y e x f, variables over S (``monoid=False``).
LTT_IDENTITY = Identity(
    "locally_threshold_testable", (_E, "x", _F, "y", _E, "z", _F), (_E, "z", _F, "y", _E, "x", _F),
    monoid=False,
)
#: Bound on the comparisons (|eSf|² · |fSe| · states, summed over pairs of idempotents) one
#: decision may make; past it `SemigroupTooLargeError` names the bound.
MAX_LTT_WORK = 200_000_000


def sandwich(sg: TransitionSemigroup, e: int, f: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of eSf (distinct) and, for each, an index s in S with e·s·f equal to it."""
    rows = sg.elements[: sg.semigroup_size]
    left = np.broadcast_to(sg.elements[e], rows.shape)
    right = np.broadcast_to(sg.elements[f], rows.shape)
    prod = compose(compose(left, rows), right)
    _, first = np.unique(prod, axis=0, return_index=True)
    first = np.sort(first)
    return prod[first], first


def is_locally_threshold_testable(language: DFA | TransitionSemigroup) -> Verdict:
    """LTT: S aperiodic and a·c·b = b·c·a for a, b in eSf and c in fSe (module docstring).

    The witness of a failure is the aperiodicity witness, or the LTT identity with words for
    e, f (idempotents) and x, y, z (with exf = a, ezf = b, fye = c).
    """
    sg = semigroup_of(language)
    aperiodic = is_aperiodic(sg)
    if aperiodic is not True:
        return make_witness(sg.dfa, "locally_threshold_testable", aperiodic.identity,
                            dict(aperiodic.assignment), note="fails aperiodic", semigroup=sg)
    idem = [int(i) for i in np.flatnonzero(sg.idempotent[: sg.semigroup_size])]
    work = 0
    for e in idem:
        for f in idem:
            a_rows, a_src = sandwich(sg, e, f)
            c_rows, c_src = sandwich(sg, f, e)
            work += len(a_rows) ** 2 * len(c_rows) * sg.dfa.n_states
            if work > MAX_LTT_WORK:
                raise SemigroupTooLargeError(
                    f"the LTT test needs more than {MAX_LTT_WORK:,} comparisons "
                    "(local_testability.MAX_LTT_WORK) on this semigroup of "
                    f"{sg.semigroup_size} elements; use a smaller DFA"
                )
            found = _non_commuting(a_rows, c_rows)
            if found is not None:
                i, k, j = found
                words = {"e": sg.word(e), "f": sg.word(f), "x": sg.word(int(a_src[i])),
                         "y": sg.word(int(c_src[k])), "z": sg.word(int(a_src[j]))}
                return make_witness(sg.dfa, "locally_threshold_testable", LTT_IDENTITY, words,
                                    semigroup=sg)
    return True


def _non_commuting(a_rows: np.ndarray, c_rows: np.ndarray) -> tuple[int, int, int] | None:
    """Indices (i, k, j) with a_i c_k a_j ≠ a_j c_k a_i, or None."""
    n_a = len(a_rows)
    grid_i, grid_j = np.meshgrid(np.arange(n_a), np.arange(n_a), indexing="ij")
    ii, jj = grid_i.ravel(), grid_j.ravel()
    for k, c in enumerate(c_rows):
        cc = np.broadcast_to(c, (len(ii), c.shape[0]))
        lhs = compose(compose(a_rows[ii], cc), a_rows[jj])
        rhs = compose(compose(a_rows[jj], cc), a_rows[ii])
        bad = np.flatnonzero(np.any(lhs != rhs, axis=1))
        if len(bad):
            return int(ii[bad[0]]), k, int(jj[bad[0]])
    return None
