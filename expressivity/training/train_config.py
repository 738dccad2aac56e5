"""`TrainConfig`: the optimisation and evaluation settings of one run."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

from expressivity.errors import ConfigError

Schedule = Literal["constant", "cosine"]
#: How the plateau rule decides that a validation made no progress (`training.loop`).
PlateauRule = Literal["gain", "improving"]
Batching = Literal["bucketed", "uniform"]
PenaltyForm = Literal["step", "forget"]
#: What a step size costs (`training.step_penalty`): "step" (Δ itself, min(Δ, cap) with a cap)
#: or "forget" (what it makes the state forget, 1 − |g|, averaged over the channel's states).
FORMS: tuple[PenaltyForm, ...] = get_args(PenaltyForm)
WriteForm = Literal["l1", "ratio"]
#: What a write costs (`training.write_penalty`): "l1" (its size) or "ratio" (each channel's
#: ‖w‖₁/(√n ‖w‖₂) over the batch's real positions, a sparsity that shrinking does not pay).
WRITE_FORMS: tuple[WriteForm, ...] = get_args(WriteForm)
BATCHINGS: tuple[Batching, ...] = get_args(Batching)
SCHEDULES: tuple[Schedule, ...] = get_args(Schedule)
PLATEAU_RULES: tuple[PlateauRule, ...] = get_args(PlateauRule)
#: the settings that take one of a few words, with the words each takes (checked in one place)
CHOICES: dict[str, tuple[str, ...]] = {
    "schedule": SCHEDULES, "plateau_rule": PLATEAU_RULES, "batching": BATCHINGS,
    "step_penalty_form": FORMS, "write_penalty_form": WRITE_FORMS,
}


#: Largest step budget a run accepts (the paper protocol takes 10^6).
MAX_STEPS = 10**9


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation and evaluation settings of one run (AdamW)."""

    lr: float = 3e-4  # peak learning rate
    schedule: Schedule = "cosine"  # "constant" or linear warmup + cosine decay
    warmup_steps: int = 100  # linear warmup length (both schedules)
    #: the first step of the cosine decay: the rate stays at ``lr`` from the warmup's end until
    #: this step, then falls by a cosine to zero at ``steps`` (warmup-stable-decay); 0 (default):
    #: the decay starts where the warmup ends; refused under the schedule "constant" and at or
    #: after the step budget
    decay_start: int = 0
    steps: int = 2000  # step budget
    batch_size: int = 64
    weight_decay: float = 0.01
    grad_clip: float = 1.0  # max global gradient norm (0 disables clipping)
    eval_every: int = 250  # validation interval in steps
    patience: int = 2  # stop after this many consecutive perfect validations (0: never stop early)
    #: the last step whose validation does not count towards ``patience``: only validations
    #: after it can stop a run (a run trained under a late penalty keeps its penalty's first
    #: steps, `training.stopping.counts_for_patience`); 0 (default): every validation counts
    patience_start: int = 0
    #: stop after this many consecutive validations that do not raise the best mean validation
    #: accuracy by at least ``plateau_delta`` (0: never; a run that stalls gives up its budget)
    plateau: int = 0
    plateau_delta: float = 0.01
    #: "gain": a validation is stale unless it raises the best mean validation accuracy by
    #: plateau_delta (a run that improves slowly is stopped); "improving": stale only if it
    #: raises that best by nothing at all *and* its mean training loss is not below
    #: (1 - plateau_delta) times the lowest one so far, so a run still improving is never stopped
    plateau_rule: PlateauRule = "gain"
    #: strings per evaluation batch (length-sorted); the CPU profiles take 64, measured fastest
    #: on lengths up to 500 (benchmarks/sweep.py) with the same decisions as larger batches
    eval_batch_size: int = 256
    threads: int = 1  # CPU threads offered to the run (the model computes on one: training.loop)
    device: str = "cpu"  # "cpu", "cuda" or "cuda:N"
    checkpoint_every: int = 0  # steps between resumable checkpoints (0: only at the end)
    #: training batches (`training.batching`): "uniform" draws them regardless of length,
    #: "bucketed" groups strings of similar length (lengths // bucket_width): a 1.3x faster
    #: step, but other batches, so other weights and, in seed-fragile cells, other verdicts
    batching: Batching = "uniform"
    bucket_width: int = 8  # lengths per bucket of the bucketed sampler
    #: λ of the step-size penalty (`training.step_penalty`): the loss adds λ times the mean
    #: step size Δ of the selective mixers (M, MS) over every real position and channel, so a
    #: channel writes (and forgets) only where the data ask it to; 0 (default) adds nothing
    step_penalty: float = 0.0
    #: the capped penalty (capped L1): each step size counts min(Δ, cap), so a Δ above the cap
    #: (an event: a reset, or a signed mixer's flip) costs the cap and has no gradient from the
    #: penalty, while every Δ below it is pulled towards 0 as before; 0 (default): no cap
    step_penalty_cap: float = 0.0
    #: the first (0-based) step whose loss adds the penalty: the steps before it train on the
    #: data loss alone, so a channel can grow the large steps it needs (a counter's flips)
    #: before the small ones are pulled down; 0 (default): from the first step
    step_penalty_start: int = 0
    #: the fraction f of each selective mixer's channels the penalty counts: the first ⌈f·E⌉
    #: of its E channels pay, the rest train on the data loss alone, free to take the large
    #: steps a counter's flips need (docs/theory.md §19.7); 1 (default): every channel
    step_penalty_channels: float = 1.0
    #: what a step size costs (`FORMS`): "step" (default), Δ itself;
    #: "forget", what it makes the state forget, 1 − |gate| averaged over the channel's
    #: states, 0 at a hold and at a signed mixer's exact flip (docs/theory.md §19.10)
    step_penalty_form: PenaltyForm = "step"
    #: λ of the write penalty (`training.write_penalty`): the loss adds λ times the mean write
    #: size Σ_n |Δ B_n u_t| of the time-invariant mixers (SD, SDC) over every real position and
    #: channel, so a channel writes only at the letters the data ask it to count (docs/theory.md
    #: §19.9); 0 (default) adds nothing
    write_penalty: float = 0.0
    #: the first (0-based) step whose loss adds the write penalty: the steps before it train on
    #: the data loss alone, so the mixers fit their words before the writes are pulled towards
    #: 0 (from the first step the L1 silences the input projection, §19.9); 0 (default): from
    #: the first step
    write_penalty_start: int = 0
    #: what a write costs (`WRITE_FORMS`): "l1" (default), its size; "ratio", each channel's
    #: ‖w_e‖₁/(√n ‖w_e‖₂) over the batch's n real positions, in (0, 1], the same for u_e and
    #: c·u_e, so the penalty cannot be paid by shrinking the writes (docs/theory.md §19.11)
    write_penalty_form: WriteForm = "l1"

    def __post_init__(self) -> None:
        _positive(self, "lr", "steps", "batch_size", "eval_every", "eval_batch_size", "threads",
                  "bucket_width")
        for name, choices in CHOICES.items():
            if getattr(self, name) not in choices:
                raise ConfigError(f"{name}: {getattr(self, name)!r} is not one of "
                                  f"{', '.join(map(repr, choices))}")
        if self.steps > MAX_STEPS:
            raise ConfigError(
                f"steps: at most {MAX_STEPS:,} (limit MAX_STEPS in "
                f"expressivity/training/train_config.py), got {self.steps:,}; "
                "the paper protocol takes 1,000,000"
            )
        _non_negative(
            self, "warmup_steps", "weight_decay", "grad_clip", "patience", "patience_start",
            "checkpoint_every",
            "plateau", "plateau_delta", "step_penalty", "step_penalty_cap", "step_penalty_start",
            "write_penalty", "write_penalty_start", "decay_start",
        )
        if self.decay_start and self.schedule != "cosine":
            raise ConfigError(
                f"decay_start: {self.decay_start} starts a cosine decay, and the schedule is "
                f"{self.schedule!r}; set schedule = 'cosine' as well, or leave decay_start at 0")
        if self.decay_start and self.decay_start >= self.steps:
            raise ConfigError(
                f"decay_start: {self.decay_start} is not before the budget of {self.steps} steps, "
                "so the rate would never decay; start it earlier or use the schedule 'constant'")
        if self.patience_start and not self.patience:
            raise ConfigError(
                f"patience_start: {self.patience_start} delays the patience rule, which is off "
                "(patience = 0); set patience as well, or leave patience_start at 0")
        if self.patience_start and self.patience_start >= self.steps:
            raise ConfigError(
                f"patience_start: {self.patience_start} is not before the budget of {self.steps} "
                "steps, so no validation could stop the run; start it earlier or set patience = 0")
        if not math.isfinite(self.step_penalty):
            raise ConfigError(f"step_penalty: must be a finite number, got {self.step_penalty!r}")
        if not math.isfinite(self.write_penalty):
            raise ConfigError(f"write_penalty: must be a finite number, got {self.write_penalty!r}")
        if not math.isfinite(self.step_penalty_cap):
            raise ConfigError("step_penalty_cap: must be a finite number (0 for no cap), got "
                              f"{self.step_penalty_cap!r}")
        if not 0 < self.step_penalty_channels <= 1:  # NaN fails the comparison too
            raise ConfigError("step_penalty_channels: must be a fraction in (0, 1] of each "
                              f"selective mixer's channels, got {self.step_penalty_channels!r}")
        if not (self.device == "cpu" or self.device.startswith("cuda")):
            raise ConfigError(f"device: {self.device!r} is not 'cpu', 'cuda' or 'cuda:N'")


def _positive(obj: object, *names: str) -> None:
    for name in names:
        if not getattr(obj, name) > 0:
            raise ConfigError(f"{name}: must be > 0, got {getattr(obj, name)!r}")


def _non_negative(obj: object, *names: str) -> None:
    for name in names:
        if getattr(obj, name) < 0:
            raise ConfigError(f"{name}: must be >= 0, got {getattr(obj, name)!r}")
