"""`EnsembleStepper`: how an ensemble's members are stepped, evaluated, recorded and saved."""

from __future__ import annotations

import dataclasses
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
from expressivity.errors import ConfigError, TrainingError
from expressivity.models.ensemble import EnsembleRecognizer
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
from expressivity.training.prepare import Prepared, derived_seed, prepare
from expressivity.training.spec import RunRecord, RunSpec
from expressivity.training.state import SEED_INIT, RunState

__all__ = ["EnsembleStepper"]

log = logging.getLogger("expressivity.training.ensemble")  # the name it logged under before


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
                self.fail_index(i, err)
        sizes = {len(r.source.alphabet) for r in self.runs.values()}
        if len(sizes) > 1:
            raise ConfigError(f"alphabet: ensemble members need one alphabet size, got {sizes}")
        self.active = sorted(self.runs)
        if self.active:
            self.build()
            members = [Member(i, self.runs[i], self.states[i]) for i in self.active]
            try:
                drive(members, self, desc=f"ensemble of {len(self.active)}", quiet=self.quiet,
                      on_step=on_step)
            except KeyboardInterrupt:
                raise
            except Exception as err:  # a bug must not lose the other members' records
                for i in list(self.active):
                    self.fail_index(i, err)
        return [self.records[i] for i in range(len(self.specs))]

    def build(self) -> None:
        """The stacked model and optimizer of the active members (restored on resume)."""
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
        self.fail_index(member.index, TrainingError(error))

    def finish(self, members: Sequence[Member]) -> None:
        self._finish([m.index for m in members])

    def leave(self, keep: Sequence[Member]) -> None:
        self.compact([m.index for m in keep])

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
    def compact(self, keep: list[int]) -> None:
        """Keep only the members ``keep`` (indices into ``specs``) in the model and optimizer."""
        positions = [self.active.index(i) for i in keep]
        self.active = keep
        if keep:
            self.model = self.model.select(positions)
            self.opt = self.opt.select(list(self.model.stacked), positions)

    def fail_index(self, i: int, err: BaseException | str) -> None:
        """Record member ``i`` as failed with ``err`` (its traceback kept when an exception)."""
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
