"""Adversarial pairs are separated by the language and share the claimed depth-bounded type."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.algebra import operators, varieties
from expressivity.automata.dfa import DFA
from expressivity.data.fragment_types import TypeTracker
from expressivity.data.pairs import equal_type_pair, lc25_pairs, lc25_witness, lc26_pairs
from expressivity.errors import ConfigError
from expressivity.logic import syntax as s
from expressivity.logic import temporal as tl
from expressivity.logic.operators import Fragment
from expressivity.logic.semantics import accepts as formula_accepts
from tests.data.helpers import AB, accepts, dyck11, first_b, last_a, lt2, parity, random_dfas


def formulas(fragment: Fragment, depth: int) -> st.SearchStrategy[s.Formula]:
    """Random formulas of ``fragment`` with temporal depth ≤ ``depth`` over {a, b}."""
    atoms = st.sampled_from([s.Symbol("a"), s.Symbol("b"), s.Eos(), s.Start(), s.Top()])
    if depth == 0:
        base = atoms
    else:
        inner = formulas(fragment, depth - 1)
        temporal = []
        if fragment.past:
            temporal.append(inner.map(tl.Past))
        if fragment.window:
            temporal.append(inner.map(lambda f: tl.BoundedPast(f, fragment.window)))
        base = st.one_of(atoms, *temporal)
    return st.recursive(
        base,
        lambda x: st.one_of(
            x.map(s.Not),
            st.tuples(x, x).map(lambda p: s.And(*p)),
            st.tuples(x, x).map(lambda p: s.Or(*p)),
        ),
        max_leaves=4,
    )


FRAGMENTS = [
    Fragment(True, 0),
    Fragment(False, 1),
    Fragment(False, 2),
    Fragment(True, 1),
    Fragment(True, 2),
]
WORDS = [w for n in range(6) for w in itertools.product("ab", repeat=n)]


@pytest.mark.parametrize("fragment", FRAGMENTS, ids=str)
@settings(max_examples=25)
@given(data=st.data())
def test_equal_types_agree_on_every_formula_of_that_depth(
    fragment: Fragment, data: st.DataObject
) -> None:
    depth = data.draw(st.integers(0, 2))
    tracker = TypeTracker(fragment, depth)
    types = [tracker.eos_type(AB.encode(w)) for w in WORDS]
    formula = data.draw(formulas(fragment, depth))
    value_of_type: dict[int, bool] = {}
    for w, t in zip(WORDS, types, strict=True):
        assert value_of_type.setdefault(t, formula_accepts(formula, w)) == formula_accepts(
            formula, w
        )


@pytest.mark.parametrize("fragment", FRAGMENTS, ids=str)
def test_tracker_matches_the_algebra_reference(fragment: Fragment) -> None:
    for depth in range(3):
        tracker = TypeTracker(fragment, depth)
        ours = [tracker.eos_type(AB.encode(w)) for w in WORDS]
        theirs = [operators.eos_type(w, fragment, depth) for w in WORDS]
        for i, j in itertools.combinations(range(len(WORDS)), 2):
            assert (ours[i] == ours[j]) == (theirs[i] == theirs[j]), (WORDS[i], WORDS[j], depth)


def same_type_in_algebra(
    dfa: DFA, member: np.ndarray, nonmember: np.ndarray, fragment: str, depth: int
) -> bool:
    """The pair's EOS types at ``depth`` agree per `algebra.operators.eos_type`."""
    frag = Fragment.parse(fragment)
    left, right = dfa.alphabet.decode(member), dfa.alphabet.decode(nonmember)
    return bool(operators.eos_type(left, frag, depth) == operators.eos_type(right, frag, depth))


def test_fragment_spellings() -> None:
    assert Fragment.parse("LTL[P]") == Fragment(True, 0)
    assert str(Fragment.parse("Y")) == "LTL[Y]"
    assert Fragment.parse("P,Y<=4") == Fragment(True, 4)
    assert str(Fragment.parse("Y<=1")) == "LTL[Y]"
    with pytest.raises(ConfigError):
        Fragment.parse("F")
    with pytest.raises(ConfigError):
        Fragment(False, 0)


@pytest.mark.parametrize("make", [last_a, dyck11, parity, lt2])
def test_lc25_pairs_are_separated_and_share_their_ltl_p_type(make) -> None:  # type: ignore[no-untyped-def]
    dfa = make()
    pairs = lc25_pairs(dfa, (0, 40), 4)
    assert pairs
    for p in pairs:
        assert accepts(dfa, tuple(p.member)) and not accepts(dfa, tuple(p.nonmember))
        assert p.fragment == "LTL[P]" and p.family == "lc25"
        depth = min(p.depth, 4)  # the type check is exponential in depth
        assert TypeTracker(Fragment(True, 0), depth).same_type(p.member, p.nonmember)
        assert same_type_in_algebra(dfa, p.member, p.nonmember, p.fragment, depth)
        assert max(p.member.size, p.nonmember.size) <= 40


def test_lc25_needs_a_language_outside_ltl_p() -> None:
    assert lc25_witness(first_b()) is None  # bΣ* is R-trivial
    assert lc25_pairs(first_b(), (0, 50), 5) == []


@settings(max_examples=40)
@given(random_dfas(max_states=5))
def test_lc25_witness_separates_random_languages(dfa: DFA) -> None:
    w = lc25_witness(dfa)
    assert (w is None) == (varieties.is_r_trivial(dfa) is True)  # exists iff not in LTL[P]
    if w is None:
        return
    for k in (1, 2, 5):
        left, right = w.words(k)
        assert accepts(dfa, left) != accepts(dfa, right)


@pytest.mark.parametrize(("make", "window"), [(last_a, 2), (last_a, 4), (parity, 1)])
def test_lc26_pairs_fool_the_hybrid_fragment(make, window: int) -> None:  # type: ignore[no-untyped-def]
    dfa = make()  # Σ*a is outside LTL[P,Y<=k] for k >= 2; parity is outside LTL[P,Y]
    pairs = lc26_pairs(dfa, window, (2, 30), 3)
    assert pairs
    for p in pairs:
        assert accepts(dfa, tuple(p.member)) and not accepts(dfa, tuple(p.nonmember))
        assert p.fragment == str(Fragment(True, window))
        tracker = TypeTracker(Fragment(True, window), min(p.depth, 3))
        assert tracker.same_type(p.member, p.nonmember)
        assert same_type_in_algebra(dfa, p.member, p.nonmember, p.fragment, min(p.depth, 3))


def test_lc26_pairs_only_where_separated() -> None:
    assert lc26_pairs(last_a(), 1, (2, 30), 3) == []  # Σ*a = Y a is in LTL[Y]


@pytest.mark.parametrize(
    ("make", "fragment", "found"),
    [
        (last_a, "Y", False),  # Σ*a = Y a
        (last_a, "P", True),
        (first_b, "P", False),  # bΣ* = P(b ∧ ¬P⊤)
        (dyck11, "Y<=2", True),
        (lt2, "P", True),
    ],
)
def test_equal_type_pairs(make, fragment: str, found: bool) -> None:  # type: ignore[no-untyped-def]
    dfa = make()
    frag = Fragment.parse(fragment)
    pair = equal_type_pair(dfa, frag, 2, max_len=8)
    assert (pair is not None) == found
    if pair is not None:
        assert accepts(dfa, tuple(pair.member)) and not accepts(dfa, tuple(pair.nonmember))
        assert TypeTracker(frag, 2).same_type(pair.member, pair.nonmember)
        assert same_type_in_algebra(dfa, pair.member, pair.nonmember, fragment, 2)


def test_equal_type_pairs_avoid_given_words() -> None:
    dfa = last_a()
    frag = Fragment.parse("P")
    first = equal_type_pair(dfa, frag, 1, max_len=6)
    assert first is not None
    banned = {tuple(first.member.tolist())}
    other = equal_type_pair(dfa, frag, 1, max_len=6, avoid=lambda w, _m: w in banned)
    assert other is not None and tuple(other.member.tolist()) not in banned
    assert TypeTracker(frag, 1).same_type(other.member, other.nonmember)
    assert np.asarray(other.member).size >= np.asarray(first.member).size
