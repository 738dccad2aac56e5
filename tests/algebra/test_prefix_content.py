"""Prefix-and-content languages (docs/theory.md §17): the decision vs brute force, the layouts
that read κ_M vs their raw masks, and soundness of the new "yes" on random κ_M languages."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.algebra.classify import classify
from expressivity.algebra.patterns import reads_positions
from expressivity.algebra.prefix_content import PrefixContent, content_determined, prefix_content
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import minimize
from expressivity.layouts import parse_spelling
from expressivity.models.depth import minimal_depth
from expressivity.models.layer_types import Interner, eos_layer_type, layer_layout
from expressivity.resolve import resolve

#: Layouts whose heads read n − 1 exactly, with BOS as the one global token (exact and seeded).
READERS = ["longformer-2-1", "longformer-4-1", "bigbird-2-1-1", "bigbird-2-2-1", "bigbird-1-3-1",
           "L3+R2+T1", "4xD2.1+R1,4xT1", "4xG+R1,4xT1"]
#: Seeded layouts that do not qualify (no exact offset-1 atom, or hub tokens beyond BOS).
NOT_READERS = ["R2+T1", "D2.2+R1+T1", "bigbird-2-1-2", "L2+R1"]


def _words(symbols, max_length):
    for n in range(max_length + 1):
        yield from itertools.product(symbols, repeat=n)


def _random_dfa(seed: int, n: int, k: int) -> DFA:
    rng = np.random.default_rng(seed)
    table = rng.integers(0, n, (n, k))
    return minimize(DFA(Alphabet(tuple("abc"[:k])), table, rng.random(n) < 0.5))


def _residual_by_content(dfa: DFA, q: int, max_length: int) -> bool:
    """Brute force: words read from q with equal letter sets end in equally accepting states."""
    seen: dict[frozenset[str], bool] = {}
    start = DFA(dfa.alphabet, dfa.transitions, dfa.accepting, q)
    return all(seen.setdefault(frozenset(w), start.accepts(w)) == start.accepts(w)
               for w in _words(dfa.alphabet.symbols, max_length))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 4), st.integers(1, 3))
def test_content_determined_is_the_brute_force(seed, n, k):
    """Good states agree with brute force; on a minimal DFA a bad state has a counterexample
    within 2n − 1 letters (x·ab·z / x·ba·z or x·aa·z / x·a·z, |x| ≤ n − 1, |z| ≤ n − 2)."""
    dfa = _random_dfa(seed, n, k)
    good = content_determined(dfa)
    bound = 2 * dfa.n_states - 1
    for q in range(dfa.n_states):
        assert (q in good) == _residual_by_content(dfa, q, bound), (q, dfa)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 5), st.integers(1, 3))
def test_prefix_length_is_least_and_rechecks(seed, n, k):
    dfa = _random_dfa(seed, n, k)
    proof = prefix_content(dfa, dfa.n_states)
    if proof is None:
        return
    m = proof.prefix_length
    assert proof.check(dfa, m + 2 * dfa.n_states - 1)
    if m:  # one prefix length less has a counterexample within (m − 1) + (2n − 1) letters
        assert not PrefixContent(m - 1).check(dfa, m - 1 + 2 * dfa.n_states - 1)


def _kappa_dfa(rng: np.random.Generator, m: int, letters: tuple[str, ...]) -> DFA:
    """A random union of κ_m classes: a trie below length m, then (prefix, letters seen)."""
    states: dict[object, int] = {}
    rows: list[list[object]] = []

    def state(key: object) -> int:
        if key not in states:
            states[key] = len(states)
            rows.append([key])
        return states[key]

    state(("short", ()))
    i = 0
    while i < len(rows):
        key = rows[i][0]
        succ = []
        for s in letters:
            if key[0] == "short" and len(key[1]) + 1 < m:
                succ.append(state(("short", (*key[1], s))))
            elif key[0] == "short":
                succ.append(state(("long", (*key[1], s)[:m], frozenset((*key[1], s)[m:]))))
            else:
                succ.append(state(("long", key[1], key[2] | {s})))
        rows[i].extend(succ)
        i += 1
    table = np.array([r[1:] for r in rows], dtype=np.int64)
    return minimize(DFA(Alphabet(letters), table, rng.random(len(rows)) < 0.5))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 3), st.integers(2, 3))
def test_random_kappa_languages_get_yes_for_readers_and_never_no(seed, m, k):
    """Every union of κ_m classes is "yes" for each layout that reads κ_m, "no" for none."""
    dfa = _kappa_dfa(np.random.default_rng(seed), m, tuple("abc"[:k]))
    assert PrefixContent(m).check(dfa, m + 4)
    c = classify(dfa, (1,), layouts=READERS + NOT_READERS, synthesize=False)
    for layout in READERS:
        r = c.recognizer(layout)
        assert r.status == "yes", (layout, r.reason)
    for layout in NOT_READERS:
        assert c.recognizer(layout).status != "no", layout


@pytest.mark.parametrize("layout", READERS)
def test_readers_are_detected(layout):
    assert reads_positions(parse_spelling(layout).patterns)


@pytest.mark.parametrize("layout", [*NOT_READERS, "global", "hybrid-2", "longformer-2-2"])
def test_non_readers_are_not(layout):
    assert not reads_positions(parse_spelling(layout).patterns)


@pytest.mark.parametrize("layout", ["longformer-2-1", "bigbird-2-1-1", "bigbird-2-2-1",
                                    "L3+R2+T1", "bigbird-1-3-1"])
@pytest.mark.parametrize("m", [0, 1, 2])
def test_masks_tell_every_two_kappa_classes_apart(layout, m):
    """The claim behind the rule, on the raw masks: words with different κ_m have different EOS
    types after m + 2 layers, for every seed tried and one or two heads per layer."""
    key = PrefixContent(m).key
    words = list(_words(("a", "b"), 5))
    for seed, heads in itertools.product(range(4), (1, 2)):
        model = layer_layout(layout, m + 2, heads, seed)
        intern = Interner()
        by_type: dict[int, object] = {}
        for w in words:
            kappa = by_type.setdefault(eos_layer_type(w, model, intern), key(w))
            assert kappa == key(w), (layout, seed, heads, w)


@pytest.mark.parametrize(("text", "sigma", "m"), [
    ("re:a c", "a,b,c", 2), ("re:a b (a|b|c)*", "a,b,c", 2), ("Y(Y(Y(true)))", "a,b", 2),
    ("P(c) & !P(b & start)", "a,b,c", 1), ("P(a)", "a,b", 0),
])
def test_examples_get_yes_with_their_prefix_length(text, sigma, m):
    dfa = resolve(text, sigma).dfa
    c = classify(dfa, (1,), layouts=["longformer-2-1", "bigbird-2-1-1"], synthesize=False)
    for layout in ("longformer-2-1", "bigbird-2-1-1"):
        r = c.recognizer(layout)
        assert r.status == "yes", r.reason
        if isinstance(r.witness, PrefixContent):
            assert r.witness.prefix_length == m
    md = minimal_depth(dfa, "bigbird-2-1-1", c.recognizer("bigbird-2-1-1"), max_depth=3,
                       max_states=2_000, n_heads=2, seeds=(0,))
    assert md.upper is not None and md.upper <= max(m, 1) + 2


def test_suffix_languages_stay_unknown_for_random_keys():
    """Σ*a reads the last letter, which the random keys blur: never "no", and no κ proof."""
    dfa = resolve("Y a", "a,b").dfa
    assert prefix_content(dfa, dfa.n_states) is None
    r = classify(dfa, (1,), layouts=["bigbird-2-1-1"], synthesize=False).recognizer(
        "bigbird-2-1-1")
    assert r.status == "unknown"
