"""The write penalty: λ times the time-invariant mixers' mean write size, added to the loss.

A time-invariant (S4D) channel has one gate a = exp(ΔA) at every letter, so it cannot hold
by closing its step at the letters it should not count, as a selective mixer can (the step
penalty, `training.step_penalty`). What it can do is not write there: its state takes
Δ·B·u_t at every letter, and Theorem 16.4's counts need u_t = 0 off the counted letters
(docs/theory.md §19.9). The penalty asks for that: it adds λ · mean_t,e Σ_n |Δ_e B_e,n u_t,e|
over every S4D mixer (atoms SD, SDC), real position (BOS to EOS; padding excluded) and
channel, an L1 on the write, so a channel writes only where the data loss needs it. From
step s (``train.write_penalty_start``) on only: the steps before it take the data loss alone,
so the mixers fit their words first (from the first step the L1 silences them, §19.9).

The penalty's gradient reaches u_t (the input projection and what feeds it) only: Δ and B
are held (detached). A penalty that could pay by shrinking Δ would lengthen every memory and
shrink the state path instead of sparsifying it: at the table's initialisation and λ = 1 its
gradient on the step-size weights is 13 to 171 times the data loss's, and 7 to 30 times on B
(`paper_figures/ssm-s4d-write/screen.md`, §19.9). It is a training objective, not a model: it
changes no recognizer's class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch import nn

from expressivity.errors import ConfigError
from expressivity.models.ssm.mixers import DiagonalSSM
from expressivity.training.step_penalty import atom_kinds, check_penalty_terms, real_mean

if TYPE_CHECKING:
    from expressivity.models.config import ModelConfig

__all__ = ["TIME_INVARIANT", "check_write_penalty", "diagonal_mixers", "record_writes",
           "write_penalty"]

#: the atoms whose mixer is time-invariant (`models.ssm.mixers.DiagonalSSM`)
TIME_INVARIANT = frozenset({"SD", "SDC"})


def diagonal_mixers(model: nn.Module) -> list[DiagonalSSM]:
    """Every time-invariant mixer (atoms SD and SDC) of ``model``, in module order."""
    return [m for m in model.modules() if isinstance(m, DiagonalSSM)]


def check_write_penalty(penalty: float, config: ModelConfig, start: int = 0,
                        steps: int | None = None) -> None:
    """A `ConfigError` when a positive ``penalty`` has no time-invariant mixer to act on in
    the model of ``config``, a ``start`` qualifies no penalty, or the penalty would start at
    or after the last of ``steps`` (a non-finite or negative one is `TrainConfig`'s error)."""
    check_penalty_terms("write_penalty", penalty, (("write_penalty_start", start, 0),),
                        start, steps)
    if penalty > 0 and not atom_kinds(config) & TIME_INVARIANT:
        raise ConfigError(
            f"train.write_penalty: {penalty!r} needs a time-invariant mixer (atom SD or SDC), "
            f"and layout {config.layout!r} has none; use a layout such as 's4d', or set "
            "train.write_penalty = 0 (a selective mixer's steps take train.step_penalty)")


def record_writes(model: nn.Module, on: bool = True) -> None:
    """Make every time-invariant mixer of ``model`` keep its training write sizes for
    `write_penalty` (``on``) or keep nothing (each mixer's record is cleared either way)."""
    for mixer in diagonal_mixers(model):
        mixer.record_writes = on
        mixer.writes = None


def write_penalty(model: nn.Module, lengths: torch.Tensor) -> torch.Tensor:
    """Mean write size Σ_n |Δ B_n u_t| of the last training forward over every time-invariant
    mixer, channel and real position (0 ≤ t ≤ length + 1 of each row: BOS, the letters, EOS),
    taken from the mixers (each mixer's record is cleared). A `RuntimeError` when a mixer kept
    nothing or the model has none."""
    kept = []
    for mixer in diagonal_mixers(model):
        writes = mixer.writes
        mixer.writes = None
        if writes is None:
            raise RuntimeError("write_penalty: a time-invariant mixer kept no writes; call "
                               "record_writes(model) and run a forward in training mode")
        kept.append(writes)
    if not kept:
        raise RuntimeError("write_penalty: the model has no time-invariant mixer")
    return real_mean(kept, lengths)
