"""Inside a recognizer: attention maps per layer and head, and linear probes of the residual stream.

`attention_maps` recomputes each head's attention weights on one word from the model's own
projections, masks (sink rule included) and positional scheme; ``weights @ values`` through
the output projection reproduces the attention sublayer exactly (tests/extraction).

`probe_subformulas` asks, for each subformula ψ of the target's formula and each layer l,
whether ψ's truth at a position is linearly readable from the residual state x_l there: an
L2-regularized logistic regression on standardized states, fitted on half of the words and scored on
the other half against the majority-class baseline. A constructed transformer writes each
materialized subformula into its own coordinate, so its probes are exact from that layer on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from expressivity.alphabet import Alphabet
from expressivity.logic.syntax import Formula
from expressivity.logic.vectorized import truth_table
from expressivity.models import masks
from expressivity.models.attention import alibi_bias
from expressivity.models.positions import alibi_slopes, apply_rope
from expressivity.models.tokens import encode_batch
from expressivity.models.transformer import Recognizer

__all__ = ["AttentionMaps", "ProbeTable", "attention_maps", "probe_subformulas"]


@dataclass(frozen=True, eq=False)
class AttentionMaps:
    """Attention weights ``weights[l, h, n, m]`` of query token n on key token m, one word."""

    weights: np.ndarray  # (layers, heads, T, T), rows sum to 1
    tokens: tuple[str, ...]  # "BOS", the symbols, "EOS"
    patterns: tuple[tuple[str, ...], ...]  # patterns[l][h], e.g. "G" or "L1"

    @property
    def n_layers(self) -> int:
        return int(self.weights.shape[0])

    @property
    def n_heads(self) -> int:
        return int(self.weights.shape[1])


@torch.no_grad()
def attention_maps(
    model: Recognizer, word: Sequence[int] | np.ndarray, alphabet: Alphabet | None = None
) -> AttentionMaps:
    """The attention weights of every layer and head of ``model`` on one word (symbol codes);
    ``alphabet`` names the tokens (default: the codes)."""
    model.eval()
    tokens, lengths = encode_batch([np.asarray(word, dtype=np.int64)], model.alphabet_size)
    states = model.forward_hidden(tokens, lengths)
    t_sz = tokens.shape[1]
    n, m = masks.grid(t_sz, tokens.device)
    out = []
    for layer, block in enumerate(model.blocks):
        attn = block.attn
        x = block.ln1(states[layer])
        q, k = attn._split(attn.q(x)), attn._split(attn.k(x))
        if attn.positional == "rope":
            pos = torch.arange(t_sz)
            q, k = apply_rope(q, pos), apply_rope(k, pos)
        scores = (q @ k.transpose(-1, -2))[0] / math.sqrt(attn.d_head)  # (H, T, T)
        if attn.positional == "alibi":
            scores = scores + alibi_bias(alibi_slopes(attn.n_heads), n, m)
        allowed = torch.stack([p.mask(t_sz, strict=attn.strict) for p in attn.patterns])
        out.append(torch.softmax(scores.masked_fill(~allowed, -math.inf), dim=-1))
    names = alphabet.symbols if alphabet is not None else tuple(
        str(i) for i in range(model.alphabet_size))
    labels = ("BOS", *(names[int(c)] for c in word), "EOS")
    patterns = tuple(tuple(str(p) for p in block.attn.patterns) for block in model.blocks)
    return AttentionMaps(torch.stack(out).numpy(), labels, patterns)


@dataclass(frozen=True, eq=False)
class ProbeTable:
    """Held-out probe accuracy per subformula and layer (layer 0 = the embeddings)."""

    subformulas: tuple[str, ...]
    accuracy: np.ndarray  # (subformulas, layers + 1)
    baseline: np.ndarray  # (subformulas,) majority-class accuracy on the held-out positions
    n_positions: int  # held-out positions per probe

    def first_layer(self, threshold: float = 0.99) -> dict[str, int | None]:
        """For each subformula, the first layer whose probe reaches ``threshold`` (or None)."""
        out: dict[str, int | None] = {}
        for name, row in zip(self.subformulas, self.accuracy, strict=True):
            hit = np.flatnonzero(row >= threshold)
            out[name] = int(hit[0]) if len(hit) else None
        return out

    def frame(self) -> pd.DataFrame:
        """Accuracy as a DataFrame: one row per subformula, columns ``x0..xL`` and baseline."""
        cols = [f"x{layer}" for layer in range(self.accuracy.shape[1])]
        frame = pd.DataFrame(self.accuracy, index=list(self.subformulas), columns=cols)
        frame["baseline"] = self.baseline
        frame["first layer ≥ 0.99"] = [self.first_layer()[s] for s in self.subformulas]
        return frame


def distinct_subformulas(formula: Formula) -> list[Formula]:
    """Each distinct subformula once, children before parents (post-order)."""
    return list(dict.fromkeys(formula.subformulas()))


@torch.no_grad()
def probe_subformulas(
    model: Recognizer,
    formula: Formula,
    alphabet: Alphabet,
    words: Sequence[np.ndarray],
    *,
    seed: int = 0,
    ridge: float = 1e-3,
) -> ProbeTable:
    """Linear probes of every residual state ``x_0..x_L`` for every subformula of ``formula``.

    Positions are the theory's 1..N+1 (tokens w1..wN and EOS) of each word of ``words``
    (symbol codes); half of the words (chosen with ``seed``) fit the probes, the rest score them.
    """
    model.eval()
    subs = distinct_subformulas(formula)
    order = np.random.default_rng(seed).permutation(len(words))
    half = max(1, len(words) // 2)
    feats: list[list[np.ndarray]] = [[], []]  # per part: (positions, layers+1, d)
    truth: list[list[np.ndarray]] = [[], []]
    for part, idx in enumerate((order[:half], order[half:])):
        for start in range(0, len(idx), 256):
            batch = [np.asarray(words[i], dtype=np.int64) for i in idx[start:start + 256]]
            tokens, lengths = encode_batch(batch, model.alphabet_size)
            states = torch.stack(model.forward_hidden(tokens, lengths), dim=2)  # (B,T,L+1,d)
            for b, w in enumerate(batch):
                feats[part].append(states[b, 1 : len(w) + 2].double().numpy())
                table = [truth_table(s, w, alphabet) for s in subs]
                truth[part].append(np.stack(table, axis=1))  # (N+1, subs)
    x_fit, x_test = (np.concatenate(f) for f in feats)
    y_fit, y_test = (np.concatenate(t) for t in truth)
    n_layers = x_fit.shape[1]
    acc = np.zeros((len(subs), n_layers))
    for layer in range(n_layers):
        design_fit, design_test = _design(x_fit[:, layer], x_test[:, layer])
        weights = _logistic(design_fit, y_fit, ridge)
        acc[:, layer] = ((design_test @ weights > 0) == y_test).mean(axis=0)
    majority = y_fit.mean(axis=0) >= 0.5
    baseline = (y_test == majority).mean(axis=0)
    return ProbeTable(tuple(str(s) for s in subs), acc, baseline, len(y_test))


def _logistic(x: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    """Weights (features, subformulas) of independent L2-regularized logistic regressions,
    fitted jointly by L-BFGS (deterministic; float64)."""
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.float64))
    w = torch.zeros(x.shape[1], y.shape[1], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w], max_iter=200, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        opt.zero_grad()
        value = torch.nn.functional.binary_cross_entropy_with_logits(xt @ w, yt)
        value = value + ridge * (w[:-1] ** 2).sum() / len(xt)
        value.backward()
        return value

    with torch.enable_grad():
        opt.step(loss)
    return w.detach().numpy()


def _design(fit: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both feature sets standardized with the fitting set's statistics, plus a bias column."""
    mean, scale = fit.mean(axis=0), fit.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    return tuple(  # type: ignore[return-value]
        np.concatenate([(x - mean) / scale, np.ones((len(x), 1))], axis=1) for x in (fit, test)
    )
