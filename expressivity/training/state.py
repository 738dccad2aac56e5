"""A run's resumable training state, its stopping rules, seeds, failures and compute threads.

Written once for every way of training (`training.driver`): a single run, and each member of
an ensemble, keeps one `RunState`; `note_validation` applies the stopping rules to it;
`loss_failure` / `norm_error` word a failed step alike; `compute_threads` fixes the intra-op
threads around training and evaluation.

Threads: on a CPU the model runs on ONE intra-op thread (`COMPUTE_THREADS`), whatever
``train.threads`` says. torch's CPU kernels split some sums by thread count (the LayerNorm gain
and bias gradients, attention backward, one-query flash attention), so with more threads the
weights, and after a few hundred steps the metrics, depend on the thread count: a sweep (which
sets threads = cores // jobs) would store different results for one run id under different
``--jobs``. Parallelism comes from running several runs at once (``--jobs``) instead.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch

from expressivity.training.optim import learning_rate
from expressivity.training.prepare import Prepared
from expressivity.training.stopping import (
    Plateau,
    after_validation,
    counts_for_patience,
    perfect_validation,
)
from expressivity.training.train_config import TrainConfig

__all__ = [
    "COMPUTE_THREADS", "DIVERGENCE_LOSS", "SEED_BATCHES", "SEED_DROPOUT", "SEED_INIT", "RunState",
    "compute_threads", "loss_error", "loss_failure", "max_grad_norm", "norm_error",
    "note_validation",
]

log = logging.getLogger("expressivity.training.loop")

#: A mean training loss above this counts as divergence (chance level is ln 2 ≈ 0.69).
DIVERGENCE_LOSS = 1e4
#: Intra-op threads of every run's training and evaluation (see the module docstring).
COMPUTE_THREADS = 1
#: Purposes of `prepare.derived_seed`: the initial weights, the batch stream, dropout.
SEED_INIT, SEED_BATCHES, SEED_DROPOUT = 1, 2, 3


@contextlib.contextmanager
def compute_threads(threads: int = COMPUTE_THREADS) -> Iterator[None]:
    """Run the block on ``threads`` intra-op threads; the caller's setting is restored after."""
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(threads)
        yield
    finally:
        torch.set_num_threads(before)


@dataclass
class RunState:
    """A run's own resumable training state (stored as JSON in checkpoints)."""

    step: int = 0
    streak: int = 0  # consecutive perfect validations
    best: float = -1.0  # best mean validation accuracy so far (plateau rule)
    stale: int = 0  # consecutive validations without raising ``best`` by plateau_delta
    best_loss: float = math.inf  # lowest mean training loss between validations (plateau rule)
    plateaued: bool = False  # stopped by the plateau rule
    done: bool = False
    stopped_early: bool = False
    loss_sum: float = 0.0  # since the last validation
    loss_count: int = 0
    batch_accuracy: float = float("nan")  # of the latest training batch
    tokens: int = 0  # real tokens (BOS + word + EOS) trained on
    train_seconds: float = 0.0
    history: list[dict[str, float]] = field(default_factory=list)

    def took_step(self, accuracy: float, loss: float, tokens: int, seconds: float) -> None:
        """Count one optimisation step with its batch accuracy, loss, tokens and time."""
        self.step += 1
        self.batch_accuracy = accuracy
        self.loss_sum += loss
        self.loss_count += 1
        self.tokens += tokens
        self.train_seconds += seconds


def max_grad_norm(cfg: TrainConfig) -> float:
    """The clipping threshold of a run: ``grad_clip``, or no clipping (inf) when it is 0."""
    return cfg.grad_clip if cfg.grad_clip > 0 else math.inf


def loss_failure(value: float) -> bool:
    """Whether a step's loss fails the run: non-finite, or above `DIVERGENCE_LOSS`."""
    return not math.isfinite(value) or value > DIVERGENCE_LOSS


def loss_error(value: float, step: int, lr: float) -> str:
    """The failure message of a loss at 0-based ``step`` (single runs and ensemble members)."""
    kind = "non-finite" if not math.isfinite(value) else "diverging"
    return f"{kind} loss {value} at step {step + 1} (lr={lr:g}); lower the learning rate"


def norm_error(step: int, lr: float) -> str:
    """The failure message of a non-finite gradient norm at 0-based ``step``."""
    return f"non-finite gradient norm at step {step + 1} (lr={lr:g})"


def note_validation(run: Prepared, state: RunState, accs: dict[str, float]) -> None:
    """Record one validation (``accs`` of val_short and val_long) and apply the stopping rules:
    ``patience`` consecutive perfect validations after ``patience_start``, or ``plateau``
    consecutive stale validations (`training.stopping`: by ``plateau_rule``)."""
    cfg = run.spec.train
    perfect = perfect_validation({"batch_accuracy": state.batch_accuracy, **accs})
    state.streak = (state.streak + 1 if counts_for_patience(cfg, state.step, perfect=perfect)
                    else 0)
    mean = sum(accs.values()) / len(accs)
    loss = state.loss_sum / max(state.loss_count, 1)
    after = after_validation(cfg, Plateau(state.best, state.best_loss, state.stale), mean, loss,
                             perfect=perfect)
    state.best, state.best_loss, state.stale = after.best, after.best_loss, after.stale
    state.history.append({"step": state.step, "loss": loss, "batch_accuracy": state.batch_accuracy,
                          **accs, "lr": learning_rate(cfg, state.step - 1)})
    state.loss_sum, state.loss_count = 0.0, 0
    log.info("step %d: loss %.4g, batch acc %.3f, val short %.4f, long %.4f", state.step, loss,
             state.batch_accuracy, accs["val_short"], accs["val_long"])
    if cfg.patience and state.streak >= cfg.patience:
        state.done = state.stopped_early = True
    elif cfg.plateau and state.stale >= cfg.plateau:
        state.done = state.plateaued = True
        log.info("step %d: no validation gain of %g in %d validations; stopping", state.step,
                 cfg.plateau_delta, cfg.plateau)
