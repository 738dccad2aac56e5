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

The loop is the one of `training.driver` (as for a single run); `EnsembleStepper` is its
stepper here: how the members' steps, predictions, records and checkpoints are made.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from expressivity.checkpoint import checkpoint_path, load_checkpoint
from expressivity.config import stable_hash
from expressivity.errors import ConfigError, TrainingError
from expressivity.models.ensemble import EnsembleRecognizer, check_compatible
from expressivity.models.transformer import Recognizer
from expressivity.training.driver import drive
from expressivity.training.ensemble_checkpoint import (
    ensemble_checkpoint_path,
    restore_ensemble,
    save_ensemble,
    save_member,
)
from expressivity.training.ensemble_eval import predict_members
from expressivity.training.ensemble_optim import StackedAdamW
from expressivity.training.ensemble_step import batched_gradients, member_gradients
from expressivity.training.evaluate import predict
from expressivity.training.loop import train
from expressivity.training.member import Member, record_from_predictions
from expressivity.training.prepare import Prepared, check_spec, derived_seed, prepare
from expressivity.training.spec import RunRecord, RunSpec
from expressivity.training.state import SEED_INIT, RunState, compute_threads

__all__ = ["EnsembleStepper", "ensemble_checkpoint_path", "ensemble_key", "train_ensemble"]

log = logging.getLogger(__name__)


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


class EnsembleStepper:
    """One ensemble's training, the `training.driver.Stepper` of its members: members by
    index into ``specs``; ``active`` in member order."""

    def __init__(self, specs: list[RunSpec], out_dir: str | os.PathLike[str] | None,
                 quiet: bool, resume: bool) -> None:
        self.specs, self.quiet, self.resume = specs, quiet, resume
        self.out_dir = Path(out_dir) if out_dir is not None else None
        self.started = time.perf_counter()
        self.device = torch.device(specs[0].train.device)
        self.records: dict[int, RunRecord] = {}
        self.runs: dict[int, Prepared] = {}
        self.states = [RunState() for _ in specs]
        self.other = [0.0] * len(specs)  # evaluation seconds (shares) of each member
        self.path = ensemble_checkpoint_path(out_dir, specs) if out_dir is not None else None
        # one batched step on a GPU; member by member on a CPU (bitwise the single runs)
        self.batched = self.device.type != "cpu"
        self._templates: dict[int, Recognizer] = {}

    # ------------------------------------------------------------------ setup
    def run(self, on_step: Callable[[int], None] | None) -> list[RunRecord]:
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise TrainingError(f"device: {self.device} requested but CUDA is not available")
        cache = self.out_dir / "splits" if self.out_dir is not None else None
        for i, spec in enumerate(self.specs):
            single = checkpoint_path(self.out_dir, spec.run_id) if self.out_dir else None
            if single is not None and self.resume and single.exists():
                self.records[i] = train(spec, out_dir=self.out_dir, quiet=True)  # resumes alone
                continue
            try:
                self.runs[i] = prepare(spec, cache_dir=cache)
            except Exception as err:
                self._fail(i, err)
        sizes = {len(r.source.alphabet) for r in self.runs.values()}
        if len(sizes) > 1:
            raise ConfigError(f"alphabet: ensemble members need one alphabet size, got {sizes}")
        self.active = sorted(self.runs)
        if self.active:
            self._build()
            members = [Member(i, self.runs[i], self.states[i]) for i in self.active]
            try:
                drive(members, self, desc=f"ensemble of {len(self.active)}", quiet=self.quiet,
                      on_step=on_step)
            except KeyboardInterrupt:
                raise
            except Exception as err:  # a bug must not lose the other members' records
                for i in list(self.active):
                    self._fail(i, err)
        return [self.records[i] for i in range(len(self.specs))]

    def _build(self) -> None:
        runs = [self.runs[i] for i in self.active]
        self.model = EnsembleRecognizer(
            [r.model_config for r in runs], len(runs[0].source.alphabet),
            [derived_seed(r.spec.seed, SEED_INIT) for r in runs],
        ).to(self.device)
        stacked = list(self.model.stacked)
        self.opt = StackedAdamW(stacked, [p.dim() >= 3 for p in stacked])
        if self.path is not None and self.resume and self.path.exists():
            restore_ensemble(self, load_checkpoint(self.path))

    # ------------------------------------------------------------------ the stepper
    def gradients(self, members: Sequence[Member], step: int
                  ) -> tuple[list[tuple[float, float]] | dict[int, str], list[int]]:
        """Every active member's gradients of its batch of ``step`` (`ensemble_step`)."""
        runs = [m.run for m in members]
        batches = [m.batch(step) for m in members]
        encoded = [(b.tokens, b.lengths) for b in batches]
        targets = [b.target for b in batches]
        self.lrs = [m.learning_rate(step) for m in members]
        self.opt.zero_grad()
        if self.batched:
            outcome = batched_gradients(self.model, runs, encoded, targets, self.lrs, step,
                                        self.device)
        else:
            templates = [self._template(m.index) for m in members]
            outcome = member_gradients(self.model, templates, runs, encoded, targets, self.lrs,
                                       step, self.device)
        if isinstance(outcome, dict):
            return {members[j].index: error for j, error in outcome.items()}, []
        right, values = outcome
        return ([(float(right[j]), values[j]) for j in range(len(members))],
                [b.n_tokens for b in batches])

    def update(self, members: Sequence[Member], step: int) -> None:
        decay = [m.run.spec.train.weight_decay for m in members]
        self.opt.step(torch.tensor(self.lrs, dtype=torch.float64, device=self.device),
                      torch.tensor(decay, dtype=torch.float64, device=self.device))

    def predict(self, members: Sequence[Member], splits: Sequence[str]
                ) -> dict[int, dict[str, np.ndarray]]:
        return self._predict([m.index for m in members], splits)

    def fail(self, member: Member, error: str) -> None:
        self._fail(member.index, TrainingError(error))

    def finish(self, members: Sequence[Member]) -> None:
        self._finish([m.index for m in members])

    def leave(self, keep: Sequence[Member]) -> None:
        self._compact([m.index for m in keep])

    def checkpoint(self, members: Sequence[Member], step: int) -> None:
        if self.path is not None:
            save_ensemble(self)

    def interrupted(self, members: Sequence[Member]) -> None:
        if self.path is not None and members:
            save_ensemble(self)
            log.warning("interrupted at step %d; checkpoint %s", members[0].state.step,
                        self.path)

    def close(self, members: Sequence[Member]) -> None:
        if self.path is not None:
            save_ensemble(self)

    def _template(self, i: int) -> Recognizer:
        """Member ``i``'s `Recognizer` (its weights are replaced on every call)."""
        if i not in self._templates:
            self._templates[i] = Recognizer(self.runs[i].model_config,
                                            self.model.alphabet_size).to(self.device)
        return self._templates[i]

    # ------------------------------------------------------------------ members leave
    def _compact(self, keep: list[int]) -> None:
        positions = [self.active.index(i) for i in keep]
        self.active = keep
        if keep:
            self.model = self.model.select(positions)
            self.opt = self.opt.select(list(self.model.stacked), positions)

    def _fail(self, i: int, err: BaseException | str) -> None:
        error = err if isinstance(err, str) else f"{type(err).__name__}: {err}"
        state = self.states[i]
        log.warning("run %s failed at step %d: %s", self.specs[i].run_id, state.step, error)
        extra: dict[str, Any] = {"ensemble": self._tag(i)}
        if not isinstance(err, str):
            extra["traceback"] = "".join(traceback.format_exception(err))
        self.records[i] = RunRecord(
            run_id=self.specs[i].run_id, spec=self.specs[i], status="failed", error=error,
            steps=state.step, wall_time=state.train_seconds + self.other[i], extra=extra,
        )

    def _finish(self, finished: list[int]) -> None:
        """Single-run checkpoints, batched final evaluation and records of ``finished``."""
        tick = time.perf_counter()
        for i in finished:
            if self.out_dir is not None:
                save_member(self, i)
        predictions = self._predict(finished, None)
        share = (time.perf_counter() - tick) / len(finished)
        for i in finished:
            run, state = self.runs[i], self.states[i]
            self.other[i] += share
            spent = run.data_seconds + state.train_seconds + self.other[i]
            path = checkpoint_path(self.out_dir, run.spec.run_id) if self.out_dir else None
            record = record_from_predictions(
                run, predictions[i], self.n_parameters, state, path, self.device,
                time.perf_counter() - spent, 0.0, share,
            )
            extra = {**record.extra, "ensemble": self._tag(i)}
            self.records[i] = dataclasses.replace(record, extra=extra)

    @property
    def n_parameters(self) -> int:
        return sum(p[0].numel() for p in self.model.stacked)

    def _tag(self, i: int) -> dict[str, Any]:
        return {"size": len(self.specs), "member": i,
                "run_ids": [s.run_id for s in self.specs]}

    # ------------------------------------------------------------------ evaluation
    def _predictions(self, positions: list[int], words: list[list[np.ndarray]]
                     ) -> list[np.ndarray]:
        """Decisions of the members at ``positions`` on their ``words``.

        On a CPU each member is evaluated alone, as its own `Recognizer` (`evaluate.predict`):
        measured on the 11 layouts of the full table (quick model, one thread), one by one is
        2.3× faster than the batched forward on 252 validation strings and 3.6× faster on the
        920 test strings of lengths 41-500, with the same decisions — the folded attention pays
        dense masks for every member where a single model takes its own fast kernel. On a GPU
        the members are evaluated together (`ensemble_eval.predict_members`).
        """
        bs = self.specs[0].train.eval_batch_size
        if self.device.type == "cpu":
            return [predict(self.model.member(p), ws, self.model.alphabet_size, batch_size=bs,
                            device=self.device) for p, ws in zip(positions, words, strict=True)]
        return predict_members(self.model, positions, words, self.model.alphabet_size,
                               batch_size=bs, device=self.device)

    def _predict(self, members: Sequence[int], splits: Sequence[str] | None
                 ) -> dict[int, dict[str, np.ndarray]]:
        """Predictions of ``members`` on ``splits`` (default: all of theirs), batched."""
        tick = time.perf_counter()
        positions = [self.active.index(i) for i in members]
        names = sorted({n for i in members for n in self.runs[i].splits}
                       if splits is None else set(splits))
        out: dict[int, dict[str, np.ndarray]] = {i: {} for i in members}
        for name in names:
            have = [k for k, i in enumerate(members) if name in self.runs[members[k]].splits]
            if not have:
                continue
            words = []
            for k in have:
                ds = self.runs[members[k]].splits[name]
                words.append(ds.batch(np.arange(len(ds)))[0])
            preds = self._predictions([positions[k] for k in have], words)
            for k, pred in zip(have, preds, strict=True):
                out[members[k]][name] = pred
        if splits is not None:  # validation time counts as training time, as in `train`
            share = (time.perf_counter() - tick) / len(members)
            for i in members:
                self.other[i] += share
        return out

