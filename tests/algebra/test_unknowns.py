"""Gaps closed in issue 31 (docs/theory.md §8, "Fewer unknowns"): phase-alike periodic families
for dilated heads, and longformer-1-1 = locally testable decided by the algebra."""

from __future__ import annotations

import pytest

from expressivity.algebra.classify import classify
from expressivity.algebra.locality import PeriodicWitness
from expressivity.models.layer_types import agree_after
from expressivity.resolve import resolve


@pytest.mark.parametrize("text", ["Y^2(b)", "re:(a|b)* a (a|b)", "Y^2(a) & Y^4(b)"])
def test_dilated_phase_families_settle_no_and_recheck_on_the_masks(text):
    dfa = resolve(text, "a,b").dfa
    r = classify(dfa, (1,), layouts=["dilated-2-2"], synthesize=False).recognizer("dilated-2-2")
    assert r.status == "no", r.reason
    w = r.witness
    assert isinstance(w, PeriodicWitness) and w.phase_only
    i, j = w.cuts
    for k in (2, 4):
        K = k * w.exponent * 4
        u = w.prefix + w.period * K + w.period[:i]
        v = w.prefix + w.period * K + w.period[:j]
        assert dfa.accepts(u) and not dfa.accepts(v)
        for layers in (1, 2, 3):  # one EOS type after every depth the words are long enough for
            assert agree_after(u, v, "dilated-2-2", layers), (text, K, layers)


def test_phase_alike_needs_equal_phases():
    """Σ*a (offset 1 read only through 2 and 4) is not dilated-2-2, yet Y^2 b ∧ Y^4 b-style
    languages over the even phase are: the family must not fire on a language the heads read."""
    dfa = resolve("Y^2(b) | Y^4(b)", "a,b").dfa
    r = classify(dfa, (1,), layouts=["dilated-2-2"], synthesize=False).recognizer("dilated-2-2")
    assert r.status == "yes", r.reason


@pytest.mark.parametrize(("text", "sigma"), [
    ("re:(a (((((c c))? a))*)*)", "a,b,c"),
    ("re:a b (a|b|c)*", "a,b,c"),
    ("re:(a|b|c)* a b (a|b|c)*", "a,b,c"),
])
def test_longformer_1_1_is_locally_testable(text, sigma):
    dfa = resolve(text, sigma).dfa
    c = classify(dfa, (1,), layouts=["longformer-1-1", "L1+T1"], synthesize=False)
    assert c.member("locally_testable")
    assert c.recognizer("longformer-1-1").status == "yes"
    assert c.recognizer("L1+T1").status == "yes"


def test_longformer_1_1_still_says_no_outside_lt():
    c = classify(resolve("re:((a|b)(a|b))*", "a,b").dfa, (1,), layouts=["longformer-1-1"],
                 synthesize=False)
    assert not c.member("locally_testable")
    assert c.recognizer("longformer-1-1").status == "no"
    c = classify(resolve("re:(a b)*", "a,b").dfa, (1,), layouts=["longformer-1-1"],
                 synthesize=False)  # start with a, end with b, no aa, no bb: LT
    assert c.recognizer("longformer-1-1").status == "yes"
