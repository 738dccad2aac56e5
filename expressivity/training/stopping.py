"""The stopping rules: patience (perfect validations) and the plateau rule (stale ones).

A validation is *perfect* when the last training batch and every validation split are all
right (`perfect_validation`). A run stops after ``patience`` consecutive perfect validations
made after step ``patience_start`` (`counts_for_patience`; `patience_stop` replays the rule on
a stored history, as `benchmarks/patience.py` does to price it). The plateau rule has one home
here too, for training (`training.state.note_validation` applies it after every validation)
and for the analysis that replays it on stored histories (`analysis.plateau`). A run stops
after ``plateau`` consecutive stale validations; a validation is stale unless it is perfect or
`progressed` says it made progress, by ``plateau_rule``:

- "gain" (the original rule): the mean validation accuracy rose by ``plateau_delta`` over the
  best so far;
- "improving": any rise of the accuracy, or a mean training loss below
  ``(1 − plateau_delta)`` × the lowest so far (a run whose loss still falls is not stopped).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from expressivity.training.train_config import TrainConfig

__all__ = ["Plateau", "after_validation", "counts_for_patience", "patience_stop",
           "perfect_validation", "progressed"]


@dataclass(frozen=True)
class Plateau:
    """What the plateau rule keeps after some validations."""

    best: float = -1.0  # best mean validation accuracy so far
    best_loss: float = math.inf  # lowest mean training loss between validations so far
    stale: int = 0  # consecutive stale validations


def progressed(cfg: TrainConfig, best: float, best_loss: float, mean: float, loss: float
               ) -> bool:
    """Whether a validation with mean accuracy ``mean`` and mean training loss ``loss`` made
    progress over the best so far: "gain" asks ``mean >= best + plateau_delta``; "improving"
    any gain in accuracy, or a loss below ``(1 - plateau_delta) * best_loss``."""
    if cfg.plateau_rule == "gain":
        return mean >= best + cfg.plateau_delta
    return mean > best or loss < (1.0 - cfg.plateau_delta) * best_loss


def after_validation(cfg: TrainConfig, before: Plateau, mean: float, loss: float, *,
                     perfect: bool) -> Plateau:
    """The rule's state after one more validation (``perfect``: every accuracy is 1, never
    stale); the run stops once ``stale >= cfg.plateau`` (when ``cfg.plateau`` is set)."""
    fresh = perfect or progressed(cfg, before.best, before.best_loss, mean, loss)
    return Plateau(max(before.best, mean), min(before.best_loss, loss),
                   0 if fresh else before.stale + 1)


def perfect_validation(entry: Mapping[str, float]) -> bool:
    """Whether a validation (a history entry: ``batch_accuracy`` and the ``val_*`` accuracies)
    is perfect: the last training batch and every validation split all right."""
    return float(entry.get("batch_accuracy", 0.0)) == 1.0 and all(
        float(value) == 1.0 for name, value in entry.items() if name.startswith("val_"))


def counts_for_patience(cfg: TrainConfig, step: int, *, perfect: bool) -> bool:
    """Whether a validation at ``step`` extends the patience streak: it is perfect and made
    after ``cfg.patience_start`` (any other validation ends the streak)."""
    return perfect and step > cfg.patience_start


def patience_stop(cfg: TrainConfig, history: Iterable[Mapping[str, float]]) -> int | None:
    """The step at which the patience rule of ``cfg`` stops a run whose validations are
    ``history`` (in order), or None if it never does (``patience`` 0, or no streak that long).

    Under a constant learning rate nothing else depends on the rule, so a run stopped at this
    step is the prefix of the run that was not stopped; its cost is priced from its history."""
    streak = 0
    for entry in history:
        step = int(entry["step"])
        streak = streak + 1 if counts_for_patience(cfg, step,
                                                   perfect=perfect_validation(entry)) else 0
        if cfg.patience and streak >= cfg.patience:
            return step
    return None
