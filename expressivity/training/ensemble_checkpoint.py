"""Ensemble checkpoints: one per ensemble (active members), one per finished member.

A finished member writes the single-run checkpoint ``<run_id>.pt`` that `training.loop.train`
would write (weights, AdamW state, loop state), so `train` resumes or re-evaluates it alone;
the ensemble writes ``ensemble-<hash of the member run ids>.pt`` with its active members.
``ens`` is the ensemble being trained (`training.ensemble_stepper.EnsembleStepper`; typed
``Any`` here so that this module does not import it back).
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from expressivity.checkpoint import Checkpoint, checkpoint_path, keep_checkpoint
from expressivity.config import stable_hash
from expressivity.errors import TrainingError
from expressivity.training.loop import train
from expressivity.training.optim import adamw
from expressivity.training.spec import RunSpec, without_threads

__all__ = ["ensemble_checkpoint_path", "restore_ensemble", "save_ensemble", "save_member"]

log = logging.getLogger("expressivity.training.ensemble")


def ensemble_checkpoint_path(out_dir: str | os.PathLike[str], specs: Sequence[RunSpec]) -> Path:
    """``<out_dir>/ensemble-<hash of the member run ids>.pt``."""
    return Path(out_dir) / f"ensemble-{stable_hash(sorted(s.run_id for s in specs))}.pt"


def save_member(ens: Any, i: int) -> None:
    """The member's own single-run checkpoint (as `train` would write it)."""
    run, state = ens.runs[i], ens.states[i]
    j = ens.active.index(i)
    model = ens.model.member(j)
    optimizer = adamw(model, run.spec.train)
    for p, m, v in zip(model.parameters(), ens.opt.exp_avg, ens.opt.exp_avg_sq,
                       strict=True):
        optimizer.state[p] = {"step": torch.tensor(float(ens.opt.steps)),
                              "exp_avg": m[j].clone(), "exp_avg_sq": v[j].clone()}
    assert ens.out_dir is not None
    keep_checkpoint(checkpoint_path(ens.out_dir, run.spec.run_id), Checkpoint(
        step=state.step, done=state.done, model=model.state_dict(),
        optimizer=optimizer.state_dict(), rng={"cpu": torch.get_rng_state()},
        config=run.resolved_config(), dataset_hash=run.dataset_hash,
        state=dataclasses.asdict(state),
    ))


def save_ensemble(ens: Any) -> None:
    """The ensemble checkpoint: its active members' weights, AdamW and loop states."""
    assert ens.path is not None
    failed = {str(i): {"error": r.error, "steps": r.steps} for i, r in ens.records.items()
              if r.status == "failed"}
    keep_checkpoint(ens.path, Checkpoint(
        step=ens.states[ens.active[0]].step if ens.active else 0,
        done=not ens.active,
        model={f"{k}:{n}": p.detach() for k, (n, p) in
               enumerate(zip(ens.model.names, ens.model.stacked, strict=True))}
        if ens.active else {},
        optimizer=ens.opt.state_dict() if ens.active else {},
        rng={"cpu": torch.get_rng_state()},
        config={"runs": [s.run_id for s in ens.specs], "active": ens.active,
                "specs": [without_threads(s.to_dict()) for s in ens.specs]},
        dataset_hash=",".join(ens.runs[i].dataset_hash for i in ens.active),
        state={"members": {str(i): dataclasses.asdict(ens.states[i]) for i in ens.active},
               "failed": failed},
    ))


def restore_ensemble(ens: Any, ckpt: Checkpoint) -> None:
    """Continue ``ens`` from ``ckpt`` exactly where it stopped (members that finished since
    are re-read from their own single-run checkpoints)."""
    specs = [without_threads(s.to_dict()) for s in ens.specs]
    if ckpt.config.get("specs") != specs:
        raise TrainingError(f"ensemble checkpoint {ens.path} holds other runs")
    active = [int(i) for i in ckpt.config["active"]]
    if any(i not in ens.runs for i in active):
        raise TrainingError(f"ensemble checkpoint {ens.path}: its active members have "
                            "finished checkpoints of their own; start afresh (resume=False)")
    if ckpt.dataset_hash != ",".join(ens.runs[i].dataset_hash for i in active):
        raise TrainingError(
            f"ensemble checkpoint {ens.path}: the data splits changed; start afresh "
            "(resume=False)"
        )
    for key, info in ckpt.state.get("failed", {}).items():
        i = int(key)
        ens.states[i].step = int(info["steps"])
        ens.fail_index(i, str(info["error"]))
    for i in active:
        for key, value in ckpt.state["members"][str(i)].items():
            setattr(ens.states[i], key, value)
    for i in list(ens.active):
        if i not in active and i not in ens.records:  # finished: its own checkpoint
            ens.records[i] = train(ens.specs[i], out_dir=ens.out_dir, quiet=True)
    ens.compact(active)
    if active:
        with torch.no_grad():
            for k, p in enumerate(ens.model.stacked):
                p.copy_(ckpt.model[f"{k}:{ens.model.names[k]}"])
        ens.opt.load_state_dict(ckpt.optimizer)
    log.info("resuming ensemble %s at step %d", ens.path, ckpt.step)
