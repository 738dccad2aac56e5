"""Transformer sublayers: per-head-pattern self-attention, feed-forward, pre-LN blocks.

Head ``h`` of a `SelfAttention` owns rows ``h*d_head : (h+1)*d_head`` of ``q.weight``,
``k.weight``, ``v.weight`` (and their biases) and columns ``h*d_head : (h+1)*d_head`` of
``o.weight``; `SelfAttention.head_slice` returns that slice. The projections are separate plain
`nn.Linear` modules so weights can be set by hand; the forward pass fuses them on the fly.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import overload

import torch
import torch.nn.functional as F
from torch import nn

from expressivity.models import masks
from expressivity.models.attention import (
    BandPlan,
    alibi_bias,
    band_plan,
    banded_attention,
    dense_attention,
)
from expressivity.models.config import ModelConfig
from expressivity.models.gather import (
    GatherPlan,
    gather_attention,
    gather_plan,
    gatherable,
    key_padding,
)
from expressivity.models.layouts import Pattern
from expressivity.models.positions import alibi_slopes, rotate
from expressivity.models.scaling import (
    SSMAX_INIT,
    band_key_counts,
    length_factor,
    mask_key_counts,
    scale_queries,
)
from expressivity.models.ssm.heads import make_mixer, mixer_kind

__all__ = ["Block", "BlockList", "FeedForward", "SelfAttention"]

_CACHE_SIZE = 8  # lengths whose masks / band plans a layer keeps (evaluation sweeps lengths)


@dataclass(frozen=True, eq=False)
class _Part:
    """Heads of one layer that share a kernel call at one length."""

    heads: list[int]
    mask: torch.Tensor | None = None  # dense: (heads or 1, T, T) bool
    bias: torch.Tensor | None = None  # dense ALiBi: (heads, T, T)
    causal: bool = True  # dense: False when a key-padding mask is needed
    plan: BandPlan | None = None  # banded
    gather: GatherPlan | None = None  # gathered keys (random keys, global tokens)


class SelfAttention(nn.Module):
    """Multi-head attention whose head ``h`` uses ``patterns[h]`` (see `models.layouts`)."""

    _mixed: frozenset[int] = frozenset()  # heads an SSM mixer writes (none by default)

    def __init__(self, config: ModelConfig, patterns: tuple[Pattern, ...]) -> None:
        super().__init__()
        if len(patterns) != config.n_heads:
            raise ValueError(f"{len(patterns)} patterns for {config.n_heads} heads")
        self.n_heads, self.d_head = config.n_heads, config.head_width
        inner = self.n_heads * self.d_head
        self.q = nn.Linear(config.d_model, inner, bias=config.bias)
        self.k = nn.Linear(config.d_model, inner, bias=config.bias)
        self.v = nn.Linear(config.d_model, inner, bias=config.bias)
        self.o = nn.Linear(inner, config.d_model, bias=config.bias)
        self.patterns = patterns
        self.config = config
        self.strict, self.positional = config.strict, config.positional
        self.kernel, self.banded_min_len = config.kernel, config.banded_min_len
        self.scale = config.attention_scale
        #: SSMax's s_h, one per head (`models.scaling`); None unless attention_scale = "ssmax"
        self.length_scale = (nn.Parameter(torch.full((self.n_heads,), SSMAX_INIT))
                             if self.scale == "ssmax" else None)
        self._cache: OrderedDict[tuple[int, str], list[_Part]] = OrderedDict()
        #: SSM head groups (docs/theory.md §13): one mixer per distinct SSM pattern, writing
        #: the slots of its heads; their q/k/v rows are unused
        self.mixers = nn.ModuleList()
        self.mixer_heads: list[list[int]] = []
        groups: dict[Pattern, list[int]] = {}
        for h, p in enumerate(patterns):
            groups.setdefault(p, []).append(h)
        for p, heads in groups.items():
            kind = mixer_kind(p.atoms)
            if kind is not None:
                self.mixers.append(make_mixer(
                    kind, config.d_model, len(heads) * self.d_head, d_state=config.ssm_state,
                    expand=config.ssm_expand, d_head=self.d_head))
                self.mixer_heads.append(heads)
        self.scan = config.ssm_scan
        self._mixed = frozenset(h for heads in self.mixer_heads for h in heads)

    def head_slice(self, h: int) -> slice:
        """Rows of q/k/v.weight (columns of o.weight) that belong to head ``h``."""
        return slice(h * self.d_head, (h + 1) * self.d_head)

    def _split(self, y: torch.Tensor) -> torch.Tensor:
        b_sz, t_sz, _ = y.shape  # (B, T, H*D) -> (B, H, T, D)
        return y.view(b_sz, t_sz, self.n_heads, self.d_head).transpose(1, 2)

    def forward(
        self, x: torch.Tensor, lengths: torch.Tensor, rows: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``x`` (B, T, d_model) -> (B, T, d_model); with ``rows`` (B,) only those query rows,
        one per sequence, are computed: (B, 1, d_model)."""
        b_sz, t_sz, _ = x.shape
        if rows is None:
            w = torch.cat([self.q.weight, self.k.weight, self.v.weight])
            b = None if self.q.bias is None else torch.cat([self.q.bias, self.k.bias, self.v.bias])
            q, k, v = (self._split(y) for y in F.linear(x, w, b).chunk(3, dim=-1))
        else:
            w = torch.cat([self.k.weight, self.v.weight])
            b = None if self.k.bias is None else torch.cat([self.k.bias, self.v.bias])
            k, v = (self._split(y) for y in F.linear(x, w, b).chunk(2, dim=-1))
            q = self._split(self.q(x[torch.arange(b_sz, device=x.device), rows].unsqueeze(1)))
        pos = torch.arange(t_sz, device=x.device)
        k = rotate(k, pos, self.config)
        q = rotate(q, pos if rows is None else rows.view(b_sz, 1, 1), self.config)
        if rows is None:
            out = self._attend(q, k, v, lengths, self.length_scale)
        else:
            out = self._attend_rows(q, k, v, lengths, rows, self.length_scale)
        for mixer, heads in zip(self.mixers, self.mixer_heads, strict=True):
            y = mixer(x, self.scan)  # (B, T, c*D): causal, so padding after EOS is harmless
            if rows is not None:
                y = y[torch.arange(b_sz, device=x.device), rows].unsqueeze(1)
            out[:, heads] = y.view(b_sz, y.shape[1], len(heads), self.d_head).transpose(1, 2)
        return self.o(out.transpose(1, 2).reshape(b_sz, out.shape[2], -1))

    def _scaled(self, q: torch.Tensor, counts: torch.Tensor, heads: list[int],
                s: torch.Tensor | None) -> torch.Tensor:
        """``q`` of ``heads`` with each row times log N (times s_h for SSMax), or ``q`` itself
        when attention_scale is "none"; ``counts``: (T,), (heads or 1, T) or (B, heads or 1,
        T) keys per row, as the kernel's mask gives them."""
        if self.scale == "none":
            return q
        s_heads = None if s is None else _heads(s.view(1, -1, 1), heads, self.n_heads).view(-1)
        return scale_queries(q, length_factor(counts, q.dtype, s_heads))

    def _slopes(self, heads: list[int], device: torch.device) -> torch.Tensor | None:
        if self.positional != "alibi":
            return None
        return alibi_slopes(self.n_heads)[heads].to(device)

    def _parts(self, length: int, device: torch.device) -> list[_Part]:
        key = (length, str(device))
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        parts, dense_heads = [], []
        groups: dict[Pattern, list[int]] = {}
        for h, p in enumerate(self.patterns):
            groups.setdefault(p, []).append(h)
        long = self.kernel == "auto" and length >= self.banded_min_len
        for pattern, heads in groups.items():
            if heads[0] in self._mixed:  # an SSM group: its mixer writes these heads
                continue
            banded = pattern.band is not None and (self.kernel in ("banded", "sparse") or long)
            if gatherable(pattern) and (self.kernel == "sparse" or long):
                plan_g = gather_plan(pattern, length, strict=self.strict, device=device)
                parts.append(_Part(heads, gather=plan_g))
            elif banded:
                assert pattern.band is not None

                def allowed(n: torch.Tensor, m: torch.Tensor, p: Pattern = pattern) -> torch.Tensor:
                    return p.allowed(n, m, strict=self.strict)

                plan = band_plan(length, pattern.band, allowed, device=device)
                parts.append(_Part(heads, plan=plan))
            else:
                dense_heads.extend(heads)
        if dense_heads:
            dense_heads.sort()
            per_head = [self.patterns[h].mask(length, strict=self.strict) for h in dense_heads]
            same = all(self.patterns[h] == self.patterns[dense_heads[0]] for h in dense_heads)
            mask = (per_head[0][None] if same else torch.stack(per_head)).to(device)
            slopes = self._slopes(dense_heads, device)
            bias = None if slopes is None else alibi_bias(slopes, *masks.grid(length, device))
            causal = all(self.patterns[h].causal for h in dense_heads)
            parts.append(_Part(dense_heads, mask=mask, bias=bias, causal=causal))
        self._cache[key] = parts
        while len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return parts

    def _attend(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, lengths: torch.Tensor,
        s: torch.Tensor | None = None,
    ) -> torch.Tensor:
        parts = self._parts(q.shape[2], q.device)
        outs = []
        for part in parts:
            qp, kp, vp = (_heads(t, part.heads, self.n_heads) for t in (q, k, v))
            if part.plan is not None:
                qp = self._scaled(qp, band_key_counts(part.plan), part.heads, s)
                outs.append(banded_attention(qp, kp, vp, part.plan,
                                             slopes=self._slopes(part.heads, q.device)))
                continue
            if part.gather is not None:
                outs.append(gather_attention(qp, kp, vp, part.gather,
                                             key_padding(lengths, q.shape[2]),
                                             slopes=self._slopes(part.heads, q.device)))
                continue
            assert part.mask is not None
            mask = part.mask
            if not part.causal:  # global tokens see the future: hide keys after each EOS
                key_ok = torch.arange(q.shape[2], device=q.device) <= (lengths + 1)[:, None]
                mask = mask & key_ok[:, None, None, :]
            qp = self._scaled(qp, mask_key_counts(mask), part.heads, s)
            outs.append(dense_attention(qp, kp, vp, mask, part.bias, check_empty=False))
        if len(parts) == 1 and not self._mixed:
            return outs[0]
        out = q.new_zeros(q.shape) if self._mixed else q.new_empty(q.shape)
        for part, y in zip(parts, outs, strict=True):
            out[:, part.heads] = y
        return out

    def _attend_rows(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, lengths: torch.Tensor,
        rows: torch.Tensor, s: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Attention of one query row per sequence: row masks straight from the predicates."""
        t_sz = k.shape[2]
        n, m = rows[:, None], torch.arange(t_sz, device=q.device)[None, :]
        key_ok = m <= (lengths + 1)[:, None]
        masks_by_pattern = {
            p: masks.add_sink(p.allowed(n, m, strict=self.strict) & key_ok)
            for p in set(self.patterns)
        }
        mask = torch.stack([masks_by_pattern[p] for p in self.patterns], dim=1)[:, :, None]
        slopes = self._slopes(list(range(self.n_heads)), q.device)
        bias = None if slopes is None else alibi_bias(slopes, n, m).transpose(0, 1)[:, :, None]
        q = self._scaled(q, mask_key_counts(mask), list(range(self.n_heads)), s)
        return dense_attention(q, k, v, mask, bias, check_empty=False)  # (B, H, 1, D)


def _heads(t: torch.Tensor, heads: list[int], n_heads: int) -> torch.Tensor:
    if len(heads) == n_heads:
        return t
    if heads == list(range(heads[0], heads[0] + len(heads))):
        return t[:, heads[0] : heads[0] + len(heads)]
    return t[:, heads]


class FeedForward(nn.Module):
    """The position-wise sublayer ``down(act(up(x)))``: Linear -> activation -> Linear."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.up = nn.Linear(config.d_model, config.d_ff, bias=config.bias)
        self.act: nn.Module = nn.GELU() if config.activation == "gelu" else nn.ReLU()
        self.down = nn.Linear(config.d_ff, config.d_model, bias=config.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(..., d_model) -> (..., d_model)."""
        return self.down(self.act(self.up(x)))


class Block(nn.Module):
    """Pre-LN transformer block: ``x + attn(ln1(x))`` then ``x + ffn(ln2(x))``."""

    def __init__(self, config: ModelConfig, patterns: tuple[Pattern, ...]) -> None:
        super().__init__()
        d = config.d_model
        layer_norm = config.norm == "layer"
        self.ln1: nn.Module = nn.LayerNorm(d, bias=config.bias) if layer_norm else nn.Identity()
        self.attn = SelfAttention(config, patterns)
        self.ln2: nn.Module = nn.LayerNorm(d, bias=config.bias) if layer_norm else nn.Identity()
        self.ffn = FeedForward(config)
        self.drop: nn.Module = nn.Dropout(config.dropout) if config.dropout > 0 else nn.Identity()

    def forward(
        self, x: torch.Tensor, lengths: torch.Tensor, rows: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(B, T, d) -> (B, T, d), or (B, 1, d) at the query ``rows`` only."""
        a = self.attn(self.ln1(x), lengths, rows)
        if rows is not None:
            x = x[torch.arange(x.shape[0], device=x.device), rows].unsqueeze(1)
        x = x + self.drop(a)
        return x + self.drop(self.ffn(self.ln2(x)))


class BlockList(nn.ModuleList):
    """An `nn.ModuleList` of `Block` whose items type-check as `Block`."""

    def __init__(self, blocks: Iterable[Block]) -> None:
        super().__init__(blocks)

    @overload
    def __getitem__(self, idx: slice) -> BlockList: ...

    @overload
    def __getitem__(self, idx: int) -> Block: ...

    def __getitem__(self, idx: int | slice) -> Block | BlockList:
        if isinstance(idx, slice):
            return BlockList(list(self._modules.values())[idx])  # type: ignore[arg-type]
        block = super().__getitem__(idx)
        assert isinstance(block, Block)
        return block

    def __iter__(self) -> Iterator[Block]:
        return iter(self._modules.values())  # type: ignore[arg-type]
