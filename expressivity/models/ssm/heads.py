"""SSM head groups of a layer: which mixer module a layout's SSM atom builds, at which width.

A layer's heads are grouped by pattern; a group of ``c`` heads whose pattern is one SSM atom
(``M``, ``MS``, ``SD``, ``SDC``, ``DR``; docs/theory.md §14) is one mixer module that reads
the layer's input (d_model) and writes ``c · d_head`` channels into those heads' slots, which
the layer's output projection mixes with the attention heads' outputs like any head.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torch import nn

from expressivity.errors import ConfigError
from expressivity.models.ssm.init import DT_RANGE, FAST_DT_RANGE
from expressivity.models.ssm.mixers import DeltaRule, DiagonalSSM, SelectiveSSM

__all__ = ["MIXERS", "SELECTIVE", "make_mixer", "mixer_kind"]

#: Every SSM atom letter and what it builds.
MIXERS = {
    "M": "selective SSM, gates in (0, 1) (Mamba)",
    "MS": "selective SSM, gates in (-1, 1) (sign-flipping, Grazzi et al.)",
    "SD": "time-invariant diagonal SSM, real (S4D)",
    "SDC": "time-invariant diagonal SSM, complex (S4D-Lin)",
    "DR": "gated delta rule, beta in (0, 2) (DeltaNet with negative eigenvalues)",
}
#: The selective mixers (`SelectiveSSM`): their step size Δ depends on the input.
SELECTIVE = frozenset({"M", "MS"})


def mixer_kind(atoms: Sequence[Any]) -> str | None:
    """The SSM atom of a head pattern (its atoms' ``kind`` letters), None for attention; a
    `ConfigError` when an SSM atom shares the pattern with another atom."""
    kinds = [a.kind for a in atoms if a.kind in MIXERS]
    if not kinds:
        return None
    if len(atoms) > 1:
        raise ConfigError(f"layout: the SSM atom {kinds[0]} is a head pattern of its own; "
                          f"'{'+'.join(str(a) for a in atoms)}' unites it with another atom "
                          "(write them as separate head groups, e.g. 4xM,4xL1)")
    return kinds[0]


def make_mixer(kind: str, d_model: int, width: int, *, d_state: int, expand: int,
               d_head: int, dt_range: tuple[float, float] = DT_RANGE,
               slow_scale: float = 1.0, fast_fraction: float = 0.0,
               fast_range: tuple[float, float] = FAST_DT_RANGE,
               s4d_output: str = "linear") -> nn.Module:
    """The mixer of atom ``kind`` from d_model to ``width`` channels (``d_state`` states per
    channel, inner width ``expand · d_model``, initial Δ log-uniform in ``dt_range``, that of a
    fast block of a ``fast_fraction`` of the channels in ``fast_range``, the first state's
    initial |A| times ``slow_scale``; an S4D mixer's output map ``s4d_output``; the delta
    rule: ``width / d_head`` heads, no Δ and no A)."""
    if kind in ("M", "MS"):
        return SelectiveSSM(d_model, width, d_state=d_state, expand=expand, signed=kind == "MS",
                            dt_range=dt_range, slow_scale=slow_scale,
                            fast_fraction=fast_fraction, fast_range=fast_range)
    if kind in ("SD", "SDC"):
        return DiagonalSSM(d_model, width, d_state=d_state, expand=expand,
                           complex_=kind == "SDC", dt_range=dt_range, slow_scale=slow_scale,
                           fast_fraction=fast_fraction, fast_range=fast_range,
                           output=s4d_output)
    if kind == "DR":
        return DeltaRule(d_model, width, n_heads=max(1, width // d_head), d_head=d_head)
    raise ConfigError(f"unknown SSM atom {kind!r}; choose one of {', '.join(MIXERS)}")
