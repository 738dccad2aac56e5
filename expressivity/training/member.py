"""A member of a training drive: its prepared run, state, seeded batch stream, record builder.

A single run is a drive of one member; an ensemble drives one member per run. Everything a
member computes depends on its own run alone: its batch of step t comes from its own seed
(`training.batching`), its learning rate from its own schedule, and its `RunRecord` from its
own predictions, so a member's metrics do not depend on its companions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from expressivity.models.tokens import encode_batch
from expressivity.training import evaluate as ev
from expressivity.training.batching import train_batch
from expressivity.training.optim import learning_rate
from expressivity.training.prepare import Prepared, derived_seed
from expressivity.training.spec import AdversarialMetric, LengthMetric, RunRecord
from expressivity.training.state import SEED_BATCHES, RunState

__all__ = ["VALIDATION", "Member", "TrainBatch", "record_from_predictions"]

#: The splits a validation predicts.
VALIDATION = ("val_short", "val_long")


@dataclass(frozen=True, eq=False)
class TrainBatch:
    """One member's training batch of one step: words, float targets and its encoding."""

    words: list[np.ndarray]
    target: torch.Tensor  # (B,) float32 labels
    tokens: torch.Tensor  # (B, T) token ids (`models.tokens.encode_batch`)
    lengths: torch.Tensor  # (B,) word lengths

    @property
    def n_tokens(self) -> int:
        """Real tokens of the batch: BOS + word + EOS per row."""
        return int(self.lengths.sum()) + 2 * len(self.words)


@dataclass(eq=False)
class Member:
    """One run of a drive; ``index`` is its position in the caller's list of runs."""

    index: int
    run: Prepared
    state: RunState = field(default_factory=RunState)

    @property
    def steps(self) -> int:
        """The step budget."""
        return self.run.spec.train.steps

    def batch(self, step: int) -> TrainBatch:
        """The batch of ``step``: a function of the run's seed and the step alone."""
        data = self.run.splits["train"]
        seed = derived_seed(self.run.spec.seed, SEED_BATCHES)
        words, labels = data.batch(train_batch(self.run.spec.train, seed, step, data.lengths))
        tokens, lengths = encode_batch(words, len(self.run.source.alphabet))
        return TrainBatch(words, torch.from_numpy(labels.astype(np.float32)), tokens, lengths)

    def learning_rate(self, step: int) -> float:
        """The learning rate of 0-based ``step`` (the run's schedule)."""
        return learning_rate(self.run.spec.train, step)

    def validation_due(self) -> bool:
        """Whether a validation follows the step just taken."""
        step = self.state.step
        return step % self.run.spec.train.eval_every == 0 or step == self.steps

    def accuracy(self, split: str, pred: np.ndarray | None) -> float:
        """Validation accuracy on ``split`` (1.0 for a missing or empty split)."""
        if pred is None or split not in self.run.splits or not len(self.run.splits[split]):
            return 1.0
        return float((pred == self.run.splits[split].labels).mean())

    def split_words(self, split: str) -> list[np.ndarray]:
        """Every word of ``split``, in order."""
        ds = self.run.splits[split]
        return ds.batch(np.arange(len(ds)))[0]


def record_from_predictions(
    run: Prepared, predictions: dict[str, np.ndarray], n_parameters: int, state: RunState,
    path: Path | None, device: torch.device, started: float, before: float,
    eval_seconds: float,
) -> RunRecord:
    """The `RunRecord` of a finished run from its predictions on every split."""
    results: dict[str, tuple[Any, np.ndarray, np.ndarray]] = {}
    for name in run.splits:
        ds = run.splits[name]
        results[name] = (ds, ds.labels, predictions[name])
    lengths: tuple[LengthMetric, ...] = ()
    adversarial: tuple[AdversarialMetric, ...] = ()
    if "test" in results:
        ds, labels, pred = results["test"]
        lengths = ev.length_metrics(ds.lengths, labels, pred)
    if "adversarial" in results:
        ds, labels, pred = results["adversarial"]
        adversarial = ev.adversarial_metrics(ev.adversarial_family(ds), labels, pred)
    short = {}
    if "short" in results:
        ds, labels, pred = results["short"]
        short = {"short_words": ev.short_word_metric(
            ds, labels, pred, run.split_config.short_max_length).to_dict()}
    acc = {name: float((p == y).mean()) if len(y) else float("nan")
           for name, (_, y, p) in results.items()}
    val = [results[n] for n in VALIDATION if n in results]
    n_val = sum(len(y) for _, y, _ in val)
    extra = {
        "language": run.source.name,
        "dataset_hash": run.dataset_hash,
        "stopped_early": state.stopped_early,
        "plateaued": state.plateaued,
        "accuracy": acc,
        "mean_length_accuracy": ev.mean_length_accuracy(lengths),
        "data_seconds": run.data_seconds,
        "train_seconds": state.train_seconds,
        "eval_seconds": eval_seconds,
        "device": str(device),
        "dtype": run.model_config.dtype,  # the numeric mode of parameters and activations
        "model": run.model_config.to_dict(),
        "data": run.resolved_config()["data"],
        "notes": {k: list(v) for k, v in run.splits.notes.items()},
        "class_balance": {name: {"members": int(np.count_nonzero(y)),
                                 "non_members": len(y) - int(np.count_nonzero(y))}
                          for name, (_, y, _) in results.items()},
        "history": state.history,
        **short,
    }
    return RunRecord(
        run_id=run.spec.run_id, spec=run.spec, status="completed",
        lengths=lengths, adversarial=adversarial,
        train_accuracy=acc.get("train", float("nan")),
        val_accuracy=sum(int((p == y).sum()) for _, y, p in val) / n_val if n_val else float("nan"),
        steps=state.step, wall_time=time.perf_counter() - started + before,
        n_parameters=n_parameters,
        tokens_per_second=state.tokens / state.train_seconds if state.train_seconds else 0.0,
        checkpoint=str(path) if path is not None else "",
        max_train_length=run.max_train_length, extra=extra,
    )
