"""QR and QLR (MOD predicates): brute-force agreement, checked witnesses, soundness on formulas."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings

from expressivity.algebra.classify import classify, predicted_recognizers
from expressivity.algebra.modular import (
    QUASI_IDENTITIES,
    is_quasi_locally_r_trivial,
    is_quasi_r_trivial,
    stability_index,
    stable_semigroup,
)
from expressivity.algebra.monoid import transition_semigroup
from expressivity.algebra.varieties import is_locally_r_trivial, is_r_trivial
from expressivity.algebra.witnesses import IdentityWitness, check_witness
from expressivity.automata.compile import compile_formula
from expressivity.automata.dfa import DFA
from expressivity.automata.regex import compile_regex
from expressivity.logic import syntax as s
from expressivity.logic import temporal as tl
from expressivity.resolve import resolve
from tests.algebra.helpers import AB, ABC, dfas, evaluate_on_table
from tests.logic.strategies import FRAGMENTS, formulas


def _word_elements(sg, length: int) -> set[int]:  # type: ignore[no-untyped-def]
    """η(Σ^length) by enumerating every word of that length."""
    d = sg.dfa
    rows = []
    for word in itertools.product(range(len(d.alphabet)), repeat=length):
        row = np.arange(d.n_states)
        for a in word:
            row = d.transitions[row, a]
        rows.append(row)
    return set(map(int, sg.index_of(np.array(rows, dtype=sg.elements.dtype))))


def _holds_on(sg, identity, domain) -> bool:  # type: ignore[no-untyped-def]
    table, omega = sg.cayley_table(), sg.omega
    names = identity.variables
    for values in itertools.product(domain, repeat=len(names)):
        v = dict(zip(names, values, strict=True))
        lhs = evaluate_on_table(identity.lhs, v, table, omega, sg.identity)
        if lhs != evaluate_on_table(identity.rhs, v, table, omega, sg.identity):
            return False
    return True


def _check(d: DFA) -> None:
    sg = transition_semigroup(d)
    st_index = stability_index(sg)
    assume(len(d.alphabet) ** (2 * st_index) <= 5_000)
    # the stability index by brute force: the least s with η(Σ^s) = η(Σ^2s)
    levels = {n: _word_elements(sg, n) for n in range(1, 2 * st_index + 1)}
    assert min(n for n in range(1, st_index + 1) if levels[n] == levels[2 * n]) == st_index
    stable = sorted(levels[st_index])
    assert list(stable_semigroup(sg)) == stable
    for key, decide in (("qr", is_quasi_r_trivial), ("qlr", is_quasi_locally_r_trivial)):
        verdict = decide(sg)
        assert (verdict is True) == _holds_on(sg, QUASI_IDENTITIES[key], stable), key
        if verdict is not True:
            assert isinstance(verdict, IdentityWitness) and verdict.variety == key
            check_witness(sg.dfa, verdict)
            for _, word in verdict.assignment:  # every variable's element lies in T
                assert word and len(word) % st_index == 0


@settings(max_examples=120)
@given(dfas(AB, max_states=5))
def test_agrees_with_brute_force_over_ab(d: DFA) -> None:
    _check(d)


@settings(max_examples=60)
@given(dfas(ABC, max_states=4))
def test_agrees_with_brute_force_over_abc(d: DFA) -> None:
    _check(d)


@settings(max_examples=80)
@given(dfas(AB, max_states=5))
def test_inclusions(d: DFA) -> None:
    sg = transition_semigroup(d)
    qr, qlr = is_quasi_r_trivial(sg) is True, is_quasi_locally_r_trivial(sg) is True
    if is_r_trivial(sg) is True:
        assert qr  # LTL[P] ⊆ LTL[P,MOD]
    if is_locally_r_trivial(sg) is True:
        assert qlr  # LTL[P,Y] ⊆ LTL[P,Y,MOD]
    if qr:
        assert qlr  # LTL[P,MOD] ⊆ LTL[P,Y,MOD]


@pytest.mark.parametrize(
    ("regex", "sigma", "qr", "qlr"),
    [
        ("(a a)*", "ab", True, True),
        ("(a b)*", "abc", True, True),
        ("((a|b)(a|b))*", "ab", True, True),
        ("a* (b a* b a*)*", "ab", False, False),  # PARITY
        (".* a b .*", "abc", False, True),  # Σ*abΣ*: LTL[P,Y] but not LTL[P,MOD]
        (".* a", "abc", False, True),
        ("((a a)|(b b))*", "ab", False, True),
    ],
)
def test_examples(regex: str, sigma: str, qr: bool, qlr: bool) -> None:
    d = compile_regex(regex, ",".join(sigma))
    assert (is_quasi_r_trivial(d) is True, is_quasi_locally_r_trivial(d) is True) == (qr, qlr)


def test_classify_reports_the_periodic_layouts() -> None:
    parity = classify(resolve("a* (b a* b a*)*", "a,b").dfa)
    assert not any(predicted_recognizers(parity, periodic=True).values())
    assert parity.recognizer("global+periodic").status == "no"
    assert parity.recognizer("hybrid-2+periodic").status == "no"
    assert parity.recognizer("hybrid-2+periodic").witness.variety == "qlr"
    even = classify(resolve("((a|b)(a|b))*", "a,b").dfa)
    assert all(predicted_recognizers(even, periodic=True).values())
    assert not any(predicted_recognizers(even).values())
    lt2 = classify(resolve(".* a b .*", "a,b,c").dfa)
    assert lt2.recognizer("global+periodic").status == "no"
    assert lt2.recognizer("hybrid-1+periodic").status == "yes"
    assert lt2.recognizer("hybrid-4+periodic").status == "yes"  # LTL[P,Y^≤4,MOD] = LTL[P,Y,MOD]
    assert "global+periodic" in lt2.to_table()
    blocks = classify(resolve("((a a)|(b b))*", "a,b").dfa)
    assert blocks.recognizer("hybrid-1+periodic").status == "unknown"


# ------------------------------------------------------------------ soundness on formulas


@settings(max_examples=150)
@given(formulas(ABC.symbols, FRAGMENTS["LTL[P,MOD]"], max_depth=3, max_height=5, max_mod=4))
def test_ltl_p_mod_formulas_are_never_no_for_global_periodic(formula: s.Formula) -> None:
    c = classify(compile_formula(formula, ABC), ks=(1, 2), synthesize=False)
    assert c.member("qr"), c.verdict("qr")
    assert c.recognizer("global+periodic").status == "yes"
    assert c.recognizer("hybrid-2+periodic").status == "yes"


@settings(max_examples=100)
@given(formulas(AB.symbols, FRAGMENTS["LTL[P,Y,MOD]"], max_depth=3, max_height=5, max_mod=4))
def test_ltl_p_y_mod_formulas_are_never_no_for_hybrid_periodic(formula: s.Formula) -> None:
    c = classify(compile_formula(formula, AB), ks=(1, 3), synthesize=False)
    assert c.member("qlr"), c.verdict("qlr")
    assert c.recognizer("hybrid-1+periodic").status != "no"
    assert c.recognizer("hybrid-3+periodic").status != "no"


def _yesterday_by_window(psi: s.Formula, k: int) -> s.Formula:
    """Y ψ = ⋁_r mod(k,r) ∧ Y^≤k(ψ ∧ mod(k,r−1)): the one window position with residue n−1."""
    return s.disj(
        *(s.And(s.Mod(k, r), tl.BoundedPast(s.And(psi, s.Mod(k, (r - 1) % k)), k))
          for r in range(k))
    )


@settings(max_examples=60)
@given(formulas(AB.symbols, FRAGMENTS["LTL[P,Y,MOD]"], max_depth=2, max_height=4))
@pytest.mark.parametrize("k", [2, 3])
def test_yesterday_is_a_window_with_mod(k: int, formula: s.Formula) -> None:
    assert compile_formula(tl.Yesterday(formula), AB) == compile_formula(
        _yesterday_by_window(formula, k), AB
    )
