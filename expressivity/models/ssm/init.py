"""The mixers' initial draws: Mamba's step sizes, S4D's state magnitudes, the fast block.

Every draw takes a `torch.Generator` (no global RNG). Mamba's Δ is log-uniform in
``dt_range`` and floored at `DT_FLOOR` (``mambapy``'s dt_init_floor); with a fast fraction f
the last round(f·E) channels draw Δ log-uniform in ``fast_range`` from the same uniforms, so
f = 0 is bitwise the plain draw (docs/theory.md §19.8); S4D's |Re A| start at 1, 2, …, N
(real) or 1/2 (complex), the first state's times ``slow_scale`` (§19.2).
"""

from __future__ import annotations

import math

import torch
from torch import nn

__all__ = ["DT_FLOOR", "DT_RANGE", "FAST_DT_RANGE", "SLOW_FLOOR", "fast_channels",
           "initial_log_dt", "normal_linear", "s4d_magnitudes", "uniform_"]


def uniform_(t: torch.Tensor, bound: float, gen: torch.Generator) -> None:
    """Fill ``t`` uniformly in [−bound, bound] from ``gen``."""
    with torch.no_grad():
        t.copy_(torch.empty(t.shape).uniform_(-bound, bound, generator=gen))


def normal_linear(layer: nn.Linear, gen: torch.Generator, std: float) -> None:
    """``layer``'s weight normal with standard deviation ``std`` from ``gen``, its bias 0."""
    with torch.no_grad():
        layer.weight.copy_(torch.empty(layer.weight.shape).normal_(0.0, std, generator=gen))
        if layer.bias is not None:
            layer.bias.zero_()


#: Mamba's initial range of the step sizes Δ (dt_min, dt_max); `ModelConfig.ssm_dt_min/max`
DT_RANGE = (1e-3, 1e-1)
#: mambapy's floor on an initial Δ (dt_init_floor): no Δ starts below it
DT_FLOOR = 1e-4
#: the default range of the fast block's initial Δ (`ModelConfig.ssm_fast_fraction`): a real
#: gate exp(−Δ·n) from e^−1 down to e^−40, around Theorem 16.4's delay gate 2^−8 (Δ ≈ 5.5)
FAST_DT_RANGE = (1.0, 10.0)


#: the least `ModelConfig.ssm_slow_scale`: a first state's |A| is S4D's times at least this
SLOW_FLOOR = 1e-6


def s4d_magnitudes(d_state: int, slow_scale: float = 1.0, *, complex_: bool = False
                   ) -> torch.Tensor:
    """The initial |Re A| of a channel's ``d_state`` states: S4D-real's 1, 2, …, N (Mamba), or
    S4D-Lin's 1/2 for every state (``complex_``), with the first state's multiplied by
    ``slow_scale`` (1 keeps S4D's; 1e-3 starts a slow state, gate exp(−Δ·|A|) near 1 for
    thousands of letters at Mamba's Δ, docs/theory.md §19.2)."""
    n = torch.arange(1, d_state + 1, dtype=torch.float32)
    magnitudes = torch.full_like(n, 0.5) if complex_ else n
    magnitudes[0] = magnitudes[0] * slow_scale
    return magnitudes


def _log_uniform(u: torch.Tensor, lo: float, hi: float) -> torch.Tensor:
    return torch.exp(u * (math.log(hi) - math.log(lo)) + math.log(lo)).clamp(min=DT_FLOOR)


def fast_channels(n: int, fast_fraction: float) -> int:
    """How many of ``n`` channels form the fast block: round(fraction · n), the last ones."""
    return round(fast_fraction * n)


def initial_log_dt(n: int, gen: torch.Generator, dt_range: tuple[float, float] = DT_RANGE,
            fast_fraction: float = 0.0, fast_range: tuple[float, float] = FAST_DT_RANGE
            ) -> torch.Tensor:
    """Mamba's Δ initialisation: log-uniform in [lo, hi], floored at `DT_FLOOR`, returned as
    softplus⁻¹(Δ); the last `fast_channels` channels log-uniform in ``fast_range`` instead,
    from the same uniform draws (so a fraction of 0 is bitwise Mamba's)."""
    u = torch.rand(n, generator=gen)
    dt = _log_uniform(u, *dt_range)
    k = fast_channels(n, fast_fraction)
    if k:
        dt[n - k:] = _log_uniform(u[n - k:], *fast_range)
    return dt + torch.log(-torch.expm1(-dt))
