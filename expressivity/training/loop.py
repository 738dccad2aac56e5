"""The training loop: `train(spec) -> RunRecord`, reproducible, resumable and never crashing.

Randomness: the data splits come from ``spec.seed``; the initial weights, the batch order and
any dropout from seeds derived from it (`prepare.derived_seed`). Batches are a function of
(seed, step) alone — epoch ``e`` is a fixed permutation of the training set, cut into batches
by length bucket or uniformly (`training.batching`, ``train.batching``) — and dropout
runs inside `torch.random.fork_rng`, so the caller's global RNG is untouched and a resumed run
takes exactly the steps an uninterrupted one would: the same seed gives the same metrics and
weights bit for bit on a CPU.

A single run is the drive of one member (`training.driver`) through `SingleStepper`: its
`Recognizer`, torch AdamW and single-run checkpoint. Threads: `state.compute_threads` (one
intra-op thread, `COMPUTE_THREADS`, whatever ``train.threads`` says; see `training.state`).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from expressivity.checkpoint import (
    Checkpoint,
    checkpoint_path,
    keep_checkpoint,
    load_checkpoint,
)
from expressivity.errors import TrainingError
from expressivity.models.transformer import Recognizer
from expressivity.training import evaluate as ev
from expressivity.training.driver import drive
from expressivity.training.member import Member, record_from_predictions
from expressivity.training.optim import adamw
from expressivity.training.prepare import Prepared, derived_seed, prepare
from expressivity.training.spec import RunRecord, RunSpec, without_threads
from expressivity.training.state import (
    SEED_DROPOUT,
    SEED_INIT,
    RunState,
    compute_threads,
    loss_error,
    loss_failure,
    max_grad_norm,
    norm_error,
)
from expressivity.training.step_penalty import record_step_sizes, step_penalty
from expressivity.training.write_penalty import record_writes, write_penalty

__all__ = ["Fitted", "SingleStepper", "evaluate_fitted", "fit", "train"]

log = logging.getLogger(__name__)


def train(
    spec: RunSpec,
    *,
    out_dir: str | os.PathLike[str] | None = None,
    quiet: bool = False,
    resume: bool = True,
    on_step: Callable[[int], None] | None = None,
) -> RunRecord:
    """Train and evaluate one recognizer; every failure becomes a ``failed`` `RunRecord`.

    With ``out_dir`` the run keeps one checkpoint ``<out_dir>/<run_id>.pt`` (every
    ``checkpoint_every`` steps and at the end) and caches its data splits under
    ``<out_dir>/splits``; with ``resume`` an existing checkpoint is continued (a finished one is
    only re-evaluated). ``on_step(step)`` is called after every optimisation step; raising
    `KeyboardInterrupt` there (or pressing Ctrl-C) writes a checkpoint and propagates, other
    exceptions fail the run. NaN/inf or diverging losses fail the run with the step and lr.
    """
    started = time.perf_counter()
    state = RunState()
    with compute_threads():  # not spec.train.threads: reproducibility
        try:
            run = prepare(spec, cache_dir=Path(out_dir) / "splits" if out_dir is not None
                          else None)
            fitted = fit(run, state, out_dir=out_dir, quiet=quiet, resume=resume,
                         on_step=on_step)
            return evaluate_fitted(fitted, started)
        except Exception as err:
            log.warning("run %s failed at step %d: %s", spec.run_id, state.step, err)
            log.debug("traceback of run %s", spec.run_id, exc_info=True)
            return RunRecord(
                run_id=spec.run_id, spec=spec, status="failed",
                error=f"{type(err).__name__}: {err}", steps=state.step,
                wall_time=time.perf_counter() - started,
                extra={"traceback": traceback.format_exc()},
            )


@dataclass(frozen=True)
class Fitted:
    """A trained model with the run it belongs to and the loop's final state."""

    run: Prepared
    model: torch.nn.Module
    state: RunState
    path: Path | None  # its checkpoint, if any
    device: torch.device
    before: float  # training seconds of earlier sessions of a resumed run


def fit(
    run: Prepared, state: RunState | None = None, *,
    out_dir: str | os.PathLike[str] | None = None, quiet: bool = True, resume: bool = True,
    on_step: Callable[[int], None] | None = None,
) -> Fitted:
    """The optimisation loop of one prepared run (seeded from ``run.spec.seed``); no evaluation.

    The caller sets the compute threads (`train` and `pipeline.train` use `compute_threads`).
    """
    state = RunState() if state is None else state
    spec, cfg = run.spec, run.spec.train
    device = torch.device(cfg.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise TrainingError(f"device: {cfg.device!r} requested but CUDA is not available")
    model = Recognizer(run.model_config, len(run.source.alphabet),
                       seed=derived_seed(spec.seed, SEED_INIT)).to(device)
    optimizer = adamw(model, cfg)
    path = checkpoint_path(out_dir, spec.run_id) if out_dir is not None else None
    cuda = [device.index or 0] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=cuda):
        torch.manual_seed(derived_seed(spec.seed, SEED_DROPOUT))
        if path is not None and resume and path.exists():
            _restore(load_checkpoint(path), run, model, optimizer, state, device)
            log.info("resuming %s from step %d", spec.run_id, state.step)
        before = state.train_seconds
        model.train()
        stepper = SingleStepper(run, model, optimizer, path, device)
        drive([Member(0, run, state)], stepper, quiet=quiet, on_step=on_step,
              desc=f"{run.source.name} {spec.layout} seed={spec.seed}")
    return Fitted(run, model, state, path, device, before)


class SingleStepper:
    """The `training.driver.Stepper` of one run: its `Recognizer`, torch AdamW, checkpoint."""

    def __init__(self, run: Prepared, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                 path: Path | None, device: torch.device) -> None:
        self.run, self.model, self.optimizer = run, model, optimizer
        self.path, self.device = path, device
        self.max_norm = max_grad_norm(run.spec.train)
        self.step_penalty = run.spec.train.step_penalty
        self.step_penalty_cap = run.spec.train.step_penalty_cap
        self.step_penalty_start = run.spec.train.step_penalty_start
        self.step_penalty_channels = run.spec.train.step_penalty_channels
        self.step_penalty_form = run.spec.train.step_penalty_form
        self.write_penalty = run.spec.train.write_penalty
        self.write_penalty_start = run.spec.train.write_penalty_start
        self.write_penalty_form = run.spec.train.write_penalty_form

    def gradients(self, members: Sequence[Member], step: int
                  ) -> tuple[list[tuple[float, float]], list[int]]:
        """Loss and gradients of the run's batch of ``step``; a failure raises `TrainingError`."""
        (member,) = members
        batch = member.batch(step)
        target = batch.target.to(self.device)
        lr = member.learning_rate(step)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        lengths = batch.lengths.to(self.device)
        penalized = bool(self.step_penalty) and step >= self.step_penalty_start
        if self.step_penalty:
            record_step_sizes(self.model, penalized)
        writes_penalized = bool(self.write_penalty) and step >= self.write_penalty_start
        if self.write_penalty:
            record_writes(self.model, writes_penalized)
        logits = self.model(batch.tokens.to(self.device), lengths)
        loss = F.binary_cross_entropy_with_logits(logits, target.to(logits.dtype))
        value = checked = float(loss.item())  # the recorded loss is the data loss alone
        if penalized:
            loss = loss + self.step_penalty * step_penalty(
                self.model, lengths, cap=self.step_penalty_cap,
                channels=self.step_penalty_channels, form=self.step_penalty_form)
        if writes_penalized:
            loss = loss + self.write_penalty * write_penalty(self.model, lengths,
                                                             form=self.write_penalty_form)
        if penalized or writes_penalized:
            checked = float(loss.item())
        if loss_failure(checked):
            raise TrainingError(loss_error(checked, step, lr))
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm))
        if not math.isfinite(norm):
            raise TrainingError(norm_error(step, lr))
        accuracy = float(((logits > 0).float() == target).float().mean())
        return [(accuracy, value)], [batch.n_tokens]

    def update(self, members: Sequence[Member], step: int) -> None:
        self.optimizer.step()

    def predict(self, members: Sequence[Member], splits: Sequence[str]
                ) -> dict[int, dict[str, np.ndarray]]:
        (member,) = members
        bs = self.run.spec.train.eval_batch_size
        size = len(self.run.source.alphabet)
        return {member.index: {
            name: ev.predict(self.model, member.split_words(name), size,  # type: ignore[arg-type]
                             batch_size=bs, device=self.device)
            for name in splits if name in self.run.splits and len(self.run.splits[name])}}

    def fail(self, member: Member, error: str) -> None:  # pragma: no cover - gradients raise
        raise TrainingError(error)

    def finish(self, members: Sequence[Member]) -> None:
        if self.path is not None:
            _save(self.path, self.run, self.model, self.optimizer, members[0].state, self.device)

    def leave(self, keep: Sequence[Member]) -> None:
        pass

    def checkpoint(self, members: Sequence[Member], step: int) -> None:
        if self.path is not None:
            _save(self.path, self.run, self.model, self.optimizer, members[0].state, self.device)

    def interrupted(self, members: Sequence[Member]) -> None:
        state = members[0].state if members else None
        if self.path is not None and state is not None and state.step:
            _save(self.path, self.run, self.model, self.optimizer, state, self.device)
            log.warning("stopped by Ctrl-C at step %d; checkpoint %s", state.step, self.path)

    def close(self, members: Sequence[Member]) -> None:
        pass


def evaluate_fitted(fitted: Fitted, started: float) -> RunRecord:
    """The `RunRecord` of a fitted run: its metrics on every split (``started``: wall clock)."""
    return _finish(fitted.run, fitted.model, fitted.state, fitted.path, fitted.device, started,
                   fitted.before)


def _save(path: Path, run: Prepared, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
          state: RunState, device: torch.device) -> None:
    rng = {"cpu": torch.get_rng_state()}
    if device.type == "cuda":
        rng["cuda"] = torch.cuda.get_rng_state(device)
    keep_checkpoint(path, Checkpoint(
        step=state.step, done=state.done, model=model.state_dict(),
        optimizer=optimizer.state_dict(), rng=rng, config=run.resolved_config(),
        dataset_hash=run.dataset_hash, state=dataclasses.asdict(state),
    ))


def _restore(ckpt: Checkpoint, run: Prepared, model: torch.nn.Module,
             optimizer: torch.optim.Optimizer, state: RunState, device: torch.device) -> None:
    if without_threads(ckpt.config.get("spec", {})) != without_threads(run.spec.to_dict()):
        raise TrainingError(f"checkpoint of run {run.spec.run_id} holds another spec")
    if ckpt.dataset_hash != run.dataset_hash:
        raise TrainingError(
            f"checkpoint dataset hash {ckpt.dataset_hash} differs from the rebuilt splits' "
            f"{run.dataset_hash}: the data generator changed; start the run afresh (resume=False)"
        )
    model.load_state_dict(ckpt.model)
    optimizer.load_state_dict(ckpt.optimizer)
    torch.set_rng_state(ckpt.rng["cpu"])
    if device.type == "cuda" and "cuda" in ckpt.rng:
        torch.cuda.set_rng_state(ckpt.rng["cuda"], device)
    for key, value in ckpt.state.items():
        setattr(state, key, value)


def _finish(run: Prepared, model: torch.nn.Module, state: RunState, path: Path | None,
            device: torch.device, started: float, before: float) -> RunRecord:
    """Final evaluation: per-length test metrics, adversarial families, train and val accuracy."""
    tick = time.perf_counter()
    size, bs = len(run.source.alphabet), run.spec.train.eval_batch_size
    predictions = {}
    for name in run.splits:
        words, _ = run.splits[name].batch(np.arange(len(run.splits[name])))
        predictions[name] = ev.predict(model, words, size, batch_size=bs,  # type: ignore[arg-type]
                                       device=device)
    n_parameters = sum(p.numel() for p in model.parameters())
    return record_from_predictions(run, predictions, n_parameters, state, path, device, started,
                                   before, time.perf_counter() - tick)
