"""The step-size penalty: λ times the selective mixers' mean step size Δ, added to the loss.

A selective mixer's step size Δ_t sets both how much channel state the letter at t forgets,
exp(Δ_t·A), and how much it writes, Δ_t·B_t·u_t (docs/theory.md §19.2). An exact recognizer of
a "seen the event" language writes on the event and holds otherwise, Δ ≈ 0 off the event
(§16.1); words of ≤ 40 letters never ask a trained run to close the off-event Δ that far
(docs/guide/ssm.md, "The slow-state lever"). The penalty asks for it: it adds λ · mean Δ over
every mixer, real position (BOS to EOS; padding excluded) and channel, so Δ stays large only
where the data loss needs it. It is a training objective, not a model: it changes no
recognizer's class (docs/theory.md §19.3).

With a cap c > 0 (``train.step_penalty_cap``) each step size counts min(Δ, c), a capped L1:
a Δ above c (an event: a reset, or the flip of a signed mixer's counter, which needs a large
Δ at every letter it counts) costs c and gets no gradient from the penalty, while every Δ
below c is pulled towards 0 as without a cap (docs/theory.md §19.4). With a start s > 0
(``train.step_penalty_start``) the steps before s take the data loss alone (§19.5). With a
fraction f < 1 (``train.step_penalty_channels``) only the first ⌈f·E⌉ of each mixer's E
channels pay; the others' own step-size weights see the data loss alone (§19.7).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch
from torch import nn

from expressivity.errors import ConfigError
from expressivity.models.readout import real_positions
from expressivity.models.ssm.heads import SELECTIVE
from expressivity.models.ssm.mixers import SelectiveSSM

if TYPE_CHECKING:
    from expressivity.models.config import ModelConfig

__all__ = ["check_step_penalty", "paying_channels", "real_mean", "record_step_sizes",
           "selective_mixers", "step_penalty"]


def selective_mixers(model: nn.Module) -> list[SelectiveSSM]:
    """Every selective mixer (atoms M and MS) of ``model``, in module order."""
    return [m for m in model.modules() if isinstance(m, SelectiveSSM)]


def paying_channels(n_channels: int, channels: float = 1.0) -> int:
    """How many of a mixer's ``n_channels`` channels pay the penalty at the fraction
    ``channels`` ∈ (0, 1]: ⌈channels · n_channels⌉, so at least one pays."""
    if not 0 < channels <= 1:
        raise ValueError(f"channels: {channels!r} is not a fraction in (0, 1]")
    return max(1, math.ceil(channels * n_channels - 1e-9))  # 0.3 · 10 is 3, not 4


def check_step_penalty(penalty: float, config: ModelConfig, cap: float = 0.0, start: int = 0,
                       steps: int | None = None, *, channels: float = 1.0) -> None:
    """A `ConfigError` when a positive ``penalty`` has no selective mixer to act on in the
    model of ``config``, a ``cap``, ``start`` or ``channels`` fraction below 1 qualifies no
    penalty, or the penalty would start at or after the last of ``steps``."""
    qualifiers = (("step_penalty_cap", cap, 0), ("step_penalty_start", start, 0),
                  ("step_penalty_channels", channels, 1))
    for name, value, default in qualifiers:
        if value != default and not penalty:
            raise ConfigError(
                f"train.{name}: {value!r} qualifies a penalty that is off; set "
                f"train.step_penalty > 0 as well, or leave {name} at {default}")
    if penalty and steps is not None and start >= steps:
        raise ConfigError(
            f"train.step_penalty_start: {start} is not before the budget of {steps} steps, so "
            "the penalty would never apply; start it earlier or set train.step_penalty = 0")
    kinds = {a.kind for row in config.layout_spec().layers for p in row for a in p.atoms}
    if penalty > 0 and not kinds & SELECTIVE:
        raise ConfigError(
            f"train.step_penalty: {penalty!r} needs a selective mixer (atom M or MS), and "
            f"layout {config.layout!r} has none; use a layout such as 'mamba' or 'jamba-2', "
            "or set train.step_penalty = 0")


def record_step_sizes(model: nn.Module, on: bool = True) -> None:
    """Make every selective mixer of ``model`` keep its training Δ for `step_penalty` (``on``)
    or keep nothing (each mixer's record is cleared either way)."""
    for mixer in selective_mixers(model):
        mixer.record_steps = on
        mixer.step_sizes = None


def step_penalty(model: nn.Module, lengths: torch.Tensor, *, cap: float = 0.0,
                 channels: float = 1.0) -> torch.Tensor:
    """Mean step size Δ of the last training forward over every selective mixer, paying
    channel and real position (0 ≤ t ≤ length + 1 of each row: BOS, the letters, EOS), taken
    from the mixers (each mixer's record is cleared); with ``cap`` > 0, the mean of
    min(Δ, cap). The paying channels are the first `paying_channels` of each mixer at the
    fraction ``channels`` (1: all). A `RuntimeError` when a mixer kept nothing."""
    kept = []
    for mixer in selective_mixers(model):
        delta = mixer.step_sizes
        mixer.step_sizes = None
        if delta is None:
            raise RuntimeError("step_penalty: a selective mixer kept no step sizes; call "
                               "record_step_sizes(model) and run a forward in training mode")
        delta = delta[..., :paying_channels(delta.shape[-1], channels)]
        kept.append(delta.clamp(max=cap) if cap > 0 else delta)
    if not kept:
        raise RuntimeError("step_penalty: the model has no selective mixer")
    return real_mean(kept, lengths)


def real_mean(values: list[torch.Tensor], lengths: torch.Tensor) -> torch.Tensor:
    """The mean of every entry of the (B, T, E) tensors ``values`` at a real position (0 ≤ t ≤
    length + 1 of each row: BOS, the letters, EOS; padding excluded), pooled over the tensors:
    each mixer's channels count once per real position."""
    total: torch.Tensor | None = None
    count = 0
    for value in values:
        real = real_positions(value.shape[1], lengths.to(value.device)).to(value.dtype)
        part = (value * real.unsqueeze(-1)).sum()
        total = part if total is None else total + part
        count += int(real.sum().item()) * value.shape[2]
    if total is None:
        raise ValueError("real_mean: no values")
    return total / count
