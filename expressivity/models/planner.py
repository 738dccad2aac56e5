"""The head planner: which kernel computes which heads of one attention layer, at one length.

`plan_heads(key)` groups the heads of a layer by pattern and chooses per group the kernel of
`models.attention` / `models.gather`: a group of banded heads (a pattern with a key band)
takes the banded kernel, a group of random-key / global-token heads the gathered-key kernel,
and every other head joins one dense group (masks with the sink rule, ALiBi bias, and a flag
for the key padding that non-causal heads need). "auto" takes the linear-memory kernels from
``banded_min_len`` tokens on, "banded" / "sparse" at every length (`ModelConfig.kernel`).
Plans are cached on their frozen `PlanKey`, so every layer, model and ensemble that asks for
one (patterns, length, device) shares one plan. `models.attend` runs a plan (`attend`,
`attend_rows`); a new head-group kind is built in `_groups` here and applied there (`APPLY`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import torch

from expressivity.layouts.encoders import is_encoder
from expressivity.layouts.mixer import is_mixer
from expressivity.models import masks
from expressivity.models.attention import BandPlan, alibi_bias, band_plan
from expressivity.models.gather import GatherPlan, gather_plan, gatherable
from expressivity.models.layouts import Pattern
from expressivity.models.positions import alibi_slopes

__all__ = ["GroupKind", "HeadGroup", "HeadPlan", "PlanKey", "is_mixer_pattern", "plan_heads"]

#: The kernels a head group can take (the keys of `models.attend.APPLY`).
GroupKind = Literal["dense", "banded", "gather", "mixer", "encoder"]
_PLANS = 64  # plans kept (layers x lengths x devices; evaluation sweeps lengths)


@dataclass(frozen=True)
class PlanKey:
    """Everything a plan depends on: the heads' patterns, the kernel choice and the length.

    ``member_heads`` is the head count of one model: ALiBi slopes repeat every
    ``member_heads`` heads (an ensemble folds its members into the head axis).
    """

    patterns: tuple[Pattern, ...]
    length: int
    device: str = "cpu"
    strict: bool = True
    alibi: bool = False
    kernel: str = "auto"
    banded_min_len: int = 256
    member_heads: int = 0  # 0: all heads are one model's

    @property
    def n_heads(self) -> int:
        """The heads of the plan."""
        return len(self.patterns)

    def slopes(self, heads: tuple[int, ...]) -> torch.Tensor | None:
        """ALiBi slopes of ``heads`` (None without ALiBi)."""
        if not self.alibi:
            return None
        per = self.member_heads or self.n_heads
        return alibi_slopes(per).repeat(self.n_heads // per)[list(heads)].to(self.device)


@dataclass(frozen=True, eq=False)
class HeadGroup:
    """Heads of one layer that share a kernel call at one length."""

    kind: GroupKind
    heads: tuple[int, ...]
    slopes: torch.Tensor | None = None  # ALiBi slopes of ``heads`` (banded, gather)
    mask: torch.Tensor | None = None  # dense: (heads or 1, T, T) bool, sink rule applied
    bias: torch.Tensor | None = None  # dense ALiBi: (heads, T, T)
    causal: bool = True  # dense: False when a key-padding mask is needed
    band: BandPlan | None = None  # banded
    gather: GatherPlan | None = None  # gathered keys (random keys, global tokens)
    patterns: tuple[Pattern, ...] = ()  # encoder: each head's pattern (masks built per string)
    strict: bool = True  # encoder: `ModelConfig.strict` of the causal atoms beside them


@dataclass(frozen=True, eq=False)
class HeadPlan:
    """The groups of one layer at one length; their heads partition ``range(n_heads)``."""

    key: PlanKey
    groups: tuple[HeadGroup, ...]


def is_mixer_pattern(pattern: Pattern) -> bool:
    """A head pattern that is one SSM atom (`layouts.mixer`): a "mixer" group, no attention."""
    return any(is_mixer(a.spec) for a in pattern.atoms)


@lru_cache(maxsize=_PLANS)
def plan_heads(key: PlanKey) -> HeadPlan:
    """The plan of ``key`` (cached: equal keys share one plan and its tensors)."""
    if key.length < 1:
        raise ValueError(f"need length >= 1, got {key.length}")
    return HeadPlan(key, _groups(key))


def _groups(key: PlanKey) -> tuple[HeadGroup, ...]:
    by_pattern: dict[Pattern, list[int]] = {}
    for h, p in enumerate(key.patterns):
        by_pattern.setdefault(p, []).append(h)
    long = key.kernel == "auto" and key.length >= key.banded_min_len
    groups, dense = [], []
    encoder = sorted(h for p, hs in by_pattern.items() if is_encoder(p.atoms) for h in hs)
    if encoder:
        groups.append(_encoder_group(key, tuple(encoder)))
    for pattern, heads in by_pattern.items():
        hs = tuple(heads)
        if is_encoder(pattern.atoms):
            continue
        if is_mixer_pattern(pattern):
            groups.append(HeadGroup("mixer", hs))
        elif gatherable(pattern) and (key.kernel == "sparse" or long):
            plan_g = gather_plan(pattern, key.length, strict=key.strict, device=key.device)
            groups.append(HeadGroup("gather", hs, key.slopes(hs), gather=plan_g))
        elif pattern.band is not None and (key.kernel in ("banded", "sparse") or long):

            def allowed(n: torch.Tensor, m: torch.Tensor, p: Pattern = pattern) -> torch.Tensor:
                return p.allowed(n, m, strict=key.strict)

            plan_b = band_plan(key.length, pattern.band, allowed, device=key.device)
            groups.append(HeadGroup("banded", hs, key.slopes(hs), band=plan_b))
        else:
            dense.extend(heads)
    if dense:
        groups.append(_dense_group(key, tuple(sorted(dense))))
    return tuple(groups)


def _dense_group(key: PlanKey, heads: tuple[int, ...]) -> HeadGroup:
    patterns = [key.patterns[h] for h in heads]
    per_head = [p.mask(key.length, strict=key.strict) for p in patterns]
    same = all(p == patterns[0] for p in patterns)
    mask = (per_head[0][None] if same else torch.stack(per_head)).to(key.device)
    slopes = key.slopes(heads)
    bias = None if slopes is None else alibi_bias(slopes, *masks.grid(key.length, key.device))
    causal = all(p.causal for p in patterns)
    return HeadGroup("dense", heads, slopes, mask=mask, bias=bias, causal=causal)


def _encoder_group(key: PlanKey, heads: tuple[int, ...]) -> HeadGroup:
    """Encoder heads (`layouts.encoders.is_encoder`): one dense call whose masks are built per
    string from its length (global SEP, random blocks; keys never padding)."""
    slopes = key.slopes(heads)
    bias = None if slopes is None else alibi_bias(slopes, *masks.grid(key.length, key.device))
    return HeadGroup("encoder", heads, slopes, bias=bias,
                     patterns=tuple(key.patterns[h] for h in heads), strict=key.strict)

