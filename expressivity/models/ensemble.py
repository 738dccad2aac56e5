"""`EnsembleRecognizer`: M recognizers of one shape as stacked parameters with a member axis.

Member ``i`` is `Recognizer(configs[i], alphabet_size, seed=seeds[i])`: its parameters are built
by that very constructor and stacked, so the initial weights agree bit for bit. Every
parameter ``name`` of a `Recognizer` becomes one tensor of shape ``(M, *shape)``. The forward
pass reads like the single model's, with a leading member axis::

    x_0 = E_i[tokens_i]                                        (M, B, T, d)
    linear maps: batched matrix products over members           torch.baddbmm
    attention:   members folded into the head axis (B, M*H, T, D), so head ``(i, h)`` uses
                 member i's pattern for head h: members may have different layouts, and
                 the head plan (`models.planner`) is the one `SelfAttention` uses.

Members share the ``ModelConfig`` apart from ``layout`` and ``mask_seed``; any other difference
is a `ConfigError` naming the field. Dropout is not supported (its random masks could not match
the single runs'), also a `ConfigError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields

import torch
import torch.nn.functional as F
from torch import nn

from expressivity.errors import ConfigError
from expressivity.models.attend import attend, attend_rows
from expressivity.models.blocks import plan_key
from expressivity.models.config import ModelConfig
from expressivity.models.layouts import Pattern
from expressivity.models.planner import is_mixer_pattern, plan_heads
from expressivity.models.positions import absolute_table, rotate
from expressivity.models.readout import pool, readout_rows
from expressivity.models.transformer import Recognizer

__all__ = ["MEMBER_FIELDS", "EnsembleRecognizer", "check_compatible"]

#: `ModelConfig` fields in which members of one ensemble may differ.
MEMBER_FIELDS = frozenset({"layout", "mask_seed"})
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
        if any(is_mixer_pattern(p) for row in config.layout_spec().layers for p in row):
            raise ConfigError(
                f"model.layout: ensembles fold attention heads only; member {i}'s layout "
                f"{config.layout!r} has SSM heads (docs/guide/ssm.md): train it one by one"
            )


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
        return out

    def _param(self, name: str, members: torch.Tensor | None) -> torch.Tensor | None:
        i = self._index.get(name)
        if i is None:
            return None
        p = self.stacked[i]
        return p if members is None else p[members]

    def _patterns(self, members: tuple[int, ...], layer: int) -> tuple[Pattern, ...]:
        """The folded heads' patterns of ``layer``: member by member, head by head."""
        return tuple(p for i in members for p in self._layouts[i].layers[layer])

    def forward(
        self, tokens: torch.Tensor, lengths: torch.Tensor, members: Sequence[int] | None = None
    ) -> torch.Tensor:
        """Accept logits (M', B) of members ``members`` (default: all), read as
        ``config.readout`` says (`models.readout`)."""
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
        n_layers = self.config.n_layers
        rows = readout_rows(self.config.readout, lengths)
        for l in range(n_layers):
            x = self._block(l, x, lengths, self._patterns(chosen, l), p,
                            rows if l == n_layers - 1 else None)
        x = x[:, :, 0] if rows is not None else pool(x, lengths)
        x = _norm(x, p("ln_f.weight"), p("ln_f.bias"))  # (M, B, d)
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
        self, l: int, x: torch.Tensor, lengths: torch.Tensor, heads: tuple[Pattern, ...],
        p: _Getter, rows: torch.Tensor | None,
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
        self, x: torch.Tensor, lengths: torch.Tensor, heads: tuple[Pattern, ...], pre: str,
        p: _Getter, rows: torch.Tensor | None,
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
        key = plan_key(self.config, heads, t_sz, x.device, member_heads=h_sz)
        mode = self.config.attention_scale
        if rows is None:  # every folded head reads its member's lengths: (M, B) -> (B, M*H)
            per_head = lengths.transpose(0, 1).repeat_interleave(h_sz, dim=1)
            out = attend(q, k, v, plan_heads(key), per_head, scale_mode=mode, scale=s)
        else:
            out = attend_rows(q, k, v, key, lengths, rows, scale_mode=mode, scale=s)
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
