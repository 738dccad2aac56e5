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

In the form "forget" (``train.step_penalty_form``) a step size counts what it makes the state
forget instead of its size: the mean over the channel's states of 1 − |g|, g = exp(−Δ|A_n|)
(or 2·exp(−Δ|A_n|) − 1 for a signed mixer), with A held (detached), so the gradient reaches
Δ only, as in the form "step". It is 0 at a hold (g = 1) and at an exact flip (g = −1), the
gates of a latch and of a parity counter, and 1 at a reset (g = 0): for a signed mixer it pulls
Δ towards 0 below Δ|A| = ln 2 and towards a flip above it (docs/theory.md §19.10); for an
unsigned one it is a smooth cap, 1 − exp(−Δ|A|) ≤ 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
from torch import nn

from expressivity.errors import ConfigError
from expressivity.models.readout import real_positions
from expressivity.models.ssm.heads import SELECTIVE
from expressivity.models.ssm.mixers import SelectiveSSM, signed_gate
from expressivity.training.train_config import FORMS

if TYPE_CHECKING:
    from expressivity.models.config import ModelConfig

__all__ = ["atom_kinds", "check_penalty_terms", "check_step_penalty", "forgetting",
           "paying_channels", "real_mean", "record_step_sizes", "selective_mixers",
           "step_penalty"]


def selective_mixers(model: nn.Module) -> list[SelectiveSSM]:
    """Every selective mixer (atoms M and MS) of ``model``, in module order."""
    return [m for m in model.modules() if isinstance(m, SelectiveSSM)]


def paying_channels(n_channels: int, channels: float = 1.0) -> int:
    """How many of a mixer's ``n_channels`` channels pay the penalty at the fraction
    ``channels`` ∈ (0, 1]: ⌈channels · n_channels⌉, so at least one pays."""
    if not 0 < channels <= 1:
        raise ValueError(f"channels: {channels!r} is not a fraction in (0, 1]")
    return max(1, math.ceil(channels * n_channels - 1e-9))  # 0.3 · 10 is 3, not 4


def check_penalty_terms(name: str, penalty: float, qualifiers: Sequence[tuple[str, object, object]],
                        start: int, steps: int | None) -> None:
    """A `ConfigError` when one of ``qualifiers`` ((key, value, default) of ``train.<key>``)
    is not at its default while the penalty ``train.<name>`` is off, or the penalty would
    start at ``start`` at or after the last of ``steps``: the checks every penalty shares."""
    for key, value, default in qualifiers:
        if value != default and not penalty:
            raise ConfigError(
                f"train.{key}: {value!r} qualifies a penalty that is off; set "
                f"train.{name} > 0 as well, or leave {key} at {default}")
    if penalty and steps is not None and start >= steps:
        raise ConfigError(
            f"train.{name}_start: {start} is not before the budget of {steps} steps, so "
            f"the penalty would never apply; start it earlier or set train.{name} = 0")


def atom_kinds(config: ModelConfig) -> frozenset[str]:
    """The atom kinds of every layer of ``config``'s layout."""
    return frozenset(a.kind for row in config.layout_spec().layers for p in row for a in p.atoms)


def check_step_penalty(penalty: float, config: ModelConfig, cap: float = 0.0, start: int = 0,
                       steps: int | None = None, *, channels: float = 1.0,
                       form: str = "step") -> None:
    """A `ConfigError` when a positive ``penalty`` has no selective mixer to act on in the
    model of ``config``, a ``cap``, ``start``, ``channels`` fraction below 1 or ``form``
    other than "step" qualifies no penalty, a cap is given to the form "forget" (bounded by 1
    already), or the penalty would start at or after the last of ``steps``."""
    if form not in FORMS:
        raise ConfigError(f"train.step_penalty_form: {form!r} is not one of {', '.join(FORMS)}")
    if form == "forget" and cap:
        raise ConfigError(
            f"train.step_penalty_cap: {cap!r} caps the form 'step'; the form 'forget' costs at "
            "most 1 per state already, so leave step_penalty_cap at 0 or use the form 'step'")
    qualifiers = (("step_penalty_cap", cap, 0), ("step_penalty_start", start, 0),
                  ("step_penalty_channels", channels, 1), ("step_penalty_form", form, "step"))
    check_penalty_terms("step_penalty", penalty, qualifiers, start, steps)
    if penalty > 0 and not atom_kinds(config) & SELECTIVE:
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


def forgetting(mixer: SelectiveSSM, delta: torch.Tensor) -> torch.Tensor:
    """What the step sizes ``delta`` (B, T, E) make ``mixer``'s states forget: the mean over
    each channel's states n of 1 − |g_n|, g_n = exp(−Δ|A_n|) (signed: 2·exp(−Δ|A_n|) − 1),
    with A held (detached). (B, T, E), each entry in [0, 1]."""
    decay = torch.exp(delta.unsqueeze(-1) * -torch.exp(mixer.A_log.detach()[:delta.shape[-1]]))
    gate = signed_gate(decay) if mixer.signed else decay
    return (1 - gate.abs()).mean(-1)


def step_penalty(model: nn.Module, lengths: torch.Tensor, *, cap: float = 0.0,
                 channels: float = 1.0, form: str = "step") -> torch.Tensor:
    """Mean step size Δ of the last training forward over every selective mixer, paying
    channel and real position (0 ≤ t ≤ length + 1 of each row: BOS, the letters, EOS), taken
    from the mixers (each mixer's record is cleared); with ``cap`` > 0, the mean of
    min(Δ, cap); in the ``form`` "forget", the mean of `forgetting` instead. The paying
    channels are the first `paying_channels` of each mixer at the fraction ``channels``
    (1: all). A `RuntimeError` when a mixer kept nothing."""
    if form not in FORMS:
        raise ValueError(f"step_penalty: form {form!r} is not one of {FORMS}")
    kept = []
    for mixer in selective_mixers(model):
        delta = mixer.step_sizes
        mixer.step_sizes = None
        if delta is None:
            raise RuntimeError("step_penalty: a selective mixer kept no step sizes; call "
                               "record_step_sizes(model) and run a forward in training mode")
        delta = delta[..., :paying_channels(delta.shape[-1], channels)]
        if form == "forget":
            kept.append(forgetting(mixer, delta))
        else:
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
