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

The form "ratio" (``train.write_penalty_form``, docs/theory.md §19.11) prices each channel's
writes by ‖w_e‖₁/(√n ‖w_e‖₂) over the batch's n real positions instead: 1 when the channel
writes the same amount everywhere, 1/√n when it writes at one position only, and the same for
w_e and c·w_e, so the gradient is orthogonal to the writes and shrinking them pays nothing
(the L1's collapse, §19.9, cannot happen); what pays is writing at fewer positions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch import nn

from expressivity.errors import ConfigError
from expressivity.models.readout import real_positions
from expressivity.models.ssm.mixers import DiagonalSSM
from expressivity.training.step_penalty import atom_kinds, check_penalty_terms, real_mean
from expressivity.training.train_config import WRITE_FORMS, WriteForm

if TYPE_CHECKING:
    from expressivity.models.config import ModelConfig

__all__ = ["TIME_INVARIANT", "check_write_penalty", "diagonal_mixers", "record_writes",
           "write_penalty", "write_sparsity"]

#: the atoms whose mixer is time-invariant (`models.ssm.mixers.DiagonalSSM`)
TIME_INVARIANT = frozenset({"SD", "SDC"})


def diagonal_mixers(model: nn.Module) -> list[DiagonalSSM]:
    """Every time-invariant mixer (atoms SD and SDC) of ``model``, in module order."""
    return [m for m in model.modules() if isinstance(m, DiagonalSSM)]


def check_write_penalty(penalty: float, config: ModelConfig, start: int = 0,
                        steps: int | None = None, form: str = "l1") -> None:
    """A `ConfigError` when a positive ``penalty`` has no time-invariant mixer to act on in
    the model of ``config``, a ``start`` or ``form`` qualifies no penalty, ``form`` is not one
    of `WRITE_FORMS`, or the penalty would start at or after the last of ``steps`` (a
    non-finite or negative one is `TrainConfig`'s error)."""
    if form not in WRITE_FORMS:
        raise ConfigError(f"train.write_penalty_form: {form!r} is not one of "
                          f"{', '.join(WRITE_FORMS)}")
    check_penalty_terms("write_penalty", penalty, (("write_penalty_start", start, 0),
                                                   ("write_penalty_form", form, "l1")),
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


def write_penalty(model: nn.Module, lengths: torch.Tensor,
                  form: WriteForm = "l1") -> torch.Tensor:
    """The writes Σ_n |Δ B_n u_t| of the last training forward of every time-invariant mixer,
    taken from the mixers (each mixer's record is cleared), priced by ``form``: "l1", their
    mean over every mixer, channel and real position (0 ≤ t ≤ length + 1 of each row: BOS,
    the letters, EOS); "ratio", `write_sparsity`. A `RuntimeError` when a mixer kept nothing
    or the model has none; a `ValueError` for another form."""
    if form not in WRITE_FORMS:
        raise ValueError(f"write_penalty: form {form!r} is not one of {', '.join(WRITE_FORMS)}")
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
    return real_mean(kept, lengths) if form == "l1" else write_sparsity(kept, lengths)


def write_sparsity(writes: list[torch.Tensor], lengths: torch.Tensor) -> torch.Tensor:
    """The mean over the channels of every (B, T, E) tensor of non-negative ``writes`` of
    ‖w_e‖₁ / (√n ‖w_e‖₂), both norms over the n real positions of the batch (padding
    excluded); a channel that writes nothing counts 0 and passes no gradient."""
    ratios = []
    for w in writes:
        real = real_positions(w.shape[1], lengths.to(w.device)).to(w.dtype).unsqueeze(-1)
        masked = w * real
        l1 = masked.sum((0, 1))
        squares = masked.square().sum((0, 1))
        l2 = squares.clamp_min(torch.finfo(w.dtype).tiny).sqrt()
        ratio = l1 / (real.sum().sqrt() * l2)
        ratios.append(torch.where(squares > 0, ratio, torch.zeros_like(ratio)))
    return torch.cat(ratios).mean()
