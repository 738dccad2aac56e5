"""`EnsembleRecognizer`: M recognizers of one shape as stacked parameters with a member axis.

Member ``i`` is `Recognizer(configs[i], alphabet_size, seed=seeds[i])`: its parameters are built
by that very constructor and stacked, so the initial weights agree bit for bit. Every
parameter ``name`` of a `Recognizer` becomes one tensor of shape ``(M, *shape)``. The forward
pass reads like the single model's, with a leading member axis::

    x_0 = E_i[tokens_i]                                        (M, B, T, d)
    linear maps: batched matrix products over members           torch.baddbmm
    attention:   members folded into the head axis (B, M*H, T, D), so head ``(i, h)`` uses
                 member i's pattern for head h: members may have different layouts, and
                 dense, banded and gathered-key kernels are chosen per pattern as in
                 `SelfAttention`.

Members share the ``ModelConfig`` apart from ``layout`` and ``mask_seed``; any other difference
is a `ConfigError` naming the field. Dropout is not supported (its random masks could not match
the single runs'), also a `ConfigError`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import fields

import torch
import torch.nn.functional as F
from torch import nn

from expressivity.errors import ConfigError
from expressivity.models import masks
from expressivity.models.attention import alibi_bias, banded_attention, dense_attention
from expressivity.models.blocks import SelfAttention, _heads
from expressivity.models.config import ModelConfig
from expressivity.models.gather import gather_attention
from expressivity.models.layouts import Pattern
from expressivity.models.positions import absolute_table, alibi_slopes, rotate
from expressivity.models.scaling import band_key_counts, mask_key_counts
from expressivity.models.ssm.heads import mixer_kind
from expressivity.models.transformer import Recognizer

__all__ = ["MEMBER_FIELDS", "EnsembleRecognizer", "check_compatible"]

#: `ModelConfig` fields in which members of one ensemble may differ.
MEMBER_FIELDS = frozenset({"layout", "mask_seed"})
_CACHE_SIZE = 8  # member subsets whose attention helpers are kept
_Getter = Callable[[str], "torch.Tensor | None"]  # parameter slices by `Recognizer` name


def check_compatible(configs: Sequence[ModelConfig]) -> None:
    """`ConfigError` naming the first field in which ``configs`` differ beyond the layout."""
    if not configs:
        raise ConfigError("ensemble: needs at least one member")
    first = configs[0]
    for i, config in enumerate(configs):
        for f in fields(ModelConfig):
            a, b = getattr(first, f.name), getattr(config, f.name)
            if f.name not in MEMBER_FIELDS and a != b:
                raise ConfigError(
                    f"model.{f.name}: ensemble members must share the model shape, but member 0 "
                    f"has {a!r} and member {i} has {b!r}; put them in different ensembles"
                )
        if config.dropout > 0:
            raise ConfigError(
                f"model.dropout: ensembles need dropout = 0 (member {i} has {config.dropout}); "
                "train runs with dropout one by one"
            )
        if any(mixer_kind(p.atoms) for row in config.layout_spec().layers for p in row):
            raise ConfigError(
                f"model.layout: ensembles fold attention heads only; member {i}'s layout "
                f"{config.layout!r} has SSM heads (docs/guide/ssm.md): train it one by one"
            )


class _FoldedHeads(SelfAttention):
    """The attention kernels of `SelfAttention` over the ``M*H`` heads of folded members."""

    def __init__(self, config: ModelConfig, patterns: tuple[Pattern, ...]) -> None:
        nn.Module.__init__(self)
        self.n_heads, self.d_head = len(patterns), config.head_width
        self.member_heads = config.n_heads
        self.patterns, self.config = patterns, config
        self.strict, self.positional = config.strict, config.positional
        self.kernel, self.banded_min_len = config.kernel, config.banded_min_len
        self.scale, self.length_scale = config.attention_scale, None
        self._cache = OrderedDict()

    def _slopes(self, heads: list[int], device: torch.device) -> torch.Tensor | None:
        if self.positional != "alibi":
            return None
        members = self.n_heads // self.member_heads
        return alibi_slopes(self.member_heads).repeat(members)[heads].to(device)

    def attend(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, key_ok: torch.Tensor,
        s: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """All query rows; ``key_ok`` (B, M*H, 1, T) hides padding from non-causal heads;
        ``s`` (M*H,) the members' SSMax scales (attention_scale = "ssmax")."""
        parts = self._parts(q.shape[2], q.device)
        out = q.new_empty(q.shape) if len(parts) > 1 else None
        for part in parts:
            qp, kp, vp = (_heads(t, part.heads, self.n_heads) for t in (q, k, v))
            if part.plan is not None:
                qp = self._scaled(qp, band_key_counts(part.plan), part.heads, s)
                y = banded_attention(qp, kp, vp, part.plan,
                                     slopes=self._slopes(part.heads, q.device))
            elif part.gather is not None:
                y = gather_attention(qp, kp, vp, part.gather,
                                     _heads(key_ok, part.heads, self.n_heads)[:, :, 0],
                                     slopes=self._slopes(part.heads, q.device))
            else:
                assert part.mask is not None
                mask = part.mask
                if not part.causal:
                    mask = mask & _heads(key_ok, part.heads, self.n_heads)
                qp = self._scaled(qp, mask_key_counts(mask), part.heads, s)
                y = dense_attention(qp, kp, vp, mask, part.bias, check_empty=False)
            if out is None:
                return y
            out[:, part.heads] = y
        assert out is not None
        return out

    def attend_rows(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, lengths: torch.Tensor,
        rows: torch.Tensor, s: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """One query row per sequence and member: ``rows`` and ``lengths`` are (M, B)."""
        t_sz = k.shape[2]
        n, m = rows[..., None], torch.arange(t_sz, device=q.device)
        key_ok = m <= (lengths + 1)[..., None]  # (M, B, T)
        distinct = list(dict.fromkeys(self.patterns))
        table = torch.stack([masks.add_sink(p.allowed(n, m, strict=self.strict) & key_ok)
                             for p in distinct])  # (P, M, B, T)
        which = torch.tensor([distinct.index(p) for p in self.patterns], device=q.device)
        member = torch.arange(self.n_heads, device=q.device) // self.member_heads
        mask = table[which, member].transpose(0, 1)[:, :, None]  # (B, M*H, 1, T)
        slopes = self._slopes(list(range(self.n_heads)), q.device)
        bias = None
        if slopes is not None:  # (M*H, M, B, T) -> the member's own rows, (B, M*H, 1, T)
            bias = alibi_bias(slopes, n, m)[torch.arange(self.n_heads), member]
            bias = bias.transpose(0, 1)[:, :, None]
        q = self._scaled(q, mask_key_counts(mask), list(range(self.n_heads)), s)
        return dense_attention(q, k, v, mask, bias, check_empty=False)


class EnsembleRecognizer(nn.Module):
    """M recognizers of one shape trained as one model; see the module docstring.

    ``forward(tokens, lengths)`` takes (M, B, T) tokens and (M, B) lengths, one batch per
    member, and returns (M, B) accept logits; ``members`` restricts a call to some members
    (their parameter slices), e.g. to evaluate those that are due.
    """

    def __init__(
        self, configs: Sequence[ModelConfig], alphabet_size: int, seeds: Sequence[int]
    ) -> None:
        super().__init__()
        if len(configs) != len(seeds):
            raise ConfigError(f"ensemble: {len(configs)} configs but {len(seeds)} seeds")
        check_compatible(configs)
        self.configs, self.alphabet_size = tuple(configs), alphabet_size
        self.config = configs[0]
        singles = [Recognizer(c, alphabet_size, seed=s) for c, s in zip(configs, seeds,
                                                                          strict=True)]
        self.names = tuple(name for name, _ in singles[0].named_parameters())
        self.stacked = nn.ParameterList(
            nn.Parameter(torch.stack([dict(r.named_parameters())[n].detach() for r in singles]))
            for n in self.names
        )
        self._index = {name: i for i, name in enumerate(self.names)}
        self._layouts = tuple(c.layout_spec() for c in configs)
        self._heads: OrderedDict[tuple[int, ...], list[_FoldedHeads]] = OrderedDict()

    @property
    def size(self) -> int:
        """The number of members M."""
        return len(self.configs)

    def member_state(self, i: int) -> dict[str, torch.Tensor]:
        """Member ``i``'s parameters under `Recognizer`'s names (a copy)."""
        return {n: p[i].detach().clone() for n, p in zip(self.names, self.stacked, strict=True)}

    def member(self, i: int) -> Recognizer:
        """Member ``i`` as a standalone `Recognizer` (its current weights)."""
        model = Recognizer(self.configs[i], self.alphabet_size)
        model.load_state_dict(self.member_state(i))
        return model.to(self.stacked[0].device)

    def select(self, keep: Sequence[int]) -> EnsembleRecognizer:
        """A new ensemble of members ``keep`` (in that order), sharing no storage with this."""
        out = EnsembleRecognizer.__new__(EnsembleRecognizer)
        nn.Module.__init__(out)
        out.configs = tuple(self.configs[i] for i in keep)
        out.alphabet_size, out.config, out.names = self.alphabet_size, self.config, self.names
        idx = torch.tensor(list(keep), dtype=torch.long, device=self.stacked[0].device)
        out.stacked = nn.ParameterList(nn.Parameter(p.detach()[idx].clone()) for p in self.stacked)
        out._index, out._layouts = self._index, tuple(self._layouts[i] for i in keep)
        out._heads = OrderedDict()
        return out

    def _param(self, name: str, members: torch.Tensor | None) -> torch.Tensor | None:
        i = self._index.get(name)
        if i is None:
            return None
        p = self.stacked[i]
        return p if members is None else p[members]

    def _folded(self, members: tuple[int, ...]) -> list[_FoldedHeads]:
        if members in self._heads:
            self._heads.move_to_end(members)
            return self._heads[members]
        out = [
            _FoldedHeads(self.config, tuple(p for i in members for p in self._layouts[i].layers[l]))
            for l in range(self.config.n_layers)
        ]
        self._heads[members] = out
        while len(self._heads) > _CACHE_SIZE:
            self._heads.popitem(last=False)
        return out

    def forward(
        self, tokens: torch.Tensor, lengths: torch.Tensor, members: Sequence[int] | None = None
    ) -> torch.Tensor:
        """Accept logits (M', B) of members ``members`` (default: all) at each row's EOS."""
        chosen = tuple(range(self.size)) if members is None else tuple(members)
        if tokens.dim() != 3 or lengths.shape != tokens.shape[:2] or len(chosen) != len(tokens):
            raise ValueError(
                f"expected tokens (M, B, T) and lengths (M, B) for {len(chosen)} members, got "
                f"{tuple(tokens.shape)} and {tuple(lengths.shape)}"
            )
        sel = None if members is None else torch.tensor(chosen, device=tokens.device)

        def p(name: str) -> torch.Tensor | None:
            return self._param(name, sel)

        lengths = lengths.to(device=tokens.device, dtype=torch.long)
        x = self._embed(tokens, p)
        heads = self._folded(chosen)
        n_layers = self.config.n_layers
        rows = lengths + 1
        for l in range(n_layers):
            x = self._block(l, x, lengths, heads[l], p, rows if l == n_layers - 1 else None)
        x = _norm(x[:, :, 0], p("ln_f.weight"), p("ln_f.bias"))  # (M, B, d)
        w, b = p("classifier.weight"), p("classifier.bias")
        assert w is not None
        return _linear(x, w, b).squeeze(-1)

    def _embed(self, tokens: torch.Tensor, p: _Getter) -> torch.Tensor:
        emb = p("embed.weight")
        assert emb is not None
        m_sz, _, t_sz = tokens.shape
        x = emb[torch.arange(m_sz, device=tokens.device)[:, None, None], tokens]
        pos = p("pos.weight")
        if pos is not None:
            if t_sz > self.config.max_len:
                raise ConfigError(
                    f"max_len: inputs of {t_sz} tokens exceed max_len={self.config.max_len} of "
                    "the learned positions; raise max_len or use another positional encoding"
                )
            x = x + pos[:, None, :t_sz]
        else:
            table = absolute_table(self.config, t_sz, x.shape[-1], device=x.device,
                                   dtype=x.dtype)
            if table is not None:
                x = x + table
        return x

    def _block(
        self, l: int, x: torch.Tensor, lengths: torch.Tensor, heads: _FoldedHeads, p: _Getter,
        rows: torch.Tensor | None,
    ) -> torch.Tensor:
        pre = f"blocks.{l}."
        a = self._attention(_norm(x, p(pre + "ln1.weight"), p(pre + "ln1.bias")), lengths,
                            heads, pre + "attn.", p, rows)
        if rows is not None:
            m_sz, b_sz = rows.shape
            dev = x.device
            x = x[torch.arange(m_sz, device=dev)[:, None], torch.arange(b_sz, device=dev), rows]
            x = x.unsqueeze(2)
        x = x + a
        h = _norm(x, p(pre + "ln2.weight"), p(pre + "ln2.bias"))
        up, down = pre + "ffn.up.", pre + "ffn.down."
        h = _linear(h, p(up + "weight"), p(up + "bias"))  # type: ignore[arg-type]
        h = F.gelu(h) if self.config.activation == "gelu" else F.relu(h)
        return x + _linear(h, p(down + "weight"), p(down + "bias"))  # type: ignore[arg-type]

    def _attention(
        self, x: torch.Tensor, lengths: torch.Tensor, heads: _FoldedHeads, pre: str, p: _Getter,
        rows: torch.Tensor | None,
    ) -> torch.Tensor:
        m_sz, b_sz, t_sz, _ = x.shape
        h_sz, d_sz = self.config.n_heads, self.config.head_width

        def fold(y: torch.Tensor) -> torch.Tensor:  # (M, B, T', H*D) -> (B, M*H, T', D)
            return y.view(m_sz, b_sz, -1, h_sz, d_sz).permute(1, 0, 3, 2, 4).reshape(
                b_sz, m_sz * h_sz, -1, d_sz)

        def proj(names: Sequence[str], y: torch.Tensor) -> list[torch.Tensor]:
            w = torch.cat([p(pre + n + ".weight") for n in names], dim=1)  # type: ignore[misc]
            bs = [p(pre + n + ".bias") for n in names]
            b = None if bs[0] is None else torch.cat(bs, dim=1)  # type: ignore[arg-type]
            return [fold(t) for t in _linear(y, w, b).chunk(len(names), dim=-1)]

        pos = torch.arange(t_sz, device=x.device)
        if rows is None:
            q, k, v = proj(("q", "k", "v"), x)
        else:
            k, v = proj(("k", "v"), x)
            dev = x.device
            at = x[torch.arange(m_sz, device=dev)[:, None], torch.arange(b_sz, device=dev), rows]
            (q,) = proj(("q",), at.unsqueeze(2))
        k = rotate(k, pos, self.config)
        q = rotate(q, pos if rows is None else rows.t().repeat_interleave(h_sz, dim=1)[..., None],
                   self.config)
        scale = p(pre + "length_scale")  # SSMax: (M', H) -> (M'*H,), the folded head order
        s = None if scale is None else scale.reshape(-1)
        if rows is None:
            key_ok = pos <= (lengths + 1)[..., None]  # (M, B, T)
            key_ok = key_ok.transpose(0, 1).repeat_interleave(h_sz, dim=1)[:, :, None]
            out = heads.attend(q, k, v, key_ok, s)
        else:
            out = heads.attend_rows(q, k, v, lengths, rows, s)
        # (B, M*H, T', D) -> (M, B, T', H*D)
        out = out.view(b_sz, m_sz, h_sz, -1, d_sz).permute(1, 0, 3, 2, 4)
        out = out.reshape(m_sz, b_sz, -1, h_sz * d_sz)
        return _linear(out, p(pre + "o.weight"), p(pre + "o.bias"))  # type: ignore[arg-type]


def _linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None) -> torch.Tensor:
    """Per-member ``x_i @ w_i^T + b_i``: x (M, ..., in), w (M, out, in), b (M, out)."""
    flat = x.reshape(x.shape[0], -1, x.shape[-1])
    y = torch.bmm(flat, w.transpose(1, 2)) if b is None else torch.baddbmm(
        b.unsqueeze(1), flat, w.transpose(1, 2))
    return y.view(*x.shape[:-1], w.shape[1])


def _norm(x: torch.Tensor, w: torch.Tensor | None, b: torch.Tensor | None) -> torch.Tensor:
    """Per-member LayerNorm over the last axis (identity when the model has none)."""
    if w is None:
        return x
    shape = (w.shape[0],) + (1,) * (x.dim() - 2) + (w.shape[-1],)
    y = F.layer_norm(x, x.shape[-1:]) * w.view(shape)
    return y if b is None else y + b.view(shape)
