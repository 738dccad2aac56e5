"""The plateau rule: when a validation is progress, and what the rule keeps between validations.

One home for training (`training.state.note_validation` applies it after every validation)
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
from dataclasses import dataclass

from expressivity.training.train_config import TrainConfig

__all__ = ["Plateau", "after_validation", "progressed"]


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
