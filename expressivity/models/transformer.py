"""The recognizer of docs/theory.md §1: BOS + word + EOS in, one accept logit (at EOS) out.

Reads like the math (nanoGPT style)::

    x_0 = E[tokens] (+ absolute positions)                   residual stream, width d_model
    x_l = x_{l-1} + attn_l(ln1(x_{l-1}));  x_l += ffn_l(ln2(x_l))   for l = 1..n_layers
    logit = classifier(ln_f(x_L[EOS]))                       accept iff logit > 0

The classifier reads the EOS position by default; ``config.readout`` chooses BOS ("cls"), the
last symbol ("last") or the mean of positions 0..N+1 ("mean") instead (`models.readout`).

Everything is a plain, reachable module so weights can be set by hand (``model.embed.weight``,
``model.blocks[l].attn.q/k/v/o`` with head slices from `SelfAttention.head_slice`,
``model.blocks[l].ffn.up/act/down``, ``model.classifier``); with ``norm="none"`` the layer norms
are `nn.Identity`. Attention patterns come from ``config.layout`` (see `models.layouts`).
"""

from __future__ import annotations

import torch
from torch import nn

from expressivity.errors import ConfigError
from expressivity.models.blocks import Block, BlockList, FeedForward, SelfAttention
from expressivity.models.config import PRESETS, ModelConfig
from expressivity.models.positions import absolute_table
from expressivity.models.readout import pool, readout_rows
from expressivity.models.scaling import SSMAX_INIT
from expressivity.models.tokens import vocab_size

__all__ = [
    "PRESETS", "Block", "BlockList", "FeedForward", "ModelConfig", "Recognizer", "SelfAttention",
]


class Recognizer(nn.Module):
    """A transformer language recognizer over an alphabet of ``alphabet_size`` symbols.

    Token ids follow `models.tokens` (symbols, BOS, EOS, PAD). Parameters are drawn from
    ``seed`` with a private generator (construction leaves the global RNG as it was); only
    dropout, when ``config.dropout > 0`` and in training mode, draws from torch's global RNG.
    Inputs of any batch padding give the same logits as each string alone.
    """

    def __init__(self, config: ModelConfig, alphabet_size: int, *, seed: int = 0) -> None:
        super().__init__()
        if alphabet_size < 1:
            raise ConfigError(f"alphabet_size: expected >= 1, got {alphabet_size}")
        self.config, self.alphabet_size = config, alphabet_size
        self.layout = config.layout_spec()
        d, vocab = config.d_model, vocab_size(alphabet_size)
        with torch.random.fork_rng(devices=[]):  # default inits draw from (and restore) the RNG
            self.embed = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(config.max_len, d) if config.positional == "learned" else None
            self.blocks = BlockList(Block(config, row) for row in self.layout.layers)
            norm = config.norm == "layer"
            self.ln_f: nn.Module = nn.LayerNorm(d, bias=config.bias) if norm else nn.Identity()
            self.classifier = nn.Linear(d, 1)
            self.lm_head = nn.Linear(d, vocab) if config.lm_head else None
        self.drop: nn.Module = nn.Dropout(config.dropout) if config.dropout > 0 else nn.Identity()
        self.reset_parameters(seed)

    @torch.no_grad()
    def reset_parameters(self, seed: int = 0) -> None:
        """nanoGPT initialisation from ``seed``: N(0, init_std) weights and embeddings, residual
        output projections scaled by ``1/sqrt(2 n_layers)``, zero biases, unit LayerNorm gains,
        SSMax scales s_h at `SSMAX_INIT`."""
        gen = torch.Generator(device="cpu").manual_seed(seed)
        std = self.config.init_std
        for name, module in self.named_modules():
            if isinstance(module, nn.LayerNorm):
                nn.init.ones_(module.weight)
                if module.bias is not None:
                    nn.init.zeros_(module.bias)
            elif isinstance(module, (nn.Linear, nn.Embedding)):
                residual = name.endswith(("attn.o", "ffn.down"))
                scale = (2 * self.config.n_layers) ** -0.5 if residual else 1.0
                w = torch.empty(module.weight.shape).normal_(0.0, std * scale, generator=gen)
                module.weight.copy_(w)
                if isinstance(module, nn.Linear) and module.bias is not None:
                    nn.init.zeros_(module.bias)
            elif isinstance(module, SelfAttention) and module.length_scale is not None:
                module.length_scale.fill_(SSMAX_INIT)

    def num_parameters(self) -> int:
        """Number of trainable scalars."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def embed_tokens(self, tokens: torch.Tensor) -> torch.Tensor:
        """x_0: token embeddings plus absolute positions if configured. (B, T) -> (B, T, d)."""
        t_sz = tokens.shape[1]
        x = self.embed(tokens)
        if self.pos is not None:
            if t_sz > self.config.max_len:
                raise ConfigError(
                    f"max_len: inputs of {t_sz} tokens exceed max_len={self.config.max_len} of "
                    "the learned positions; raise max_len or use another positional encoding"
                )
            x = x + self.pos.weight[:t_sz]
        else:
            table = absolute_table(self.config, t_sz, x.shape[-1], device=x.device,
                                   dtype=x.dtype)
            if table is not None:
                x = x + table
        return self.drop(x)

    def _check(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if tokens.dim() != 2 or lengths.shape != tokens.shape[:1]:
            raise ValueError(
                f"expected tokens (B, T) and lengths (B,), got {tuple(tokens.shape)} and "
                f"{tuple(lengths.shape)}; build them with models.tokens.encode_batch"
            )
        return lengths.to(device=tokens.device, dtype=torch.long)

    def forward_hidden(self, tokens: torch.Tensor, lengths: torch.Tensor) -> list[torch.Tensor]:
        """All residual states ``[x_0, x_1, ..., x_L]``, each (B, T, d_model)."""
        lengths = self._check(tokens, lengths)
        states = [self.embed_tokens(tokens)]
        for block in self.blocks:
            states.append(block(states[-1], lengths))
        return states

    def classify(self, eos_states: torch.Tensor) -> torch.Tensor:
        """The linear classifier on final-layer read-out vectors (the EOS states under the
        default readout): (B, d_model) -> logits (B,)."""
        return self.classifier(self.ln_f(eos_states)).squeeze(-1)

    def read_out(self, states: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The vectors (B, d_model) the classifier reads from final states (B, T, d_model)."""
        rows = readout_rows(self.config.readout, lengths)
        if rows is None:
            return pool(states, lengths)
        return states[torch.arange(states.shape[0], device=states.device), rows]

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Accept logits (B,) read at the ``config.readout`` position of each row (EOS, index
        ``lengths + 1``, by default); accept iff > 0.

        With a one-position readout the last block computes only those query rows (keys and
        values everywhere), which gives the same logits as `forward_hidden` for a fraction of
        the last layer's cost.
        """
        lengths = self._check(tokens, lengths)
        x = self.embed_tokens(tokens)
        for block in self.blocks[:-1]:
            x = block(x, lengths)
        rows = readout_rows(self.config.readout, lengths)
        if rows is None:
            return self.classify(pool(self.blocks[-1](x, lengths), lengths))
        read = self.blocks[-1](x, lengths, rows=rows)  # (B, 1, d)
        return self.classify(read[:, 0])

    def lm_logits(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Next-token logits (B, T, vocab): row ``n`` predicts token ``n + 1`` (a symbol or EOS)."""
        if self.lm_head is None:
            raise ConfigError("lm_head: this model has no next-token head; set lm_head=true")
        return self.lm_head(self.ln_f(self.forward_hidden(tokens, lengths)[-1]))
