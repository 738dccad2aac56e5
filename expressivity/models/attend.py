"""Running a head plan: every group's kernel on its heads, scaled, scattered into head order.

`attend(q, k, v, plan, lengths)` runs a plan of `models.planner`: every group's kernel on its
heads, with the length-aware scaling of `models.scaling` (gathered-key heads too,
`gather_key_counts`: before the planner they were left unscaled, a bug), and the groups'
outputs scattered back into head order. `attend_rows` is the one-query-row-per-sequence
variant of the last layer. A single model and an ensemble (members folded into the head axis,
``member_heads`` heads each) use the same two calls, so an ensemble member computes exactly
what its single model computes.

Extension point (non-attention heads, e.g. state-space mixers). A head group has a ``kind``;
`APPLY` maps each kind to its apply function ``(group, inputs) -> (B, len(heads), T, D)``,
where `HeadInputs` holds the layer's ``q, k, v``, key lengths, SSMax scales and, for mixers
that read the layer input, ``x`` (B, T, d_model). A new kind (say ``"ssm"``) costs: a
`HeadGroup` built for it in `models.planner._groups` (from a new predicate on the pattern),
and an entry in `APPLY`; it must be causal (row n reads positions <= n only) for
`attend_rows` to stay valid, or `attend_rows` must fall back to `attend` and pick the rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import torch

from expressivity.models import masks
from expressivity.models.attention import alibi_bias, banded_attention, dense_attention
from expressivity.models.gather import GatherPlan, gather_attention
from expressivity.models.layouts import Pattern
from expressivity.models.planner import HeadGroup, HeadPlan, PlanKey, is_mixer_pattern, plan_heads
from expressivity.models.scaling import (
    band_key_counts,
    length_factor,
    mask_key_counts,
    scale_queries,
)

__all__ = ["APPLY", "HeadInputs", "attend", "attend_rows", "gather_key_counts", "select_heads"]


@dataclass(frozen=True, eq=False)
class HeadInputs:
    """What a group's apply function may read.

    ``q, k, v``: (B, H, T, D); ``lengths``: word lengths (B,) for one model or (B, H) per head
    (an ensemble's members have their own batches); ``scale``: SSMax's s per head (H,) or
    None; ``x``: the layer input (B, T, d_model) for mixers that read it, else None.
    """

    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    lengths: torch.Tensor
    scale_mode: str = "none"
    scale: torch.Tensor | None = None
    x: torch.Tensor | None = None
    #: SSM head groups (docs/theory.md §14): the heads of a "mixer" group -> its mixer, a
    #: causal map of the layer input (B, T, d_model) to (B, T, len(heads) * D)
    mixers: Mapping[tuple[int, ...], Callable[[torch.Tensor], torch.Tensor]] | None = None


def encoder_masks(group: HeadGroup, lengths: torch.Tensor, length: int, n_heads: int
                  ) -> torch.Tensor:
    """(B, heads or 1, T, T) masks of an encoder group for word ``lengths`` (B,) or per head
    (B, H): each string's own mask (`Pattern.mask` at its N + 2 tokens, cached per length) in
    the top-left corner, and every padding row reading BOS only (the sink rule), so no key is
    padding and no row is empty."""
    shared = lengths.dim() == 1  # one model: heads of one pattern share a mask
    per_head = (lengths[:, None].expand(-1, n_heads) if shared else lengths)
    per_head = select_heads(per_head[:, :, None], group.heads, n_heads)[:, :, 0]  # (B, heads)
    built: dict[tuple[Pattern, int], torch.Tensor] = {}
    out = []
    for j, pattern in enumerate(group.patterns):
        slot = (pattern, -1 if shared else j)
        if slot not in built:
            built[slot] = _string_masks(pattern, per_head[:, j] + 2, length, group.strict)
        out.append(built[slot])
    if len(built) == 1:  # one mask for every head: broadcast it (B, 1, T, T), no copies
        return out[0][:, None]
    return torch.stack(out, dim=1)


def _string_masks(pattern: Pattern, tokens: torch.Tensor, length: int, strict: bool
                  ) -> torch.Tensor:
    """(B, T, T): string b's own (t, t) mask for its ``tokens[b] = t``, padding rows -> BOS."""
    out = torch.zeros(len(tokens), length, length, dtype=torch.bool, device=tokens.device)
    out[:, :, 0] = True  # padding rows read BOS only (overwritten on the real rows below)
    for t in sorted(set(tokens.tolist())):
        which = tokens == t
        out[which, :t, :t] = _own_mask(pattern, t, strict).to(tokens.device)
    return out


@lru_cache(maxsize=2048)
def _own_mask(pattern: Pattern, tokens: int, strict: bool) -> torch.Tensor:
    """One string's mask at ``tokens`` tokens, kept for every length an evaluation visits."""
    return pattern.mask(tokens, strict=strict)


def _apply_encoder(group: HeadGroup, inputs: HeadInputs) -> torch.Tensor:
    n_heads = inputs.q.shape[1]
    q, k, v = (select_heads(t, group.heads, n_heads) for t in (inputs.q, inputs.k, inputs.v))
    mask = encoder_masks(group, inputs.lengths, inputs.k.shape[2], n_heads)
    q = _scaled(q, lambda: mask_key_counts(mask), group, inputs, n_heads)
    return dense_attention(q, k, v, mask, group.bias, check_empty=False)


def select_heads(t: torch.Tensor, heads: tuple[int, ...] | list[int], n_heads: int
                 ) -> torch.Tensor:
    """Axis 1 of ``t`` restricted to ``heads`` (a view when they are contiguous)."""
    if len(heads) == n_heads:
        return t
    if list(heads) == list(range(heads[0], heads[0] + len(heads))):
        return t[:, heads[0] : heads[0] + len(heads)]
    return t[:, list(heads)]


def _key_ok(group: HeadGroup, inputs: HeadInputs) -> torch.Tensor:
    """Keys up to each row's EOS: (B, 1, T) from (B,) lengths, or (B, heads, T) of the
    group's heads from per-head lengths (B, H)."""
    lengths, length = inputs.lengths, inputs.k.shape[2]
    ok = torch.arange(length, device=lengths.device) <= (lengths + 1)[..., None]
    if lengths.dim() == 1:
        return ok[:, None]
    return select_heads(ok, group.heads, inputs.q.shape[1])


def _scaled(q: torch.Tensor, counts: Callable[[], torch.Tensor], group: HeadGroup,
            inputs: HeadInputs, n_heads: int) -> torch.Tensor:
    """``q`` of a group with each row times log N (times s_h for SSMax); ``q`` itself when
    attention_scale is "none". ``counts()``: keys per row as the kernel's mask gives them,
    computed only when a scale needs them (a (B, H, T, T) mask's count is half an encoder's
    evaluation otherwise: benchmarks/eval_scale.py)."""
    if inputs.scale_mode == "none":
        return q
    s = inputs.scale
    s_heads = None if s is None else select_heads(s.view(1, -1, 1), group.heads, n_heads).view(-1)
    return scale_queries(q, length_factor(counts(), q.dtype, s_heads))


def _apply_dense(group: HeadGroup, inputs: HeadInputs) -> torch.Tensor:
    n_heads = inputs.q.shape[1]
    q, k, v = (select_heads(t, group.heads, n_heads) for t in (inputs.q, inputs.k, inputs.v))
    assert group.mask is not None
    mask = group.mask
    if not group.causal:  # global tokens see the future: hide keys after each EOS
        mask = mask & _key_ok(group, inputs)[:, :, None]
    q = _scaled(q, lambda: mask_key_counts(mask), group, inputs, n_heads)
    return dense_attention(q, k, v, mask, group.bias, check_empty=False)


def _apply_banded(group: HeadGroup, inputs: HeadInputs) -> torch.Tensor:
    n_heads = inputs.q.shape[1]
    q, k, v = (select_heads(t, group.heads, n_heads) for t in (inputs.q, inputs.k, inputs.v))
    assert group.band is not None
    band = group.band
    q = _scaled(q, lambda: band_key_counts(band), group, inputs, n_heads)
    return banded_attention(q, k, v, band, slopes=group.slopes)


def _apply_gather(group: HeadGroup, inputs: HeadInputs) -> torch.Tensor:
    n_heads = inputs.q.shape[1]
    q, k, v = (select_heads(t, group.heads, n_heads) for t in (inputs.q, inputs.k, inputs.v))
    assert group.gather is not None
    key_ok = _key_ok(group, inputs)
    gather = group.gather
    q = _scaled(q, lambda: gather_key_counts(gather, key_ok), group, inputs, n_heads)
    return gather_attention(q, k, v, gather, key_ok, slopes=group.slopes)


def gather_key_counts(plan: GatherPlan, key_ok: torch.Tensor) -> torch.Tensor:
    """N per row of a gathered-key plan (B, H or 1, T): the allowed gathered keys (hub rows:
    their dense row), without the keys after each row's EOS (``key_ok`` (B, H or 1, T))."""
    ok = plan.ok if plan.causal else plan.ok & key_ok[..., plan.keys]
    counts = ok.sum(-1).expand(*key_ok.shape[:2], -1)
    if not plan.hubs:
        return counts
    assert plan.hub_ok is not None
    hub = (plan.hub_ok & key_ok[..., None, :]).sum(-1)  # (B, H or 1, hubs)
    return torch.cat([hub, counts[..., plan.hubs :]], dim=-1)


def _apply_mixer(group: HeadGroup, inputs: HeadInputs) -> torch.Tensor:
    if inputs.mixers is None or inputs.x is None or group.heads not in inputs.mixers:
        raise ValueError(f"heads {group.heads} are SSM heads: attend needs x and their mixer")
    y = inputs.mixers[group.heads](inputs.x)  # (B, T, c*D)
    b_sz, t_sz, _ = y.shape
    return y.view(b_sz, t_sz, len(group.heads), -1).transpose(1, 2)


#: The apply function of each head-group kind: ``(group, inputs) -> (B, len(heads), T, D)``.
APPLY: dict[str, Callable[[HeadGroup, HeadInputs], torch.Tensor]] = {
    "dense": _apply_dense,
    "banded": _apply_banded,
    "gather": _apply_gather,
    "mixer": _apply_mixer,
    "encoder": _apply_encoder,
}


def attend(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, plan: HeadPlan, lengths: torch.Tensor,
    *, scale_mode: str = "none", scale: torch.Tensor | None = None,
    x: torch.Tensor | None = None,
    mixers: Mapping[tuple[int, ...], Callable[[torch.Tensor], torch.Tensor]] | None = None,
) -> torch.Tensor:
    """All query rows of ``plan``'s heads: (B, H, T, D); ``lengths`` (B,) or (B, H) (see
    `HeadInputs`), ``scale_mode`` the `ModelConfig.attention_scale`, ``scale`` SSMax's s;
    ``x`` and ``mixers`` for SSM heads (`HeadInputs.mixers`)."""
    if q.shape[1] != plan.key.n_heads or q.shape[2] != plan.key.length:
        raise ValueError(f"plan is for {plan.key.n_heads} heads x {plan.key.length} tokens, "
                         f"got q of shape {tuple(q.shape)}")
    inputs = HeadInputs(q, k, v, lengths, scale_mode, scale, x, mixers)
    outs = [APPLY[g.kind](g, inputs) for g in plan.groups]
    if len(outs) == 1:
        return outs[0]
    out = q.new_empty(q.shape)
    for group, y in zip(plan.groups, outs, strict=True):
        out[:, list(group.heads)] = y
    return out


def attend_rows(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, key: PlanKey, lengths: torch.Tensor,
    rows: torch.Tensor, *, scale_mode: str = "none", scale: torch.Tensor | None = None,
    x: torch.Tensor | None = None,
    mixers: Mapping[tuple[int, ...], Callable[[torch.Tensor], torch.Tensor]] | None = None,
) -> torch.Tensor:
    """One query row per sequence (and member): ``q`` (B, H, 1, D), ``k, v`` (B, H, T, D);
    ``rows`` and ``lengths`` (G, B) for G models of ``key.member_heads`` heads each (G = 1,
    or ``(B,)``, for one model). Row masks come straight from the predicates: (B, H, 1, D)."""
    if rows.dim() == 1:
        rows, lengths = rows[None], lengths[None]
    n_heads, t_sz = key.n_heads, k.shape[2]
    n, m = rows[..., None], torch.arange(t_sz, device=q.device)
    key_ok = m <= (lengths + 1)[..., None]  # (G, B, T)
    distinct = list(dict.fromkeys(key.patterns))
    tokens = (lengths + 2)[..., None]  # (G, B, 1): each string's own length (encoder atoms)
    table = torch.stack([masks.add_sink(p.allowed(n, m, strict=key.strict, length=tokens)
                                        & key_ok) for p in distinct])  # (P, G, B, T)
    which = torch.tensor([distinct.index(p) for p in key.patterns], device=q.device)
    member = torch.arange(n_heads, device=q.device) // (key.member_heads or n_heads)
    mask = table[which, member].transpose(0, 1)[:, :, None]  # (B, H, 1, T)
    slopes = key.slopes(tuple(range(n_heads)))
    bias = None
    if slopes is not None:  # (H, G, B, T) -> each head's own model's rows, (B, H, 1, T)
        bias = alibi_bias(slopes, n, m)[torch.arange(n_heads), member]
        bias = bias.transpose(0, 1)[:, :, None]
    if scale_mode != "none":
        q = scale_queries(q, length_factor(mask_key_counts(mask), q.dtype, scale))
    out = dense_attention(q, k, v, mask, bias, check_empty=False)
    ssm = [h for h, p in enumerate(key.patterns) if is_mixer_pattern(p)]
    if ssm:  # SSM heads are causal: their full-sequence output read at the rows
        out = out.clone()  # written in place below; SDPA's backward needs its own output
        if key.member_heads:
            raise ValueError("SSM heads do not fold into ensembles")
        inputs = HeadInputs(q, k, v, lengths[0], x=x, mixers=mixers)
        for group in plan_heads(key).groups:
            if group.kind == "mixer":
                y = _apply_mixer(group, inputs)  # (B, c, T, D)
                out[:, list(group.heads)] = y[torch.arange(y.shape[0]), :, rows[0]][:, :, None]
    return out
