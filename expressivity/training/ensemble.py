"""Ensemble training: `train_ensemble(specs) -> [RunRecord]`, many runs of one shape at once.

The runs become the members of one `EnsembleRecognizer` and take their optimisation steps
together, while each keeps everything its single run (`training.loop.train`) has: its data
splits and batch stream (the batches of step t come from its own seed), its learning rate,
schedule, weight decay, step budget, gradient clipping and AdamW state (`StackedAdamW`), its
validations and early stopping, and its failure: a non-finite or diverging loss or gradient
marks that member failed (same message as a single run) and the others continue as if it had
never been there. Members that stop (budget, patience or failure) leave the ensemble at once
(it is compacted), so the rest of a row does not pay for them. On a GPU a step is one batched
forward and backward of the `EnsembleRecognizer`, and evaluation is batched over the members
that finish together; on a CPU each member takes its single run's step and evaluation on its
own `Recognizer`, so its weights and metrics are bitwise those of `train` (`ensemble_step`).
Each member yields the `RunRecord` its single run would (same ``run_id``; ``wall_time`` is its
share of the ensemble's time; ``extra["ensemble"]`` names the ensemble).

Checkpoints: with ``out_dir`` a finished member writes the single-run checkpoint
``<run_id>.pt`` (weights, AdamW state, loop state; `train` resumes or re-evaluates it), and the
ensemble writes ``ensemble-<hash>.pt`` (its active members, every ``checkpoint_every`` steps,
at the end and on Ctrl-C). A resumed ensemble continues exactly as the uninterrupted one.
An ensemble of one is the single run: ``train_ensemble([spec])`` is ``[train(spec)]``.

The loop is the one of `training.driver` (as for a single run); `EnsembleStepper`
(`training.ensemble_stepper`) is its stepper: how the members' steps, predictions, records
and checkpoints are made.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence

from expressivity.config import stable_hash
from expressivity.errors import ConfigError
from expressivity.models.ensemble import check_compatible
from expressivity.training.ensemble_checkpoint import ensemble_checkpoint_path
from expressivity.training.ensemble_stepper import EnsembleStepper
from expressivity.training.loop import train
from expressivity.training.prepare import check_spec
from expressivity.training.spec import RunRecord, RunSpec
from expressivity.training.state import compute_threads

__all__ = ["EnsembleStepper", "ensemble_checkpoint_path", "ensemble_key", "train_ensemble"]


def ensemble_key(spec: RunSpec) -> str:
    """Runs with equal keys can share an ensemble: same alphabet size, model shape (the
    profile's `ModelConfig` apart from the layout), batch size, device and checkpointing."""
    _, model, _ = check_spec(spec)
    shape = {k: v for k, v in model.to_dict().items() if k not in ("layout", "mask_seed")}
    t = spec.train
    return stable_hash({"alphabet": _alphabet_size(spec.language, spec.alphabet),
                        "model": shape, "batch": t.batch_size, "device": t.device,
                        "checkpoint_every": t.checkpoint_every})


@functools.lru_cache(maxsize=256)
def _alphabet_size(language: str, alphabet: str | None) -> int | str:
    """The language's alphabet size; its text when it does not resolve (it then runs alone)."""
    from expressivity.errors import ExpressivityError
    from expressivity.resolve import resolve

    try:
        return len(resolve(language, alphabet).alphabet)
    except ExpressivityError:
        return f"unresolved:{language}:{alphabet}"


def train_ensemble(
    specs: Sequence[RunSpec],
    *,
    out_dir: str | os.PathLike[str] | None = None,
    quiet: bool = False,
    resume: bool = True,
    on_step: Callable[[int], None] | None = None,
    batched: bool | None = None,
) -> list[RunRecord]:
    """Train ``specs`` as one ensemble; their records in the order of ``specs``.

    Raises `ConfigError` naming the field when the specs cannot share an ensemble (model
    shape, alphabet, batch size, device, threads); every other failure becomes a ``failed``
    record of the members it concerns. ``on_step(step)`` and Ctrl-C behave as in `train`.
    ``batched``: one forward and backward for all members (the default on a GPU), or each
    member's own, bitwise its single run (the default on a CPU).
    """
    specs = list(specs)
    if len(specs) == 1:
        return [train(specs[0], out_dir=out_dir, quiet=quiet, resume=resume, on_step=on_step)]
    _check_specs(specs)
    with compute_threads():  # as `train`: metrics independent of threads
        ensemble = EnsembleStepper(specs, out_dir, quiet, resume)
        if batched is not None:
            ensemble.batched = batched
        return ensemble.run(on_step)


def _check_specs(specs: Sequence[RunSpec]) -> None:
    check_compatible([check_spec(s)[1] for s in specs])
    for name in ("batch_size", "device", "threads", "checkpoint_every"):
        values = [getattr(s.train, name) for s in specs]
        if any(v != values[0] for v in values):
            i = next(i for i, v in enumerate(values) if v != values[0])
            raise ConfigError(f"train.{name}: ensemble members must share it, but member 0 has "
                              f"{values[0]!r} and member {i} has {values[i]!r}")
