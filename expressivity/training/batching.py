"""The training batches of a run: uniform draws, or length-bucketed draws with little padding.

Both samplers read one endless stream: epoch ``e`` is the permutation of the training set drawn
from ``(seed, e)`` (`optim.batch_indices`), so each example is seen once per epoch and the
batches of a run are a pure function of its seed, its step and its training lengths.

``uniform`` (the default) cuts the stream into consecutive batches of ``B`` (strings of every
length share a batch, padded to the longest: on the quick profile 47 % of the tokens are
padding).

``bucketed`` cuts the stream into *pools* of ``POOL_BATCHES`` batches (``POOL_BATCHES * B``
consecutive stream positions), sorts each pool stably by the bucket ``length // width``, cuts
it into ``POOL_BATCHES`` batches of ``B`` and takes them in the order of a permutation drawn
from ``(seed, pool)``. A pool holds exactly the examples the uniform sampler would give its
steps (same multiset, so the same epochs), each batch holds lengths from about one bucket, and
the stable sort keeps the stream's random order inside a bucket, so a batch is a random draw
from its bucket: members and non-members of every length in it mix as in the training set.
The bucket width (not exact lengths) keeps several lengths in a batch, so languages whose
label depends on the length's parity (``(aa)*``) still see both labels in every batch.
"""

from __future__ import annotations

import numpy as np

from expressivity.training.optim import batch_indices
from expressivity.training.train_config import TrainConfig

__all__ = ["POOL_BATCHES", "bucketed_indices", "train_batch"]

#: Batches per pool of the bucketed sampler (sorted together; their order drawn per pool).
POOL_BATCHES = 16
_ORDER = 0x5EED_B0C5  # purpose tag of the pool-order permutation (distinct from epoch draws)


def bucketed_indices(
    seed: int, step: int, batch_size: int, lengths: np.ndarray, width: int
) -> np.ndarray:
    """Training examples of step ``step`` under the bucketed sampler (module docstring)."""
    pool, slot = divmod(step, POOL_BATCHES)
    members = batch_indices(seed, pool, POOL_BATCHES * batch_size, len(lengths))  # the pool
    order = np.argsort(np.asarray(lengths)[members] // width, kind="stable")
    batches = members[order].reshape(POOL_BATCHES, batch_size)
    which = np.random.default_rng([seed, _ORDER, pool]).permutation(POOL_BATCHES)[slot]
    return batches[which].copy()


def train_batch(cfg: TrainConfig, seed: int, step: int, lengths: np.ndarray) -> np.ndarray:
    """The training examples of step ``step`` of a run with batch seed ``seed`` (``lengths``:
    the word lengths of its training set), by ``cfg.batching``; single runs and every
    ensemble member call this, so a member's batches are its single run's."""
    if cfg.batching == "uniform":
        return batch_indices(seed, step, cfg.batch_size, len(lengths))
    return bucketed_indices(seed, step, cfg.batch_size, lengths, cfg.bucket_width)
