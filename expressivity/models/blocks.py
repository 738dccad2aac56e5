"""Transformer sublayers: per-head-pattern self-attention, feed-forward, pre-LN blocks.

Head ``h`` of a `SelfAttention` owns rows ``h*d_head : (h+1)*d_head`` of ``q.weight``,
``k.weight``, ``v.weight`` (and their biases) and columns ``h*d_head : (h+1)*d_head`` of
``o.weight``; `SelfAttention.head_slice` returns that slice. The projections are separate plain
`nn.Linear` modules so weights can be set by hand; the forward pass fuses them on the fly.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from typing import overload

import torch
import torch.nn.functional as F
from torch import nn

from expressivity.models.attend import attend, attend_rows
from expressivity.models.config import ModelConfig
from expressivity.models.layouts import Pattern
from expressivity.models.planner import PlanKey, plan_heads
from expressivity.models.positions import rotate
from expressivity.models.scaling import SSMAX_INIT
from expressivity.models.ssm.heads import make_mixer, mixer_kind

__all__ = ["Block", "BlockList", "FeedForward", "SelfAttention", "plan_key"]


def plan_key(config: ModelConfig, patterns: tuple[Pattern, ...], length: int,
             device: torch.device, member_heads: int = 0) -> PlanKey:
    """The `PlanKey` of heads with ``patterns`` of a model with ``config`` at ``length``."""
    return PlanKey(patterns, length, str(device), config.strict, config.positional == "alibi",
                   config.kernel, config.banded_min_len, member_heads)


class SelfAttention(nn.Module):
    """Multi-head attention whose head ``h`` uses ``patterns[h]`` (see `models.layouts`);
    the kernels of each head group come from `models.planner`, run by `models.attend`."""

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
        self.patterns, self.config = patterns, config
        self.strict, self.positional = config.strict, config.positional
        #: SSMax's s_h, one per head (`models.scaling`); None unless attention_scale = "ssmax"
        self.length_scale = (nn.Parameter(torch.full((self.n_heads,), SSMAX_INIT))
                             if config.attention_scale == "ssmax" else None)
        #: SSM head groups (docs/theory.md §14): one mixer per distinct SSM pattern, writing
        #: its heads' slots (their q/k/v rows are unused); `mixer_heads[i]` are mixer i's heads
        self.mixers = nn.ModuleList()
        self.mixer_heads: list[tuple[int, ...]] = []
        groups: dict[Pattern, list[int]] = {}
        for h, p in enumerate(patterns):
            groups.setdefault(p, []).append(h)
        for p, heads in groups.items():
            kind = mixer_kind(p.atoms)
            if kind is not None:
                self.mixers.append(make_mixer(
                    kind, config.d_model, len(heads) * self.d_head, d_state=config.ssm_state,
                    expand=config.ssm_expand, d_head=self.d_head,
                    dt_range=(config.ssm_dt_min, config.ssm_dt_max),
                    slow_scale=config.ssm_slow_scale,
                    fast_fraction=config.ssm_fast_fraction,
                    fast_range=(config.ssm_fast_dt_min, config.ssm_fast_dt_max),
                    s4d_output=config.s4d_output))
                self.mixer_heads.append(tuple(heads))

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
        key = plan_key(self.config, self.patterns, t_sz, x.device)
        mode, s = self.config.attention_scale, self.length_scale
        scan = self.config.ssm_scan
        mixers = {heads: functools.partial(m, scan_how=scan)
                  for heads, m in zip(self.mixer_heads, self.mixers, strict=True)} or None
        if rows is None:
            out = attend(q, k, v, plan_heads(key), lengths, scale_mode=mode, scale=s, x=x,
                         mixers=mixers)
        else:
            out = attend_rows(q, k, v, key, lengths, rows, scale_mode=mode, scale=s, x=x,
                              mixers=mixers)
        return self.o(out.transpose(1, 2).reshape(b_sz, out.shape[2], -1))


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
