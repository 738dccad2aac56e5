"""Negatives: uniform non-members, perturbed positives, exact edit distances, hard negatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import complement
from expressivity.data.negatives import (
    apply_edit,
    distance_to_language,
    edit_distance_to_language,
    hard_negative,
    perturbed_negatives,
    single_edit_nonmembers,
)
from expressivity.data.sampling import WordSampler
from expressivity.errors import SamplingError
from tests.data.helpers import (
    accepts,
    all_words,
    brute_distance,
    dyck11,
    last_a,
    lt2,
    neighbours,
    random_dfas,
)


@settings(max_examples=40)
@given(random_dfas(max_states=4), st.integers(0, 4))
def test_edit_distance_equals_brute_force(dfa: DFA, length: int) -> None:
    if brute_distance(dfa, (), cap=dfa.n_states) is None:  # no member at all
        with pytest.raises(SamplingError, match="empty"):
            edit_distance_to_language(dfa, all_words(dfa.n_symbols, length))
        return
    words = all_words(dfa.n_symbols, length)
    got = edit_distance_to_language(dfa, words, chunk=7)  # several chunks
    for w, d in zip(words, got, strict=True):
        assert d == brute_distance(dfa, tuple(w.tolist()), cap=12)


def test_known_distances() -> None:
    dyck = dyck11()
    assert distance_to_language(dyck, [0, 0, 1, 1]) == 2
    assert distance_to_language(dyck, [0, 1, 0]) == 1
    assert distance_to_language(dyck, []) == 0
    assert distance_to_language(last_a(), [1] * 30) == 1


def test_uniform_negatives_come_from_the_complement() -> None:
    dfa = lt2()
    neg = WordSampler.build(complement(dfa), 30)
    words = neg.sample(30, 2000, np.random.default_rng(0))
    assert not dfa.accepts_codes(words).any()


@pytest.mark.parametrize("make", [last_a, lt2, dyck11])
def test_perturbed_negatives_are_true_negatives_with_true_distances(make) -> None:  # type: ignore[no-untyped-def]
    dfa = make()
    sampler = WordSampler.build(dfa, 40)
    rng = np.random.default_rng(1)
    for length in (9, 10):
        codes, edits = perturbed_negatives(sampler, length, 60, rng, distinct=True)
        assert codes.shape == (60, length) and edits.shape == (60,)
        assert not dfa.accepts_codes(codes).any()
        assert len({c.tobytes() for c in codes}) == 60
        dist = edit_distance_to_language(dfa, codes)
        assert (dist >= 1).all() and (dist <= edits).all()
        for c, d in list(zip(codes, dist, strict=True))[:8]:
            assert d == brute_distance(dfa, tuple(c.tolist()), cap=int(d))


def test_perturbation_respects_exclusion_and_is_deterministic() -> None:
    dfa = last_a()
    sampler = WordSampler.build(dfa, 20)
    first, _ = perturbed_negatives(sampler, 3, 10, np.random.default_rng(4), distinct=True)
    exclude = {first[0].tobytes(), first[1].tobytes()}
    again, edits = perturbed_negatives(sampler, 3, 10, np.random.default_rng(4), exclude=exclude)
    assert not {c.tobytes() for c in again} & exclude
    same, same_edits = perturbed_negatives(
        sampler, 3, 10, np.random.default_rng(4), exclude=exclude
    )
    assert np.array_equal(again, same) and np.array_equal(edits, same_edits)
    assert (edits >= 1).all()


def test_perturbation_gives_up_when_no_negative_exists() -> None:
    everything = DFA(Alphabet(("a", "b")), [[0, 0]], [True])
    codes, edits = perturbed_negatives(
        WordSampler.build(everything, 10), 4, 5, np.random.default_rng(0), budget=3
    )
    assert codes.shape == (0, 4) and edits.shape == (0,)


@settings(max_examples=40)
@given(random_dfas(max_states=4), st.integers(0, 5), st.integers(0, 2**16))
def test_single_edit_nonmembers_are_exactly_the_distinct_neighbours(
    dfa: DFA, length: int, seed: int
) -> None:
    word = tuple(np.random.default_rng(seed).integers(0, dfa.n_symbols, size=length).tolist())
    edits = single_edit_nonmembers(dfa, np.array(word, dtype=np.int64))
    made = [
        tuple(apply_edit(np.array(word, dtype=np.int64), op, pos, sym).tolist())
        for op, pos, sym in edits
    ]
    assert len(made) == len(set(made))  # each distinct neighbour listed once
    expected = {v for v in neighbours(word, dfa.n_symbols) if v != word and not accepts(dfa, v)}
    assert set(made) == expected


def test_hard_negatives_are_at_distance_one() -> None:
    dfa = lt2()
    sampler = WordSampler.build(dfa, 30)
    rng = np.random.default_rng(2)
    found = 0
    for w in sampler.sample(12, 40, rng):
        h = hard_negative(dfa, w, rng)
        if h is None:  # e.g. two occurrences of ab: no single edit leaves the language
            assert all(accepts(dfa, v) for v in neighbours(tuple(w.tolist()), 3))
            continue
        found += 1
        assert not dfa.accepts_codes(h).all()
        assert distance_to_language(dfa, h) == 1
        assert tuple(h.tolist()) in neighbours(tuple(w.tolist()), 3)
    assert found > 10
    only_replace = hard_negative(dfa, np.array([0, 1]), rng, ops=("replace",))
    assert only_replace is not None and only_replace.size == 2
    everything = DFA(Alphabet(("a",)), [[0]], [True])
    assert hard_negative(everything, np.array([0, 0]), rng) is None


def test_vectorized_script_application_matches_list_edits() -> None:
    from expressivity.data.perturbed import _apply_scripts, _draw_scripts

    rng = np.random.default_rng(8)
    ok = np.ones(30, dtype=bool)
    scripts = _draw_scripts(rng, 400, 0.4, 12, 3, ok)
    words = rng.integers(0, 3, size=(scripts.sources.size, 40))
    got = _apply_scripts(words, scripts, 3)[:, :12]
    j = 0
    for b, (src, count) in enumerate(zip(scripts.sources, scripts.counts, strict=True)):
        word = words[b, :src].tolist()
        for _ in range(count):
            op, pos, sym = int(scripts.ops[j]), int(scripts.pos[j]), int(scripts.sym[j])
            if op == 0:
                word.insert(pos, sym)
            elif op == 1:
                word[pos] = (word[pos] + sym) % 3
            else:
                del word[pos]
            j += 1
        assert word == got[b].tolist()
