"""The training samplers: pure functions of the seed, same epochs, little padding when bucketed."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.errors import ConfigError
from expressivity.training import RunSpec
from expressivity.training.batching import POOL_BATCHES, bucketed_indices, train_batch
from expressivity.training.optim import batch_indices
from expressivity.training.spec import TrainConfig


def _lengths(seed: int, n: int, top: int = 40) -> np.ndarray:
    return np.random.default_rng(seed).integers(1, top + 1, size=n)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(5, 300), b=st.integers(1, 9),
       width=st.integers(1, 12), pool=st.integers(0, 3))
def test_a_pool_holds_exactly_the_uniform_sampler_examples(
    seed: int, n: int, b: int, width: int, pool: int
) -> None:
    lengths = _lengths(seed % 1000, n)
    steps = range(pool * POOL_BATCHES, (pool + 1) * POOL_BATCHES)
    bucketed = np.concatenate([bucketed_indices(seed, s, b, lengths, width) for s in steps])
    uniform = np.concatenate([batch_indices(seed, s, b, n) for s in steps])
    assert sorted(bucketed.tolist()) == sorted(uniform.tolist())
    # the batches are consecutive runs of the pool sorted by bucket: intervals of buckets
    spans = sorted((int(lengths[x].min() // width), int(lengths[x].max() // width))
                   for x in (bucketed_indices(seed, s, b, lengths, width) for s in steps))
    assert all(hi <= lo2 for (_, hi), (lo2, _) in itertools.pairwise(spans))


def test_batches_are_a_pure_function_of_seed_and_step() -> None:
    lengths = _lengths(0, 2000)
    a = [bucketed_indices(3, s, 64, lengths, 8) for s in range(40)]
    b = [bucketed_indices(3, s, 64, lengths, 8) for s in reversed(range(40))][::-1]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    other = [bucketed_indices(4, s, 64, lengths, 8) for s in range(40)]
    assert not all(np.array_equal(x, y) for x, y in zip(a, other, strict=True))
    assert all(len(x) == 64 for x in a)


def test_bucketed_batches_pad_less_and_mix_labels() -> None:
    lengths = _lengths(1, 2000)
    labels = np.random.default_rng(2).random(2000) < 0.5
    steps = range(4 * POOL_BATCHES)

    def padding(batches: list[np.ndarray]) -> float:
        real = sum(int((lengths[x] + 2).sum()) for x in batches)
        total = sum(int((lengths[x].max() + 2) * len(x)) for x in batches)
        return 1 - real / total

    bucketed = [bucketed_indices(0, s, 64, lengths, 8) for s in steps]
    uniform = [batch_indices(0, s, 64, 2000) for s in steps]
    assert padding(bucketed) < 0.5 * padding(uniform)
    # a batch is a random draw inside its bucket(s): both labels in every batch
    assert all(0 < labels[x].sum() < len(x) for x in bucketed)
    # several lengths per batch (so parity-of-length languages see both labels)
    assert all(len(np.unique(lengths[x])) > 1 for x in bucketed)


def test_train_batch_follows_the_config() -> None:
    lengths = _lengths(5, 500)
    uniform = TrainConfig(batching="uniform", batch_size=16)
    bucketed = TrainConfig(batching="bucketed", batch_size=16, bucket_width=4)
    assert np.array_equal(train_batch(uniform, 9, 7, lengths), batch_indices(9, 7, 16, 500))
    assert np.array_equal(train_batch(bucketed, 9, 7, lengths),
                          bucketed_indices(9, 7, 16, lengths, 4))


def test_batching_is_validated_and_part_of_the_run_id() -> None:
    with pytest.raises(ConfigError, match="batching"):
        TrainConfig(batching="sorted")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="bucket_width"):
        TrainConfig(bucket_width=0)
    uniform = RunSpec("SUFFIX-a", profile="tiny")
    assert uniform.train.batching == "uniform"  # the default: the former runs' batches
    spec = uniform.with_train(batching="bucketed")
    assert len({spec.run_id, uniform.run_id, spec.with_train(bucket_width=4).run_id}) == 3
    # the uniform sampler's runs keep the ids they had before the field existed
    assert uniform.with_train(bucket_width=4).run_id == uniform.run_id
