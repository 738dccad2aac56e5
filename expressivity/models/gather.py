"""Linear-memory attention for random keys and global tokens: each row gathers its few keys.

A head whose pattern is a union of band atoms (local, dilated, block), random keys (BigBird
``R``) and global tokens (Longformer / ETC ``T``), but no ``G`` atom, lets every row ``n``
outside the hub rows read at most ``C = (W + 1) + r + g + 1`` keys: the band offsets
``n - W .. n``, the ``r`` random keys of row ``n`` (`masks.random_keys`), the ``g`` hub keys
``0 .. g-1`` and one sink column (BOS, for rows with no allowed key). A `GatherPlan` lists those
candidates ``keys[n, c]`` and marks the allowed, pairwise distinct ones in ``ok`` (the raw
predicate of the pattern decides, so the plan is exact for any such union), and
`gather_attention` scores each row against its ``C`` gathered keys. The ``g`` hub rows see
every key: they are computed densely, ``g x T`` scores. Memory O(T * (W + r + g) + g * T)
per head instead of O(T^2), and the result equals
``dense_attention(q, k, v, add_sink(allowed(*grid(T))) & key_ok)`` in values and gradients
(``key_ok``: keys up to each row's EOS, needed because hub rows see the future).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from expressivity.layouts.encoders import is_encoder
from expressivity.models import masks
from expressivity.models.attention import alibi_bias
from expressivity.models.layouts import Pattern

__all__ = ["GatherPlan", "gather_attention", "gather_plan", "gatherable", "key_padding"]


@dataclass(frozen=True, eq=False)
class GatherPlan:
    """Where `gather_attention` looks, for one (pattern, length, device); reused across batches.

    Rows ``0 .. hubs-1`` are hub rows (dense, allowed keys ``hub_ok``); every other row ``n``
    reads the keys ``keys[n, c]`` with ``ok[n, c]`` (distinct keys, sink rule applied).
    """

    length: int
    keys: torch.Tensor  # (T, C) int64, every entry a valid index 0..T-1
    ok: torch.Tensor  # (T, C) bool
    hubs: int  # hub rows: min(g, T)
    hub_ok: torch.Tensor | None  # (hubs, T) bool with the sink rule, or None without hubs
    causal: bool  # no row sees a later key (no hubs): no key-padding mask needed


def gatherable(pattern: Pattern) -> bool:
    """Whether `gather_plan` applies: random keys or global tokens, and no global (G) atom."""
    kinds = {a.kind for a in pattern.atoms}
    return "G" not in kinds and bool(kinds & {"R", "T"}) and not is_encoder(pattern.atoms)


def gather_plan(
    pattern: Pattern, length: int, *, strict: bool = True,
    device: torch.device | str | None = None,
) -> GatherPlan:
    """The candidates of every row of ``pattern`` at ``length`` tokens (module docstring)."""
    if not gatherable(pattern):
        raise ValueError(f"pattern {pattern} has a global atom or no random / global-token atom")
    if length < 1:
        raise ValueError(f"need length >= 1, got {length}")
    dev = torch.device(device) if device is not None else torch.device("cpu")
    bands = [a.band for a in pattern.atoms if a.band is not None]
    window = max(bands) if bands else 0
    hubs = max((a.params[0] for a in pattern.atoms if a.kind == "T"), default=0)
    n = torch.arange(length, device=dev)[:, None]
    columns = [n - torch.arange(window, -1, -1, device=dev)]  # band offsets W .. 0
    for atom in pattern.atoms:
        if atom.kind == "R":
            columns.append(masks.random_keys(length, atom.params[0], pattern.seed).to(dev))
    columns.append(torch.arange(hubs, device=dev).expand(length, hubs))
    cand = torch.cat(columns, dim=1)  # (T, C - 1)
    raw = (cand >= 0) & (cand < length) & pattern.allowed(n, cand, strict=strict)
    same = cand[:, :, None] == cand[:, None, :]  # (T, C-1, C-1): key c equals key c'
    earlier = torch.ones(same.shape[1:], dtype=torch.bool, device=dev).tril(-1)
    ok = raw & ~(same & earlier & raw[:, None, :]).any(-1)  # each allowed key counted once
    h = min(hubs, length)
    ok[:h] = False  # hub rows are computed densely; their gathered row is a placeholder
    empty = ~ok.any(-1, keepdim=True)
    keys = torch.cat([cand.clamp(0, length - 1), torch.zeros_like(n)], dim=1)
    ok = torch.cat([ok, empty], dim=1)  # the sink column: BOS for rows with no allowed key
    hub_ok = None
    if h:
        hub_ok = masks.add_sink(pattern.allowed(n[:h], n[:, 0][None], strict=strict))
    return GatherPlan(length, keys, ok, h, hub_ok, causal=hubs == 0)


def key_padding(lengths: torch.Tensor, length: int) -> torch.Tensor:
    """Keys up to each row's EOS: (B, 1, T) bool from word ``lengths`` (B,)."""
    return (torch.arange(length, device=lengths.device) <= (lengths + 1)[:, None])[:, None]


def gather_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    plan: GatherPlan,
    key_ok: torch.Tensor | None = None,
    *,
    slopes: torch.Tensor | None = None,
) -> torch.Tensor:
    """Attention of ``q, k, v`` (B, H, T, D) restricted to ``plan``'s keys; ``key_ok`` (bool,
    broadcastable to (B, H, T): the keys up to each row's EOS, `key_padding`) hides padding
    when the pattern has hubs (required then)."""
    t_sz, d_sz = q.shape[2:]
    if t_sz != plan.length:
        raise ValueError(f"plan is for length {plan.length}, got {t_sz}")
    if not plan.causal and key_ok is None:
        raise ValueError("a pattern with global tokens needs the key-padding mask key_ok")
    q = q * (1.0 / math.sqrt(d_sz))
    kg, vg = k[:, :, plan.keys], v[:, :, plan.keys]  # (B, H, T, C, D)
    scores = torch.matmul(kg, q.unsqueeze(-1)).squeeze(-1)  # (B, H, T, C)
    ok = plan.ok
    if plan.causal:
        key_ok = None
    elif key_ok is not None:
        ok = ok & key_ok[..., plan.keys]  # (B, H or 1, T, C)
    if slopes is not None:
        scores = scores + alibi_bias(slopes.to(q.dtype), torch.arange(t_sz, device=q.device)
                                     [:, None], plan.keys)
    probs = torch.softmax(scores.masked_fill(~ok, float("-inf")), dim=-1)
    out = torch.matmul(probs.unsqueeze(-2), vg).squeeze(-2)  # (B, H, T, D)
    if not plan.hubs:
        return out
    assert plan.hub_ok is not None and key_ok is not None
    hub = torch.matmul(q[:, :, : plan.hubs], k.transpose(-1, -2))  # (B, H, g, T)
    if slopes is not None:
        rows = torch.arange(plan.hubs, device=q.device)[:, None]
        hub = hub + alibi_bias(slopes.to(q.dtype), rows, torch.arange(t_sz, device=q.device))
    allowed = plan.hub_ok & key_ok[..., None, :]  # (B, H or 1, g, T)
    hub_out = torch.matmul(torch.softmax(hub.masked_fill(~allowed, float("-inf")), -1), v)
    return torch.cat([hub_out, out[:, :, plan.hubs :]], dim=2)
