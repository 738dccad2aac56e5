"""The training loop: `train(spec) -> RunRecord`, reproducible, resumable and never crashing.

Randomness: the data splits come from ``spec.seed``; the initial weights, the batch order and
any dropout from seeds derived from it (`prepare.derived_seed`). Batches are a function of
(seed, step) alone — epoch ``e`` is a fixed permutation of the training set, cut into batches
by length bucket or uniformly (`training.batching`, ``train.batching``) — and dropout
runs inside `torch.random.fork_rng`, so the caller's global RNG is untouched and a resumed run
takes exactly the steps an uninterrupted one would: the same seed gives the same metrics and
weights bit for bit on a CPU.

Threads: on a CPU the model runs on ONE intra-op thread (`COMPUTE_THREADS`), whatever
``train.threads`` says. torch's CPU kernels split some sums by thread count (the LayerNorm gain
and bias gradients, attention backward, one-query flash attention), so with more threads the
weights, and after a few hundred steps the metrics, depend on the thread count: a sweep (which
sets threads = cores // jobs) would store different results for one run id under different
``--jobs``. Parallelism comes from running several runs at once (``--jobs``) instead.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
from expressivity.training import evaluate as ev
from expressivity.training.batching import train_batch
from expressivity.training.optim import adamw, learning_rate
from expressivity.training.prepare import Prepared, derived_seed, prepare
from expressivity.training.spec import (
    AdversarialMetric,
    LengthMetric,
    RunRecord,
    RunSpec,
)
from expressivity.training.train_config import TrainConfig

__all__ = [
    "COMPUTE_THREADS", "DIVERGENCE_LOSS", "Fitted", "evaluate_fitted", "fit", "loss_error",
    "loss_failure", "max_grad_norm", "norm_error", "progressed", "train",
]

log = logging.getLogger(__name__)

#: A mean training loss above this counts as divergence (chance level is ln 2 ≈ 0.69).
DIVERGENCE_LOSS = 1e4


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
_INIT, _BATCHES, _DROPOUT = 1, 2, 3  # purposes of `derived_seed`
#: Intra-op threads of every run's training and evaluation (see the module docstring).
COMPUTE_THREADS = 1


@dataclass
class _State:
    """The loop's own resumable state (stored as JSON in checkpoints)."""

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
    threads = torch.get_num_threads()
    state = _State()
    try:
        torch.set_num_threads(COMPUTE_THREADS)  # not spec.train.threads: reproducibility
        run = prepare(spec, cache_dir=Path(out_dir) / "splits" if out_dir is not None else None)
        return _run(run, state, out_dir, quiet, resume, on_step, started)
    except Exception as err:
        log.warning("run %s failed at step %d: %s", spec.run_id, state.step, err)
        log.debug("traceback of run %s", spec.run_id, exc_info=True)
        return RunRecord(
            run_id=spec.run_id, spec=spec, status="failed",
            error=f"{type(err).__name__}: {err}", steps=state.step,
            wall_time=time.perf_counter() - started,
            extra={"traceback": traceback.format_exc()},
        )
    finally:
        torch.set_num_threads(threads)


def _run(
    run: Prepared, state: _State, out_dir: str | os.PathLike[str] | None, quiet: bool,
    resume: bool, on_step: Callable[[int], None] | None, started: float,
) -> RunRecord:
    fitted = fit(run, state, out_dir=out_dir, quiet=quiet, resume=resume, on_step=on_step)
    return evaluate_fitted(fitted, started)


@dataclass(frozen=True)
class Fitted:
    """A trained model with the run it belongs to and the loop's final state."""

    run: Prepared
    model: torch.nn.Module
    state: _State
    path: Path | None  # its checkpoint, if any
    device: torch.device
    before: float  # training seconds of earlier sessions of a resumed run


def fit(
    run: Prepared, state: _State | None = None, *,
    out_dir: str | os.PathLike[str] | None = None, quiet: bool = True, resume: bool = True,
    on_step: Callable[[int], None] | None = None,
) -> Fitted:
    """The optimisation loop of one prepared run (seeded from ``run.spec.seed``); no evaluation.

    The caller sets the compute threads (`train` and `pipeline.train` use `COMPUTE_THREADS`).
    """
    from expressivity.models.transformer import Recognizer

    state = _State() if state is None else state
    spec, cfg = run.spec, run.spec.train
    device = torch.device(cfg.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise TrainingError(f"device: {cfg.device!r} requested but CUDA is not available")
    model = Recognizer(run.model_config, len(run.source.alphabet),
                       seed=derived_seed(spec.seed, _INIT)).to(device)
    optimizer = adamw(model, cfg)
    path = checkpoint_path(out_dir, spec.run_id) if out_dir is not None else None
    cuda = [device.index or 0] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=cuda):
        torch.manual_seed(derived_seed(spec.seed, _DROPOUT))
        if path is not None and resume and path.exists():
            _restore(load_checkpoint(path), run, model, optimizer, state, device)
            log.info("resuming %s from step %d", spec.run_id, state.step)
        before = state.train_seconds
        _loop(run, model, optimizer, state, path, quiet, on_step, device)
    return Fitted(run, model, state, path, device, before)


def evaluate_fitted(fitted: Fitted, started: float) -> RunRecord:
    """The `RunRecord` of a fitted run: its metrics on every split (``started``: wall clock)."""
    return _finish(fitted.run, fitted.model, fitted.state, fitted.path, fitted.device, started,
                   fitted.before)


def _loop(
    run: Prepared, model: torch.nn.Module, optimizer: torch.optim.Optimizer, state: _State,
    path: Path | None, quiet: bool, on_step: Callable[[int], None] | None, device: torch.device,
) -> None:
    from tqdm import tqdm  # not tqdm.auto: it warns in a kernel without ipywidgets

    from expressivity.models.tokens import encode_batch

    spec, cfg = run.spec, run.spec.train
    data, size = run.splits["train"], len(run.source.alphabet)
    batch_seed = derived_seed(spec.seed, _BATCHES)
    max_norm = max_grad_norm(cfg)
    desc = f"{run.source.name} {spec.layout} seed={spec.seed}"
    bar = tqdm(total=cfg.steps, initial=state.step, desc=desc, unit="step", disable=quiet,
               dynamic_ncols=True, mininterval=0.5)
    consistent = True  # False from the weight update until the step's bookkeeping is done
    model.train()
    try:
        while not state.done and state.step < cfg.steps:
            tick = time.perf_counter()
            batch = train_batch(cfg, batch_seed, state.step, data.lengths)
            words, labels = data.batch(batch)
            tokens, lengths = encode_batch(words, size)
            target = torch.from_numpy(labels.astype(np.float32)).to(device)
            lr = learning_rate(cfg, state.step)
            for group in optimizer.param_groups:
                group["lr"] = lr
            logits = model(tokens.to(device), lengths.to(device))
            loss = F.binary_cross_entropy_with_logits(logits, target.to(logits.dtype))
            value = float(loss.item())
            if loss_failure(value):
                raise TrainingError(loss_error(value, state.step, lr))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            norm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm))
            if not math.isfinite(norm):
                raise TrainingError(norm_error(state.step, lr))
            consistent = False
            optimizer.step()
            state.step += 1
            state.batch_accuracy = float(((logits > 0).float() == target).float().mean())
            state.loss_sum += value
            state.loss_count += 1
            state.tokens += int(lengths.sum()) + 2 * len(words)
            state.train_seconds += time.perf_counter() - tick
            if state.step % cfg.eval_every == 0 or state.step == cfg.steps:
                _validate(run, model, state, device)
            state.done = state.done or state.step >= cfg.steps
            bar.update(1)
            if state.step % 10 == 0 or state.done:
                bar.set_postfix(loss=f"{value:.4f}", acc=f"{state.batch_accuracy:.3f}",
                                tok_s=f"{state.tokens / max(state.train_seconds, 1e-9):.0f}",
                                refresh=False)
            if path is not None and (state.done or (cfg.checkpoint_every
                                                    and state.step % cfg.checkpoint_every == 0)):
                _save(path, run, model, optimizer, state, device)
            consistent = True
            if on_step is not None:
                on_step(state.step)
    except KeyboardInterrupt:
        if path is not None and consistent and state.step:
            _save(path, run, model, optimizer, state, device)
            log.warning("stopped by Ctrl-C at step %d; checkpoint %s", state.step, path)
        raise
    finally:
        bar.close()


def _validate(run: Prepared, model: torch.nn.Module, state: _State, device: torch.device) -> None:
    """Validation accuracies; count the streak of perfect validations; stop early on patience."""
    accs = {name: _accuracy(run, model, name, device) for name in ("val_short", "val_long")}
    note_validation(run, state, accs)


def note_validation(run: Prepared, state: _State, accs: dict[str, float]) -> None:
    """Record one validation (``accs`` of val_short and val_long) and apply the stopping rules:
    ``patience`` consecutive perfect validations, or ``plateau`` consecutive stale validations
    (`progressed`: by ``plateau_rule``)."""
    cfg = run.spec.train
    perfect = state.batch_accuracy == 1.0 and all(a == 1.0 for a in accs.values())
    state.streak = state.streak + 1 if perfect else 0
    mean = sum(accs.values()) / len(accs)
    loss = state.loss_sum / max(state.loss_count, 1)
    if perfect or progressed(cfg, state.best, state.best_loss, mean, loss):
        state.stale = 0
    else:
        state.stale += 1
    state.best = max(state.best, mean)
    state.best_loss = min(state.best_loss, loss)
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


def progressed(cfg: TrainConfig, best: float, best_loss: float, mean: float, loss: float
               ) -> bool:
    """Whether a validation with mean accuracy ``mean`` and mean training loss ``loss`` made
    progress over the best so far: "gain" asks ``mean >= best + plateau_delta``; "improving"
    any gain in accuracy, or a loss below ``(1 - plateau_delta) * best_loss``."""
    if cfg.plateau_rule == "gain":
        return mean >= best + cfg.plateau_delta
    return mean > best or loss < (1.0 - cfg.plateau_delta) * best_loss


def _accuracy(run: Prepared, model: torch.nn.Module, split: str, device: torch.device) -> float:
    if split not in run.splits or not len(run.splits[split]):
        return 1.0
    ds = run.splits[split]
    words, labels = ds.batch(np.arange(len(ds)))
    pred = ev.predict(model, words, len(run.source.alphabet),  # type: ignore[arg-type]
                      batch_size=run.spec.train.eval_batch_size, device=device)
    return float((pred == labels).mean())


def _save(path: Path, run: Prepared, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
          state: _State, device: torch.device) -> None:
    rng = {"cpu": torch.get_rng_state()}
    if device.type == "cuda":
        rng["cuda"] = torch.cuda.get_rng_state(device)
    keep_checkpoint(path, Checkpoint(
        step=state.step, done=state.done, model=model.state_dict(),
        optimizer=optimizer.state_dict(), rng=rng, config=run.resolved_config(),
        dataset_hash=run.dataset_hash, state=dataclasses.asdict(state),
    ))


def _restore(ckpt: Checkpoint, run: Prepared, model: torch.nn.Module,
             optimizer: torch.optim.Optimizer, state: _State, device: torch.device) -> None:
    if _without_threads(ckpt.config.get("spec", {})) != _without_threads(run.spec.to_dict()):
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


def _without_threads(spec: dict[str, Any]) -> dict[str, Any]:
    """A spec dict without ``train.threads``, which (like the run id) a resume may change."""
    return {**spec, "train": {k: v for k, v in spec.get("train", {}).items() if k != "threads"}}


def _finish(run: Prepared, model: torch.nn.Module, state: _State, path: Path | None,
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


def record_from_predictions(
    run: Prepared, predictions: dict[str, np.ndarray], n_parameters: int, state: _State,
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
    val = [results[n] for n in ("val_short", "val_long") if n in results]
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
