"""Decide varieties of the syntactic monoid/semigroup; each decision is True or a witness.

Conventions (docs/theory.md §3): decide on the minimal complete DFA; the monoid M is used for
aperiodic, R-, L-, J-trivial, DA and group; the semigroup S (image of Σ⁺) for definite,
reverse definite, generalized definite, locally testable and locally R-trivial, since the
identity of M is an idempotent that would make every "local" condition collapse.

Each test is phrased through Green's relations or idempotents so that it is linear (or a
few passes over S per regular J-class), and on failure the witness names the identity of
the variety with a concrete assignment (see `witnesses`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

import numpy as np

from expressivity.algebra.monoid import MAX_SIZE, TransitionSemigroup, compose, transition_semigroup
from expressivity.algebra.witnesses import Identity, IdentityWitness, Pow, make_witness
from expressivity.automata.dfa import DFA

Verdict = Literal[True] | IdentityWitness

_x, _y, _z = "x", "y", "z"
_XY, _XYZ = Pow((_x, _y)), Pow((_x, _y, _z))
_X, _Y, _Z = Pow((_x,)), Pow((_y,)), Pow((_z,))
_LOCAL = Pow((_Z, _x, _Z, _y, _Z))

#: The identity behind each decision (ω-terms; ``monoid=False``: variables range over S).
IDENTITIES: dict[str, Identity] = {
    "aperiodic": Identity("aperiodic", (_X,), (_X, _x)),
    "r_trivial": Identity("r_trivial", (_XY, _x), (_XY,)),
    "l_trivial": Identity("l_trivial", (_y, _XY), (_XY,)),
    "da": Identity("da", (_XYZ, _y, _XYZ), (_XYZ,)),
    "group": Identity("group", (_X,), ()),
    "definite": Identity("definite", (_x, _Y), (_Y,), monoid=False),
    "reverse_definite": Identity("reverse_definite", (_Y, _x), (_Y,), monoid=False),
    "generalized_definite": Identity("generalized_definite", (_Y, _x, _Y), (_Y,), monoid=False),
    "locally_idempotent": Identity(
        "locally_idempotent", (_Z, _x, _Z, _x, _Z), (_Z, _x, _Z), monoid=False
    ),
    "locally_commutative": Identity(
        "locally_commutative", (_Z, _x, _Z, _y, _Z), (_Z, _y, _Z, _x, _Z), monoid=False
    ),
    "locally_r_trivial": Identity(
        "locally_r_trivial", (_LOCAL, _Z, _x, _Z), (_LOCAL,), monoid=False
    ),
}


def semigroup_of(
    language: DFA | TransitionSemigroup, max_size: int = MAX_SIZE
) -> TransitionSemigroup:
    """The transition semigroup of the minimal complete DFA of ``language``."""
    if isinstance(language, TransitionSemigroup):
        return language
    from expressivity.automata.ops import minimize

    return transition_semigroup(minimize(language), max_size=max_size)


def _witness(
    sg: TransitionSemigroup, prop: str, key: str, **words: tuple[str, ...]
) -> IdentityWitness:
    return make_witness(sg.dfa, prop, IDENTITIES[key], dict(words), semigroup=sg)


# -------------------------------------------------------------------- monoid varieties


def is_aperiodic(language: DFA | TransitionSemigroup) -> Verdict:
    """Star-free (Schützenberger): x^ω = x^(ω+1) in M."""
    sg = semigroup_of(language)
    bad = np.flatnonzero(~sg.is_aperiodic_element())
    if not len(bad):
        return True
    return _witness(sg, "aperiodic", "aperiodic", x=sg.word(int(bad[0])))


def is_r_trivial(language: DFA | TransitionSemigroup) -> Verdict:
    """R-trivial = LTL[P] ([LC25]): (xy)^ω x = (xy)^ω; all R-classes (right SCCs) singletons."""
    sg = semigroup_of(language)
    pair = _nontrivial_class(sg.green.rclass)
    if pair is None:
        return True
    s, t = pair  # t = s·u and s = t·v, so s(uv)^ω = s ≠ t = s(uv)^ω u
    u, v = sg.green.right_path(s, t), sg.green.right_path(t, s)
    return _witness(sg, "r_trivial", "r_trivial", x=u, y=v)


def is_l_trivial(language: DFA | TransitionSemigroup) -> Verdict:
    """L-trivial: y(xy)^ω = (xy)^ω; all L-classes (left SCCs) singletons."""
    sg = semigroup_of(language)
    pair = _nontrivial_class(sg.green.lclass)
    if pair is None:
        return True
    s, t = pair  # t = u·s and s = v·t, so (vu)^ω s = s ≠ t = u(vu)^ω s
    u, v = sg.green.left_path(s, t), sg.green.left_path(t, s)
    return _witness(sg, "l_trivial", "l_trivial", x=v, y=u)


def is_j_trivial(language: DFA | TransitionSemigroup) -> Verdict:
    """J-trivial = piecewise testable (Simon): R-trivial and L-trivial."""
    sg = semigroup_of(language)
    for verdict in (is_r_trivial(sg), is_l_trivial(sg)):
        if verdict is not True:
            return replace(verdict, variety="j_trivial")
    return True


def is_da(language: DFA | TransitionSemigroup) -> Verdict:
    """DA = FO2[<] = LTL[P,F]: every regular element is idempotent; (xyz)^ω y (xyz)^ω = (xyz)^ω."""
    sg = semigroup_of(language)
    g = sg.green
    bad = np.flatnonzero(g.regular & ~sg.idempotent)
    if not len(bad):
        return True
    s = int(bad[0])
    # some idempotent e in R_s or L_s has ese ≠ e (else s = es = ses = s·s, an idempotent)
    for same, path in ((g.rclass, "right"), (g.lclass, "left")):
        for e in map(int, np.flatnonzero((same == same[s]) & sg.idempotent)):
            if sg.product(sg.product(e, s), e) != e:
                if path == "right":  # e = s·z, so (1·s·z)^ω = e
                    return _witness(sg, "da", "da", x=(), y=sg.word(s), z=g.right_path(s, e))
                return _witness(sg, "da", "da", x=g.left_path(s, e), y=sg.word(s), z=())
    raise AssertionError("a regular non-idempotent element without a DA witness")


def is_group(language: DFA | TransitionSemigroup) -> Verdict:
    """Group language: every letter permutes the states; x^ω = 1."""
    sg = semigroup_of(language)
    t = sg.dfa.transitions
    for a, name in enumerate(sg.dfa.alphabet.symbols):
        if len(np.unique(t[:, a])) < sg.dfa.n_states:
            return _witness(sg, "group", "group", x=(name,))
    return True


# -------------------------------------------------------------------- semigroup varieties


def _idempotents_of_s(sg: TransitionSemigroup) -> np.ndarray:
    return np.flatnonzero(sg.idempotent[: sg.semigroup_size])


def is_definite(language: DFA | TransitionSemigroup) -> Verdict:
    """Definite = LTL[Y] ([LC26]): x y^ω = y^ω in S (a·e = e for letters a suffices)."""
    sg = semigroup_of(language)
    idem = _idempotents_of_s(sg)
    bad = np.argwhere(sg.left[idem] != idem[:, None])
    if not len(bad):
        return True
    e, a = int(idem[bad[0, 0]]), int(bad[0, 1])
    return _witness(sg, "definite", "definite", x=(sg.dfa.alphabet.symbols[a],), y=sg.word(e))


def is_reverse_definite(language: DFA | TransitionSemigroup) -> Verdict:
    """Reverse definite: y^ω x = y^ω in S (e·a = e for letters a suffices)."""
    sg = semigroup_of(language)
    idem = _idempotents_of_s(sg)
    bad = np.argwhere(sg.right[idem] != idem[:, None])
    if not len(bad):
        return True
    e, a = int(idem[bad[0, 0]]), int(bad[0, 1])
    sym = sg.dfa.alphabet.symbols[a]
    return _witness(sg, "reverse_definite", "reverse_definite", x=(sym,), y=sg.word(e))


def is_generalized_definite(language: DFA | TransitionSemigroup) -> Verdict:
    """Generalized definite (LI): y^ω x y^ω = y^ω in S, i.e. eSe = {e}.

    Equivalently every idempotent lies in the minimal ideal K, and K is H-trivial.
    """
    sg = semigroup_of(language)
    g = sg.green
    k_mask = g.minimal_ideal
    idem = _idempotents_of_s(sg)
    outside = idem[~k_mask[idem]]
    if len(outside):  # e ∉ K, k ∈ K: eke ∈ K differs from e
        e, k = int(outside[0]), int(np.flatnonzero(k_mask)[0])
        return _witness(
            sg, "generalized_definite", "generalized_definite", x=sg.word(k), y=sg.word(e)
        )
    big = np.flatnonzero(k_mask & (g.class_sizes(g.hclass) > 1))
    if not len(big):
        return True
    h = g.hclass[int(big[0])]  # a group H-class of K: its idempotent e and another element x
    members = np.flatnonzero(g.hclass == h)
    e = int(members[sg.idempotent[members]][0])
    x = int(members[members != e][0])
    return _witness(sg, "generalized_definite", "generalized_definite", x=sg.word(x), y=sg.word(e))


def local_monoid(sg: TransitionSemigroup, e: int) -> tuple[np.ndarray, np.ndarray]:
    """The local monoid eSe: its element indices and, for each, some s with ese equal to it."""
    rows_s = sg.elements[: sg.semigroup_size]
    f_e = sg.elements[e].astype(np.intp)
    rows = f_e[rows_s[:, f_e].astype(np.intp)]
    idx = sg.index_of(rows)
    local, first = np.unique(idx, return_index=True)
    return local, first


def _local_representatives(sg: TransitionSemigroup) -> list[int]:
    """One idempotent of S per regular J-class (eSe ≅ fSf when e D f)."""
    idem = _idempotents_of_s(sg)
    _, first = np.unique(sg.green.jclass[idem], return_index=True)
    return sorted(int(e) for e in idem[first])


def is_locally_r_trivial(language: DFA | TransitionSemigroup) -> Verdict:
    """Locally R-trivial (LR) = LTL[P,Y] ([LC26]): every eSe is R-trivial.

    For a, b in eSe, a R b in eSe iff a R b in S, so eSe must meet each R-class at most once.
    """
    sg = semigroup_of(language)
    for e in _local_representatives(sg):
        local, _ = local_monoid(sg, e)
        pair = _nontrivial_class(sg.green.rclass[local])
        if pair is not None:
            a, b = int(local[pair[0]]), int(local[pair[1]])  # b = a·u, a = b·v
            u, v = sg.green.right_path(a, b), sg.green.right_path(b, a)
            return _witness(sg, "locally_r_trivial", "locally_r_trivial", x=u, y=v, z=sg.word(e))
    return True


def is_locally_testable(language: DFA | TransitionSemigroup) -> Verdict:
    """Locally testable (Brzozowski–Simon, McNaughton): every eSe is idempotent and commutative."""
    sg = semigroup_of(language)
    for e in _local_representatives(sg):
        local, source = local_monoid(sg, e)
        ze = sg.word(e)
        bad = np.flatnonzero(~sg.idempotent[local])
        if len(bad):
            s = int(source[bad[0]])
            return _witness(sg, "locally_testable", "locally_idempotent", x=sg.word(s), z=ze)
        rows = sg.elements[local]
        for start in range(0, len(local), 256):  # ab = ba for all a, b in eSe, in chunks
            a = rows[start : start + 256]
            ab = compose(np.repeat(a, len(rows), axis=0), np.tile(rows, (len(a), 1)))
            ba = compose(np.tile(rows, (len(a), 1)), np.repeat(a, len(rows), axis=0))
            diff = np.flatnonzero(np.any(ab != ba, axis=1))
            if len(diff):
                i, j = start + int(diff[0]) // len(rows), int(diff[0]) % len(rows)
                x, y = sg.word(int(source[i])), sg.word(int(source[j]))
                return _witness(sg, "locally_testable", "locally_commutative", x=x, y=y, z=ze)
    return True


def _nontrivial_class(labels: np.ndarray) -> tuple[int, int] | None:
    """Positions (s, t), s < t, of the first two members of the first class with ≥ 2 members."""
    sizes = np.bincount(labels)[labels]
    many = np.flatnonzero(sizes > 1)
    if not len(many):
        return None
    s = int(many[0])
    t = int(np.flatnonzero(labels == labels[s])[1])
    return s, t


#: Every decision, keyed by the class names of the catalogue's ``[expected]`` tables.
DECISIONS = {
    "aperiodic": is_aperiodic,
    "r_trivial": is_r_trivial,
    "l_trivial": is_l_trivial,
    "j_trivial": is_j_trivial,
    "da": is_da,
    "definite": is_definite,
    "reverse_definite": is_reverse_definite,
    "generalized_definite": is_generalized_definite,
    "locally_testable": is_locally_testable,
    "locally_r_trivial": is_locally_r_trivial,
    "group": is_group,
}
