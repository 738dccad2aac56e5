"""Compute estimates for a dry run: optimizer steps, tokens, FLOPs and hours from the step budget.

Per run: training tokens = steps × batch × (mean training length + 2 for BOS/EOS), and the
test set's tokens (every test length × strings per length). A forward pass over a string of n
tokens costs about n · (2 · parameters + 2 · layers · width · n) FLOPs (weights plus causal
attention); a training step three forward passes' worth (validation and adversarial sets are
left out: they are small beside these). The step budget is an upper bound: early stopping
ends easy runs sooner. Hours are given at `REFERENCE_FLOPS_PER_CORE` on CPU cores, at the
measured throughput when the store holds completed runs of the same profiles, and, given a
``rate`` in runs·steps per second (what `benchmarks/ensemble.py` prints for a machine, e.g. a
GPU), as wall-clock hours on that machine: budget steps / rate.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from expressivity.training.spec import RunSpec

__all__ = ["REFERENCE_FLOPS_PER_CORE", "ComputeEstimate", "estimate_compute", "member_memory_bytes"]

#: Effective training FLOP/s of one CPU core on these small models: the `paper` preset
#: (≈ 0.25 M parameters) trains at about 20 k tokens/s on 2 threads (issue 10's baseline),
#: 6 · 0.25e6 · 2e4 / 2 ≈ 1.5e10.
REFERENCE_FLOPS_PER_CORE = 1.5e10


@dataclass(frozen=True)
class ComputeEstimate:
    """Totals over a list of runs."""

    runs: int
    steps: int  # optimizer steps, the budget (early stopping makes it an upper bound)
    train_tokens: float
    eval_tokens: float
    flops: float
    parameters: tuple[tuple[str, int], ...]  # profile → approximate parameter count
    cpu_core_hours: float  # at REFERENCE_FLOPS_PER_CORE
    measured_hours: float | None = None  # at the store's measured tokens/s (same profiles)
    groups: tuple[int, ...] = ()  # members of each ensemble the runs are trained in
    rate: float | None = None  # runs·steps per second of the target machine (benchmarked)

    def text(self) -> str:
        """A few human-readable lines."""
        params = ", ".join(f"{p}: {n / 1e6:.2f} M parameters" for p, n in self.parameters)
        lines = [
            f"compute estimate for {self.runs} runs ({params or 'no runs'}):",
            f"  optimizer steps  {self.steps:,} (budget; early stopping ends easy runs sooner)",
            f"  tokens           {self.train_tokens:.3g} training, "
            f"{self.eval_tokens:.3g} evaluation",
            f"  FLOPs            {self.flops:.3g} (training ≈ 3 forward passes per string)",
            f"  CPU              {self.cpu_core_hours:,.1f} core-hours at "
            f"{REFERENCE_FLOPS_PER_CORE:.2g} FLOP/s per core",
        ]
        if self.groups and max(self.groups) > 1:
            lines.append(
                f"  ensembles        {len(self.groups)} of {self.runs / len(self.groups):.1f} "
                "members on average (the hours above are for runs one by one)"
            )
        if self.rate is not None:
            lines.append(
                f"  at your rate     {self.steps / self.rate / 3600:,.1f} hours at "
                f"{self.rate:g} runs·steps/s (budget steps / rate; benchmarks/ensemble.py "
                "measures the rate of a machine)"
            )
        if self.measured_hours is not None:
            lines.append(
                f"  measured         {self.measured_hours:,.1f} run-hours at the tokens/s "
                "of completed runs in the store"
            )
        return "\n".join(lines)


@cache
def _shape(profile: str, layout: str, model: str, data: str) -> tuple[int, float, float, float]:
    """(parameters, training FLOPs per sample, FLOPs and tokens of one evaluation) of a config."""
    from expressivity.training.profiles import get_profile

    prof = get_profile(profile)
    m = prof.model_config(layout, json.loads(model))
    d = prof.split_config(json.loads(data))
    width, layers = m.d_model, m.n_layers
    params = layers * (4 * width * width + 2 * width * m.d_ff + 9 * width) + 8 * width

    def forward(n: float) -> float:  # FLOPs of one string of n tokens: weights + causal attention
        return n * (2 * params + 2 * layers * width * n)

    lo, hi = d.train_lengths
    t_lo, t_hi = d.test_lengths
    tests = range(t_lo, t_hi + 1)
    eval_flops = sum(d.test_per_length * forward(n + 2) for n in tests)
    eval_tokens = sum(d.test_per_length * (n + 2) for n in tests)
    return params, 3 * forward((lo + hi) / 2 + 2), float(eval_flops), float(eval_tokens)


def estimate_compute(
    runs: Sequence[RunSpec], store: Any = None, *, groups: Sequence[int] = (),
    rate: float | None = None,
) -> ComputeEstimate:
    """Totals for ``runs``; ``store`` (a `ResultsStore`) supplies measured throughput if any;
    ``groups`` are the sizes of the ensembles the runs train in; ``rate`` (runs·steps per
    second, > 0) adds the hours on a benchmarked machine."""
    if rate is not None and not rate > 0:
        from expressivity.errors import ConfigError

        raise ConfigError(f"rate: runs·steps per second must be > 0, got {rate!r}")
    steps = 0
    train_tokens = eval_tokens = flops = 0.0
    params: dict[str, int] = {}
    tokens_by_profile: dict[str, float] = {}
    for spec in runs:
        key = (json.dumps(spec.model, sort_keys=True), json.dumps(spec.data, sort_keys=True))
        p, per_sample, ev_flops, ev_tokens = _shape(spec.profile, spec.layout, *key)
        params[spec.profile] = p
        lo, hi = _train_lengths(spec)
        tokens = spec.train.steps * spec.train.batch_size * ((lo + hi) / 2 + 2)
        steps += spec.train.steps
        train_tokens += tokens
        eval_tokens += ev_tokens
        flops += spec.train.steps * spec.train.batch_size * per_sample + ev_flops
        tokens_by_profile[spec.profile] = tokens_by_profile.get(spec.profile, 0.0) + tokens
    return ComputeEstimate(
        runs=len(runs),
        steps=steps,
        train_tokens=train_tokens,
        eval_tokens=eval_tokens,
        flops=flops,
        parameters=tuple(sorted(params.items())),
        cpu_core_hours=flops / REFERENCE_FLOPS_PER_CORE / 3600,
        measured_hours=_measured_hours(tokens_by_profile, store),
        groups=tuple(groups),
        rate=rate,
    )


def _train_lengths(spec: RunSpec) -> tuple[int, int]:
    return _lengths_of(spec.profile, json.dumps(spec.data, sort_keys=True))


@lru_cache(maxsize=1024)
def _lengths_of(profile: str, data: str) -> tuple[int, int]:
    from expressivity.training.profiles import get_profile

    lo, hi = get_profile(profile).split_config(json.loads(data)).train_lengths
    return int(lo), int(hi)


def _measured_hours(tokens: dict[str, float], store: Any) -> float | None:
    if store is None or not tokens:
        return None
    runs = store.runs()
    done = runs[(runs["status"] == "completed") & (runs["tokens_per_second"] > 0)]
    hours = 0.0
    for profile, n in tokens.items():
        rates = done.loc[done["profile"] == profile, "tokens_per_second"].dropna()
        if rates.empty:
            return None
        hours += n / statistics.median(rates.tolist()) / 3600
    return hours


def member_memory_bytes(spec: RunSpec) -> float:
    """Rough training memory of one run as an ensemble member, in bytes (float32).

    Parameters, gradients and two AdamW moments (4 copies), plus the activations kept for
    the backward pass of one batch of the longest training strings: per layer and token about
    ``16 · width + 2 · d_ff`` values and ``3 · heads · tokens`` attention scores and masks.
    An estimate that errs high; `sweeps.ensembles` halves a group that runs out of memory.
    """
    from expressivity.training.profiles import get_profile

    prof = get_profile(spec.profile)
    m = prof.model_config(spec.layout, spec.model)
    tokens = int(prof.split_config(spec.data).train_lengths[1]) + 2
    params, *_ = _shape(spec.profile, spec.layout, json.dumps(spec.model, sort_keys=True),
                        json.dumps(spec.data, sort_keys=True))
    per_token = m.n_layers * (16 * m.d_model + 2 * m.d_ff + 3 * m.n_heads * tokens)
    return 4.0 * (4 * params + spec.train.batch_size * tokens * per_token)
