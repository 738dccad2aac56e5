"""The one-matching-key probe: each first-layer head's margin Δ and scale s on a lone key.

The density shortcut of issue 34: global attention over ``b…bac…c`` must find one ``a``
among n keys, and softmax gives it weight e^Δ / (e^Δ + n − 1) → 0 (Δ: the logit margin of
``a`` over the other keys). With length-aware logits (`models.scaling`) the weight is
n^{sΔ} / (n^{sΔ} + n − 1), which tends to 1 iff sΔ > 1 (docs/theory.md §9). The probe reads
Δ off a model exactly: in the first layer of a NoPE model a key's vector depends on its
token alone, so for the EOS query

    Δ_h = q_h(EOS) · (k_h(key) − k_h(other)) / √d_head,    q, k from ln1 of the embeddings

and s_h is the head's learned SSMax scale (1 for "log-n"; for "none" the weight does not
scale with n and ``tends_to_one`` is False). Deeper layers mix context into the keys, so
only the first layer has a token-only margin; `one_key_probe` reports it per head.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import torch

from expressivity.checkpoint import load_checkpoint
from expressivity.errors import ConfigError
from expressivity.models.config import ModelConfig
from expressivity.models.scaling import one_key_weight
from expressivity.models.tokens import eos_id
from expressivity.models.transformer import Recognizer

__all__ = ["KeyProbe", "one_key_probe", "probe_checkpoint"]


@dataclass(frozen=True)
class KeyProbe:
    """One first-layer head on the probe: margin Δ, scale s, and the attention scaling."""

    head: int
    margin: float  # Δ: logit of the key token minus that of the other token, EOS query
    s: float  # SSMax s_h (1 for "log-n" and for "none")
    scale: str  # the model's attention_scale

    @property
    def s_delta(self) -> float:
        """sΔ: the exponent of n in the lone key's unnormalised weight (scaled models)."""
        return self.s * self.margin

    @property
    def tends_to_one(self) -> bool:
        """Whether the lone key's weight tends to 1 as n grows (scaled and sΔ > 1)."""
        return self.scale != "none" and self.s_delta > 1.0

    def weight(self, n: int) -> float:
        """The lone key's weight among n keys whose others all score like ``other``."""
        return one_key_weight(n, self.margin, self.s, self.scale)


@torch.no_grad()
def one_key_probe(model: Recognizer, key: int, other: int) -> tuple[KeyProbe, ...]:
    """Every first-layer head of ``model`` on the lone symbol code ``key`` among ``other``."""
    config = model.config
    size = model.alphabet_size
    for name, code in (("key", key), ("other", other)):
        if not 0 <= code < size:
            raise ConfigError(f"{name}: symbol code {code} is not in 0..{size - 1}")
    if config.positional != "none":
        raise ConfigError(
            f"one_key_probe: positional = {config.positional!r} makes first-layer keys depend "
            "on their position; the probe's token-only margin needs NoPE"
        )
    block = model.blocks[0]
    x = block.ln1(model.embed.weight[[eos_id(size), key, other]])  # (3, d)
    attn = block.attn
    q, k = attn.q(x[:1]), attn.k(x[1:])
    scales = attn.length_scale
    out = []
    for h in range(attn.n_heads):
        cut = attn.head_slice(h)
        margin = float(q[0, cut] @ (k[0, cut] - k[1, cut])) / math.sqrt(attn.d_head)
        s = float(scales[h]) if scales is not None else 1.0
        out.append(KeyProbe(h, margin, s, config.attention_scale))
    return tuple(out)


def probe_checkpoint(path: str | os.PathLike[str], key: str, other: str
                     ) -> tuple[KeyProbe, ...]:
    """`one_key_probe` of a run's checkpoint (``training.train``'s file), with the lone
    ``key`` and the ``other`` symbol named as in the run's alphabet (e.g. "a", "b")."""
    ckpt = load_checkpoint(path)
    symbols = [str(x) for x in ckpt.config.get("alphabet", ())]
    for name, symbol in (("key", key), ("other", other)):
        if symbol not in symbols:
            raise ConfigError(f"{name}: symbol {symbol!r} is not in the run's alphabet "
                              f"{{{','.join(symbols)}}} ({path})")
    model = Recognizer(ModelConfig.from_dict(ckpt.config["model"]), len(symbols))
    model.load_state_dict(ckpt.model)
    return one_key_probe(model.eval(), symbols.index(key), symbols.index(other))
