"""Prefix, content and window sets (docs/theory.md §17): the decision vs brute force, random
formulas written with P and Y<=k over the κ_{M,k} atoms get "yes" (never "no"), and the raw
masks of hybrid-k and longformer-k-1 tell every two κ_{M,k} classes apart."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.algebra.classify import classify, one_letter_per_action
from expressivity.algebra.patterns import layout_fragment, window_head
from expressivity.algebra.window_sets import WindowSets, window_sets
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import minimize
from expressivity.models.depth import minimal_depth
from expressivity.models.layer_types import Interner, eos_layer_type, layer_layout
from expressivity.resolve import resolve


def _position(j: int, k: int) -> str:
    """χ_j = "n = j" in Y<=k: only start for j = 1; else every key is some χ_i (i < j) and
    some key is χ_{j−1}."""
    if j == 1:
        return "start"
    earlier = " | ".join(f"({_position(i, k)})" for i in range(1, j))
    return f"(Y<={k}({_position(j - 1, k)}) & !Y<={k}(!({earlier})))"


def _atom(rng: np.random.Generator, m: int, k: int, letters: tuple[str, ...]) -> str:
    """One κ_{m,k} atom as a formula of P and Y<=k at EOS."""
    roll = int(rng.integers(4 if m else 3))
    subset = [x for x in letters if rng.random() < 0.5]
    window = " & ".join([f"Y<={k}({x})" if x in subset else f"!Y<={k}({x})" for x in letters])
    if roll == 0:  # the letter set of some length-k factor (a full window, m ≥ k + 1, or EOS)
        full = " & ".join(f"!({_position(i, k)})" for i in range(1, k + 1))
        inner = f"{full} & {window}"
        return f"(P({inner}) | ({inner}))"
    if roll == 1:  # the letter set of the last k letters (EOS's own window)
        return f"({window})"
    if roll == 2:  # some letter occurs after position m
        beyond = " & ".join(f"!({_position(i, k)})" for i in range(1, m + 1)) or "true"
        return f"P({rng.choice(letters)} & {beyond})"
    j = int(rng.integers(1, m + 1))  # the letter at position j ≤ m
    return f"P({rng.choice(letters)} & {_position(j, k)})"


def _formula(rng: np.random.Generator, m: int, k: int, letters: tuple[str, ...]) -> str:
    parts = [_atom(rng, m, k, letters) for _ in range(int(rng.integers(1, 4)))]
    out = parts[0]
    for p in parts[1:]:
        op = "&" if rng.random() < 0.5 else "|"
        out = f"({out}) {op} ({'!' if rng.random() < 0.3 else ''}{p})"
    return out


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 2), st.integers(2, 3), st.integers(2, 3))
def test_random_window_set_formulas_get_yes(seed, m, k, size):
    """A Boolean combination of κ_{m,k} atoms (a formula of LTL[P, Y<=k]) is "yes" for
    hybrid-k and longformer-k-1, by a proof whose key re-checks on all words ≤ 6."""
    letters = tuple("abc"[:size])
    text = _formula(np.random.default_rng(seed), m, k, letters)
    dfa = resolve(text, ",".join(letters)).dfa
    layouts = [f"hybrid-{k}", f"longformer-{k}-1"]
    c = classify(dfa, (k,), layouts=layouts, synthesize=False)
    for layout in layouts:
        r = c.recognizer(layout)
        assert r.status == "yes", (text, layout, r.reason)
        if isinstance(r.witness, WindowSets):
            assert r.witness.window == k and r.witness.prefix_length <= max(m, 1) + 1
            assert r.witness.check(dfa, 6)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 5), st.integers(2, 3), st.integers(1, 3))
def test_a_found_proof_rechecks_by_brute_force(seed, n, size, k):
    rng = np.random.default_rng(seed)
    dfa = minimize(DFA(Alphabet(tuple("abc"[:size])), rng.integers(0, n, (n, size)),
                       rng.random(n) < 0.5))
    proof = window_sets(dfa, k, 3)
    if proof is not None:
        assert proof.check(dfa, 7)


@pytest.mark.parametrize(("layout", "summary"), [("hybrid-2", False), ("hybrid-3", False),
                                                 ("longformer-2-1", True),
                                                 ("longformer-3-1", True)])
@pytest.mark.parametrize("m", [0, 1, 2])
def test_masks_tell_every_two_window_classes_apart(layout, summary, m):
    """The claim behind the rule, on the raw masks: words with different κ_{m,k} have different
    EOS types after `WindowSets.layers` layers (one or two heads per layer)."""
    k = window_head(layout_fragment(layout))
    proof = WindowSets(m, k, summary)
    words = list(itertools.chain(
        itertools.chain.from_iterable(itertools.product("ab", repeat=n) for n in range(7)),
        itertools.chain.from_iterable(itertools.product("abc", repeat=n) for n in range(5))))
    for heads in (1, 2):
        if layout.startswith("hybrid") and heads == 1:
            continue  # a hybrid layer has a global and a local head
        model = layer_layout(layout, proof.layers, heads)
        intern = Interner()
        by_type: dict[int, object] = {}
        for w in words:
            key = by_type.setdefault(eos_layer_type(w, model, intern), proof.key(w))
            assert key == proof.key(w), (layout, heads, w)


def test_the_audits_hybrid_2_example_is_yes():
    """"Starts with ab and contains no cc" over {a,b,c} (the audit's item (c)): yes for hybrid-2
    and longformer-2-1; hybrid-4 does not read the factor cc this way and stays unknown."""
    dfa = resolve("P(b & Y(a & !P true)) & !P(c & Y c)", "a,b,c").dfa
    c = classify(dfa, (2, 4), layouts=["longformer-2-1"], synthesize=False)
    for layout in ("hybrid-2", "longformer-2-1"):
        r = c.recognizer(layout)
        assert r.status == "yes" and isinstance(r.witness, WindowSets), r.reason
        assert r.witness.prefix_length == 2 and r.witness.check(dfa, 7)
    assert c.recognizer("hybrid-4").status == "unknown"
    second = "(Y<=2(start) & !Y<=2(!start))"  # χ₂: n = 2
    cc = f"(!start & !{second} & !Y<=2(!c))"  # a full window {c}: the factor cc ends at n − 1
    formula = f"P(a & start) & P(b & {second}) & !(P{cc} | {cc})"
    assert resolve(formula, "a,b,c").dfa <= dfa <= resolve(formula, "a,b,c").dfa


@pytest.mark.parametrize(("text", "sigma"), [("Y a", "a,b"), ("re:(a|b|c)* a b (a|b|c)*",
                                                               "a,b,c")])
def test_order_inside_a_window_is_not_claimed(text, sigma):
    """Σ*a (the last letter) and Σ*abΣ* (the order inside a window) are no union of κ classes."""
    dfa = resolve(text, sigma).dfa
    assert window_sets(dfa, 2, 3) is None


def test_window_set_proofs_bound_d_star_and_no_certificate_contradicts_them():
    """d* ≤ `WindowSets.layers` (P: max(M, k) + 1, E: + 2); minimal_depth raises if a raw-mask
    certificate ever lies at or beyond a proof, so building it re-checks the bound."""
    dfa = resolve("P(b & Y(a & !P true)) & !P(c & Y c)", "a,b,c").dfa
    c = classify(dfa, (2,), layouts=["longformer-2-1"], synthesize=False)
    for layout, summary in (("hybrid-2", False), ("longformer-2-1", True)):
        proof = c.recognizer(layout).witness
        assert isinstance(proof, WindowSets) and proof.summary == summary
        md = minimal_depth(one_letter_per_action(dfa), layout, c.recognizer(layout),
                           max_depth=3, max_states=2_000, n_heads=2)
        assert md.upper is not None and md.upper <= proof.layers
        assert md.lower <= md.upper
