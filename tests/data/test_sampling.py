"""Exact uniform sampling: chi-square uniformity, exact marginals, determinism, clear errors."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.automata.counting import codes_of_length, completion_table
from expressivity.data.sampling import (
    WordSampler,
    _resolve,
    exact_choice,
    length_weights,
    sample_distinct,
    sample_lengths,
)
from expressivity.errors import SamplingError
from tests.data.helpers import dyck11, last_a, lt2, random_dfas


def chi2_critical(df: int, z: float = 3.0902) -> float:
    """Wilson–Hilferty upper quantile of χ²(df); z = 3.0902 is the α = 0.001 normal quantile."""
    c = 2 / (9 * df)
    return df * (1 - c + z * c**0.5) ** 3


def chi2(observed: np.ndarray, expected: np.ndarray) -> float:
    return float(((observed - expected) ** 2 / expected).sum())


def test_chi_square_uniform_over_an_enumerable_language() -> None:
    dfa = lt2()
    members = codes_of_length(dfa, 6)  # 729 words, of which the members of Σ*abΣ*
    sampler = WordSampler.build(dfa, 6)
    draws = sampler.sample(6, 40 * members.shape[0], np.random.default_rng(11))
    assert dfa.accepts_codes(draws).all()
    index = {row.tobytes(): i for i, row in enumerate(members.astype(draws.dtype))}
    observed = np.bincount([index[row.tobytes()] for row in draws], minlength=len(index))
    assert (observed > 0).all()  # every member is reachable
    stat = chi2(observed, np.full(len(index), draws.shape[0] / len(index)))
    assert stat < chi2_critical(len(index) - 1)


def test_exact_marginals_when_counts_exceed_int64() -> None:
    dfa = lt2()
    n = 60  # 3^60 > 2^63: thresholds come from exact big-integer counts
    table = completion_table(dfa, n)
    sampler = WordSampler.build(dfa, n)
    draws = sampler.sample(n, 20_000, np.random.default_rng(5))
    assert dfa.accepts_codes(draws).all()
    pairs = Counter(zip(draws[:, 0].tolist(), draws[:, 1].tolist(), strict=True))
    total = table[n, dfa.initial]
    expected, observed = [], []
    for a in range(3):
        for b in range(3):
            q = dfa.transitions[dfa.transitions[dfa.initial, a], b]
            expected.append(float(Fraction(table[n - 2, q], total)) * draws.shape[0])
            observed.append(pairs[(a, b)])
    assert chi2(np.array(observed), np.array(expected)) < chi2_critical(8)


def test_mixed_lengths_rows_are_members_of_their_length() -> None:
    dfa = last_a()
    sampler = WordSampler.build(dfa, 50)
    lengths = np.random.default_rng(0).integers(1, 51, size=300)
    out = sampler.sample_mixed(lengths, np.random.default_rng(1))
    assert out.shape == (300, lengths.max())
    assert dfa.accepts_codes(out, lengths).all()
    for row, n in zip(out, lengths, strict=True):
        assert (row[n:] == 0).all()


@settings(max_examples=25)
@given(random_dfas(), st.integers(0, 8), st.integers(0, 2**32))
def test_samples_are_members_and_deterministic(dfa, length, seed) -> None:  # type: ignore[no-untyped-def]
    sampler = WordSampler.build(dfa, 8)
    if sampler.count(length) == 0:
        with pytest.raises(SamplingError, match="no word of length"):
            sampler.sample(length, 3, np.random.default_rng(seed))
        return
    a = sampler.sample(length, 50, np.random.default_rng(seed))
    b = sampler.sample(length, 50, np.random.default_rng(seed))
    assert np.array_equal(a, b)
    assert a.shape == (50, length)
    assert dfa.accepts_codes(a).all()


def test_boundary_straddling_draws_are_resolved_exactly() -> None:
    # weights (1, 2): the boundary 1/3 lies inside the 53-bit interval u = floor(2^53 / 3),
    # two thirds of that interval lies below it (2^53 ≡ 2 mod 3), so P(choice 0 | u) = 2/3.
    u = (1 << 53) // 3
    rng = np.random.default_rng(0)
    picks = [_resolve([1, 2], u, rng) for _ in range(3000)]
    share = picks.count(0) / len(picks)
    assert abs(share - 2 / 3) < 0.04
    assert _resolve([1, 2], u - 1, rng) == 0 and _resolve([1, 2], u + 1, rng) == 1


def test_exact_choice_with_huge_weights() -> None:
    weights = [2**300, 0, 2**300 + 1, 7]
    picks = exact_choice(weights, 20_000, np.random.default_rng(2))
    counts = np.bincount(picks, minlength=4)
    assert counts[1] == 0 and counts[3] == 0
    assert abs(counts[0] / 20_000 - 0.5) < 0.02
    with pytest.raises(SamplingError):
        exact_choice([0, 0], 3, np.random.default_rng(0))


def test_length_distributions() -> None:
    dfa = dyck11()  # members only at even lengths, one each
    sampler = WordSampler.build(dfa, 10)
    lengths = list(range(11))
    assert length_weights(sampler, lengths, "flare") == [1, 0] * 5 + [1]
    assert length_weights(sampler, lengths, "uniform") == [1] * 11
    picks = sample_lengths(sampler, lengths, 6000, np.random.default_rng(3), "flare")
    assert set(picks.tolist()) == {0, 2, 4, 6, 8, 10}
    observed = np.bincount(picks, minlength=11)[::2]
    assert chi2(observed, np.full(6, 1000.0)) < chi2_critical(5)
    big = WordSampler.build(lt2(), 8)
    members = sample_lengths(big, range(9), 8000, np.random.default_rng(4), "members")
    weights = np.array(length_weights(big, range(9), "members"), dtype=float)
    expected = weights / weights.sum() * 8000
    keep = expected > 0
    assert chi2(np.bincount(members, minlength=9)[keep], expected[keep]) < chi2_critical(
        int(keep.sum()) - 1
    )
    with pytest.raises(SamplingError, match="unknown length distribution"):
        length_weights(sampler, lengths, "zipf")  # type: ignore[arg-type]
    with pytest.raises(SamplingError, match="no member"):
        sample_lengths(sampler, [1, 3], 2, np.random.default_rng(0))


def test_distinct_sampling_exclusion_and_shortfall() -> None:
    dfa = last_a()
    sampler = WordSampler.build(dfa, 12)
    rng = np.random.default_rng(9)
    all3 = codes_of_length(dfa, 3).astype(np.int8)  # 9 members of length 3
    exclude = {all3[0].tobytes(), all3[1].tobytes()}
    got = sample_distinct(sampler, 3, 7, rng, exclude)
    keys = {row.tobytes() for row in got}
    assert len(keys) == 7 and not keys & exclude
    with pytest.raises(SamplingError, match="only 7 are available"):
        sample_distinct(sampler, 3, 8, rng, exclude)
    assert sample_distinct(sampler, 3, 8, rng, exclude, shortfall="truncate").shape == (7, 3)
    repeated = sample_distinct(sampler, 3, 12, rng, exclude, shortfall="repeat")
    assert repeated.shape == (12, 3) and len({r.tobytes() for r in repeated}) == 7
    large = sample_distinct(sampler, 12, 500, rng)  # 3^11 members: the rejection path
    assert len({r.tobytes() for r in large}) == 500 and dfa.accepts_codes(large).all()
    with pytest.raises(SamplingError, match="no word of length"):
        sample_distinct(WordSampler.build(dyck11(), 5), 3, 1, rng)
    with pytest.raises(SamplingError, match="outside this sampler's range"):
        sampler.sample(13, 1, rng)
