"""Depth-bounded type automata: against the reference definition, formulas and the algebra."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from expressivity.algebra.locality import periodic_family
from expressivity.algebra.monoid import transition_semigroup
from expressivity.algebra.operators import eos_type, hybrid, local, past
from expressivity.algebra.type_automata import type_machines
from expressivity.algebra.types import Definable, NotDefinable, definability
from expressivity.algebra.varieties import is_definite, is_locally_r_trivial, is_r_trivial
from expressivity.automata.compile import compile_formula
from expressivity.catalogue import load_catalogue
from tests.algebra.helpers import AB, ABC, dfa, random_dfa
from tests.logic.strategies import formulas

FRAGMENTS = [past(), local(1), local(2), hybrid(1), hybrid(2)]


def _machine_type(machine, word, alphabet):
    m = 0
    for s in word:
        m = machine.delta[m, alphabet.index(s)]
    return int(machine.out[m, len(alphabet)])


@pytest.mark.parametrize("fragment", FRAGMENTS, ids=str)
def test_machine_types_match_the_reference_definition(fragment):
    words = [w for n in range(7) for w in itertools.product("ab", repeat=n)]
    for machine in type_machines(fragment, 2, max_depth=2 if fragment.past else 3):
        by_machine = [_machine_type(machine, w, AB) for w in words]
        by_reference = [eos_type(w, fragment, machine.depth) for w in words]
        for i, j in itertools.combinations(range(0, len(words), 3), 2):
            assert (by_machine[i] == by_machine[j]) == (by_reference[i] == by_reference[j])


def _depth_with_y_unfolded(f):
    """Formula depth counting Y^k as k nested Y (how the {Y} type automaton sees it)."""
    from expressivity.logic.temporal import Yesterday

    inner = max((_depth_with_y_unfolded(c) for c in f.children), default=0)
    return inner + (f.k if isinstance(f, Yesterday) else 1 if f.temporal else 0)


@pytest.mark.parametrize(
    ("operators", "fragment", "max_depth"),
    [
        (("P", "H"), past(), 2),
        (("Y",), local(1), 3),
        (("Y<=2",), local(2), 2),
        (("P", "H", "Y"), hybrid(1), 2),
        (("P", "H", "Y<=2"), hybrid(2), 2),
    ],
    ids=["P", "Y", "Y<=2", "P,Y", "P,Y<=2"],
)
def test_formulas_are_definable_at_their_depth(operators, fragment, max_depth):
    @settings(max_examples=25)
    @given(formulas(("a", "b"), operators, max_depth=max_depth, max_height=4))
    def check(f):
        d = compile_formula(f, AB)
        depth = _depth_with_y_unfolded(f)
        verdict = definability(d, fragment, max_depth=depth, max_states=100_000)
        assert isinstance(verdict, Definable), (str(f), verdict)
        assert verdict.depth <= depth

    check()


@pytest.mark.parametrize(
    ("operators", "decide"),
    [
        (("P", "H"), is_r_trivial),
        (("Y", "Y^k"), is_definite),
        (("P", "H", "Y", "Y^k"), is_locally_r_trivial),
    ],
    ids=["LTL[P]->R-trivial", "LTL[Y]->definite", "LTL[P,Y]->LR"],
)
def test_formulas_of_a_fragment_are_in_its_class(operators, decide):
    @settings(max_examples=60)
    @given(formulas(("a", "b", "c"), operators, max_depth=3, max_height=5))
    def check(f):
        assert decide(compile_formula(f, ABC)) is True, str(f)

    check()


def _agree(d, max_depth, max_states):
    """Types never claim more than the algebra; return the cases the algebra says yes to."""
    sg = transition_semigroup(d)
    found = {}
    for fragment, decide in [
        (past(), is_r_trivial),
        (local(1), is_definite),
        (hybrid(1), is_locally_r_trivial),
    ]:
        algebra = decide(sg) is True
        types = definability(d, fragment, max_depth=max_depth, max_states=max_states)
        if types:
            assert algebra, (d, fragment)
        else:
            assert isinstance(types, NotDefinable)
            a, b = types.words
            assert d.accepts(a) != d.accepts(b)
            assert eos_type(a, fragment, types.max_depth) == eos_type(b, fragment, types.max_depth)
        if algebra:
            found[fragment.name] = bool(types)
    return found


def test_type_automata_agree_with_algebra_on_random_dfas():
    rng = np.random.default_rng(2024)
    positives = found = 0
    for _ in range(200):
        d = random_dfa(rng, AB, max_states=4)
        for ok in _agree(d, max_depth=5, max_states=3000).values():
            positives += 1
            found += ok
    assert positives >= 100
    assert found >= 0.95 * positives  # the rest ran out of states before the needed depth


@pytest.mark.slow
def test_type_automata_agree_with_algebra_on_random_dfas_three_letters():
    rng = np.random.default_rng(99)
    for _ in range(100):
        _agree(random_dfa(rng, ABC, max_states=4), max_depth=3, max_states=20_000)


def test_type_automata_agree_with_algebra_on_the_catalogue():
    found = {}
    for name, lang in load_catalogue().items():
        if lang.is_regular:
            found[name] = _agree(lang.dfa(), max_depth=3, max_states=5000)
    # small cases the type automata must settle on their own
    assert found["SUFFIX-ab"]["Y"] and found["LAST"]["P,Y"] and found["DYCK-(1,1)"]["P,Y"]
    assert found["PREFIX-a"]["P"] and found["TOMITA-1"]["P"] and found["LT-1"]["P"]


def test_suffix_a_is_outside_hybrid_2_and_the_lc26_pairs_share_their_types():
    d = dfa(ABC, [[1, 0, 0], [1, 0, 0]], [1])  # Σ*a
    for k in (2, 3, 4):
        family = periodic_family(d, k)
        assert family is not None and not family
        assert d.accepts(family.words[0]) != d.accepts(family.words[1])
    for k, r in itertools.product((2, 3), (1, 2, 3)):
        word = ("a",) + ("b",) * (k - 1)
        u, v = word * r + ("a",), word * r
        # [LC26]: agree up to depth r; one less here, where start is a depth-0 atom
        assert eos_type(u, hybrid(k), r - 1) == eos_type(v, hybrid(k), r - 1)
        assert eos_type(u, local(k), r - 1) == eos_type(v, local(k), r - 1)
    assert definability(d, local(1), max_depth=2).depth == 1  # Σ*a = Y a


def test_periodic_family_pairs_share_types_when_pumped():
    d = dfa(AB, [[1, 2], [2, 0], [2, 2]], [0])  # (ab)*, k = 4: (ab)^K a vs (ab)^K
    family = periodic_family(d, 4)
    assert family is not None
    x, y, (i, j) = family.prefix, family.period, family.cuts
    for depth in range(4):
        big = 6 * (depth + 1)
        u, v = x + y * big + y[:i], x + y * big + y[:j]
        assert d.accepts(u) != d.accepts(v)
        assert eos_type(u, hybrid(4), depth) == eos_type(v, hybrid(4), depth)
    assert periodic_family(dfa(ABC, [[1, 0, 0], [1, 2, 0], [2, 2, 2]], [2]), 4) is None  # Σ*abΣ*
