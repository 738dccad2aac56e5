"""One resumable checkpoint file per run, loadable with ``torch.load(weights_only=True)``.

A checkpoint holds the model weights, the optimizer state, the torch RNG states, the step,
the loop's own state (early-stopping streak, history, elapsed time) and the *resolved*
configuration with the dataset hash. Configs and loop state are stored as JSON strings and
everything else as tensors or primitive containers, so loading never unpickles code.
Writes are atomic (temporary file + rename): an interrupted write leaves the previous
checkpoint intact.

A write that fails (a full disk, a read-only folder) raises `CheckpointWriteError`, which
names the folder, its disk (mount point) and the free space — never torch's internal
"PytorchStreamWriter failed" alone. Training uses `keep_checkpoint`: a checkpoint there is
a resume aid, so a failed write is logged and training goes on; a failed *final* checkpoint
also removes the older one, so that a finished run's checkpoint file is its final state or
absent (`sweeps.ensembles` then records the run with no checkpoint and the note).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from expressivity.disk import disk_space, is_no_space
from expressivity.errors import CheckpointWriteError, ConfigError

__all__ = [
    "FORMAT", "Checkpoint", "CheckpointWriteError", "checkpoint_path", "keep_checkpoint",
    "load_checkpoint", "recorded_path", "save_checkpoint", "stored_path",
]

log = logging.getLogger("expressivity.checkpoint")

#: Version of the on-disk layout; bumped on incompatible changes.
FORMAT = 1


@dataclass(frozen=True)
class Checkpoint:
    """The resumable state of one run after ``step`` optimisation steps.

    ``done`` marks a run whose training loop has finished (budget spent or early stop);
    resuming it only re-evaluates. ``config`` is the resolved run configuration (spec, model
    and split configs, as plain JSON values) and ``dataset_hash`` the hash of its splits.
    """

    step: int
    done: bool
    model: dict[str, torch.Tensor]
    optimizer: dict[str, Any]
    rng: dict[str, torch.Tensor]
    config: dict[str, Any]
    dataset_hash: str
    state: dict[str, Any] = field(default_factory=dict)


def checkpoint_path(out_dir: str | os.PathLike[str], run_id: str) -> Path:
    """The checkpoint file of run ``run_id`` under ``out_dir``: ``<out_dir>/<run_id>.pt``."""
    return Path(out_dir) / f"{run_id}.pt"


def recorded_path(checkpoint: str, store: str | os.PathLike[str]) -> str:
    """How a results store at ``store`` records ``checkpoint``: relative to the store's folder
    (POSIX separators) when the file lies under it, so that a store and its ``.runs`` folder
    can be moved or cloned together; otherwise as given (empty stays empty)."""
    if not checkpoint:
        return ""
    base = Path(store).resolve().parent
    try:
        return Path(checkpoint).resolve().relative_to(base).as_posix()
    except ValueError:
        return checkpoint


def stored_path(recorded: str, store: str | os.PathLike[str]) -> Path:
    """The checkpoint file a store's ``checkpoint`` column names: a relative path is read
    against the store's folder; an absolute one (stores written before paths were relative,
    perhaps on another machine) as it is."""
    path = Path(recorded)
    return path if path.is_absolute() else Path(store).parent / path


def save_checkpoint(path: str | os.PathLike[str], ckpt: Checkpoint) -> Path:
    """Write ``ckpt`` to ``path`` atomically; returns the path.

    Raises `CheckpointWriteError` (naming the disk and its free space) when it cannot be
    written; the previous file at ``path``, if any, is left as it was.
    """
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save(_payload(ckpt), tmp)
        os.replace(tmp, path)
    except (OSError, RuntimeError) as err:  # torch reports a full disk as a RuntimeError
        with contextlib.suppress(OSError):
            tmp.unlink()
        reason = "no space left on the device" if is_no_space(err) else f"{type(err).__name__}: " \
            f"{str(err).strip().splitlines()[0] if str(err).strip() else '?'}"
        raise CheckpointWriteError(
            f"checkpoint {path}: could not be written ({reason}); {disk_space(path.parent)}. "
            "Free some space or choose another folder (sweep --runs-dir, train --out)"
        ) from err
    return path


def keep_checkpoint(path: str | os.PathLike[str], ckpt: Checkpoint) -> str:
    """`save_checkpoint` for training: "" when written, else the error's message (logged).

    A failed write of a final checkpoint (``ckpt.done``) also removes the older file at
    ``path``, so that no file claims to hold the finished run.
    """
    try:
        save_checkpoint(path, ckpt)
    except CheckpointWriteError as err:
        if ckpt.done:
            with contextlib.suppress(OSError):
                Path(path).unlink()
        log.warning("%s; training goes on without it", err)
        return str(err)
    return ""


def _payload(ckpt: Checkpoint) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "step": int(ckpt.step),
        "done": bool(ckpt.done),
        "model": {k: v.detach().cpu() for k, v in ckpt.model.items()},
        "optimizer": _to_cpu(ckpt.optimizer),
        "rng": {k: v.cpu() for k, v in ckpt.rng.items()},
        "config": json.dumps(ckpt.config, sort_keys=True),
        "dataset_hash": ckpt.dataset_hash,
        "state": json.dumps(ckpt.state, sort_keys=True),
    }


def load_checkpoint(path: str | os.PathLike[str]) -> Checkpoint:
    """Read a checkpoint with ``torch.load(weights_only=True)`` (tensors on the CPU).

    Raises `ConfigError` for a file that is not a checkpoint of this format.
    """
    try:
        payload = torch.load(Path(path), map_location="cpu", weights_only=True)
    except Exception as err:
        raise ConfigError(f"checkpoint {path}: cannot be read ({err})") from err
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise ConfigError(f"checkpoint {path}: format {found!r}, expected {FORMAT}")
    return Checkpoint(
        step=int(payload["step"]),
        done=bool(payload["done"]),
        model=dict(payload["model"]),
        optimizer=dict(payload["optimizer"]),
        rng=dict(payload["rng"]),
        config=json.loads(payload["config"]),
        dataset_hash=str(payload["dataset_hash"]),
        state=json.loads(payload["state"]),
    )


def _to_cpu(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_cpu(v) for v in value)
    return value
