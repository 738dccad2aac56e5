"""Exact SSM recognizers: selective channels in Mamba's form, set by hand, run by the scan.

A channel of a selective SSM (`models.ssm.mixers`, A = −1) is, per position t,

    Δ_t = softplus(z_t),  a_t = exp(−Δ_t) (signed: 2·exp(−Δ_t) − 1),  h_t = a_t h_{t−1} + Δ_t v_t

where z_t and v_t are linear in the layer's input features at t. Floating point makes three
gates exact (docs/theory.md §14, "Exact gates"): z = −200 gives Δ = 0 and a = 1 (keep, input
0); z = 200 gives Δ = 200 and a = 0 (reset to 200·v), or a = −1 when signed (flip). A constant
Δ = ln 4 gives a = 1/4: the delay channel h_t = f_t + h_{t−1}/4, whose part below f_t is
≥ 1/4 iff f_{t−1} = 1 and ≤ 1/12 otherwise, so a threshold at 1/6 reads Y f exactly.

Between layers, a position-wise map computes Boolean features by thresholds (what a ReLU
feed-forward sublayer computes exactly on such finitely many, well-separated values); the
readout thresholds features at EOS. Each recognizer here runs `parallel_scan` in float32 on the
toolkit's token layout ``[BOS, w, EOS]`` and is checked against its DFA on all short words and
long random words (tests/models/ssm/test_construct.py). One 1-local strict attention head
(`models.attention.banded_attention`, mask from `models.masks`) joins the hybrid.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from expressivity.alphabet import Alphabet
from expressivity.models import masks
from expressivity.models.attention import band_plan, banded_attention
from expressivity.models.ssm.mixers import signed_gate
from expressivity.models.ssm.scan import parallel_scan

__all__ = ["CONSTRUCTIONS", "Construction", "channel", "delayed"]

KEEP, SET = -200.0, 200.0  # z giving Δ = 0 (a = 1) and Δ = 200 (a = 0, or −1 when signed)
Features = dict[str, torch.Tensor]  # name -> (B, T) bool, one column per token


def channel(z: torch.Tensor, v: torch.Tensor, *, signed: bool = False,
            dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """h of one selective channel: Δ = softplus(z), a = exp(−Δ) (signed: 2exp(−Δ) − 1),
    b = Δ·v, scanned in parallel. z, v: (B, T) -> h: (B, T)."""
    delta = torch.nn.functional.softplus(z.to(dtype))
    decay = torch.exp(-delta)
    a = signed_gate(decay) if signed else decay
    return parallel_scan(a.unsqueeze(-1), (delta * v.to(dtype)).unsqueeze(-1))[..., 0]


def _pick(when: torch.Tensor, yes: float, no: float) -> torch.Tensor:
    return torch.where(when, torch.tensor(yes), torch.tensor(no))


def flip_flop(set_: torch.Tensor, reset: torch.Tensor) -> torch.Tensor:
    """The non-negative channel h_t = 1 after a set, 0 after a reset, else h_{t−1} (bool)."""
    z = _pick(set_ | reset, SET, KEEP)
    h = channel(z, _pick(set_, 1.0 / SET, 0.0))
    return h > 0.5


def delayed(f: torch.Tensor) -> torch.Tensor:
    """Y f: the delay channel with constant a = 1/4 (Δ = ln 4), thresholded at 1/6."""
    delta = math.log(4.0)
    z = torch.full(f.shape, math.log(math.expm1(delta)))  # softplus(z) = ln 4
    h = channel(z, f.float() / delta)
    return (h - f.float()) > 1.0 / 6.0


def parity(flip: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
    """The signed channel h = +1 at ``start`` then ×(−1) at every ``flip``: True where even."""
    z = _pick(flip | start, SET, KEEP)
    h = channel(z, _pick(start, 1.0 / SET, 0.0), signed=True)
    return h > 0


def local_one(tokens: torch.Tensor, vocab: int) -> torch.Tensor:
    """A 1-local strict attention head whose values are one-hot tokens: row n reads token n−1
    (BOS reads itself by the sink rule). (B, T) -> (B, T, vocab)."""
    t_sz = tokens.shape[1]
    plan = band_plan(t_sz, 1, lambda n, m: masks.local_allowed(n, m, 1))
    v = torch.nn.functional.one_hot(tokens, vocab).float()[:, None]  # (B, 1, T, V)
    q = torch.zeros(tokens.shape[0], 1, t_sz, vocab)
    return banded_attention(q, torch.zeros_like(q), v, plan)[:, 0]


@dataclass(frozen=True)
class Construction:
    """A hand-set recognizer: its language (regex over ``alphabet``), mixer kinds, and runner."""

    name: str
    regex: str
    alphabet: Alphabet
    kinds: tuple[str, ...]  # the layout atoms it uses, e.g. ("MS",) or ("MS", "L1")
    layers: int
    run: Callable[[Features, torch.Tensor], torch.Tensor]  # features, tokens -> accept (B,)

    def accepts(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Accept decisions (B,) for encoded words (`models.tokens.encode_batch`)."""
        s = len(self.alphabet)
        feats = {sym: tokens == i for i, sym in enumerate(self.alphabet.symbols)}
        feats |= {"bos": tokens == s, "eos": tokens == s + 1}
        out = self.run(feats, tokens)  # (B, T) per position
        return out[torch.arange(tokens.shape[0]), lengths + 1]


def _parity_b(f: Features, _: torch.Tensor) -> torch.Tensor:
    return parity(f["b"], f["bos"])


def _parity_a(f: Features, _: torch.Tensor) -> torch.Tensor:
    return parity(f["a"], f["bos"])


def _even_as(f: Features, _: torch.Tensor) -> torch.Tensor:
    seen_b = flip_flop(f["b"], f["bos"])
    return parity(f["a"], f["bos"]) & ~seen_b


def _factor_ab(f: Features, _: torch.Tensor) -> torch.Tensor:
    after_a = delayed(f["a"])  # layer 1: Y a
    return flip_flop(f["b"] & after_a, f["bos"])  # layer 2: P(b ∧ Y a), kept through EOS


def _dyck_11(f: Features, _: torch.Tensor) -> torch.Tensor:
    """(ab)*: no aa, no bb, first letter a, and the last letter b (or empty)."""
    prev_a, prev_b, prev_bos = delayed(f["a"]), delayed(f["b"]), delayed(f["bos"])
    bad = (f["a"] & (prev_a | ~(prev_b | prev_bos))) | (f["b"] & ~prev_a)
    bad |= f["eos"] & prev_a
    return ~flip_flop(bad, f["bos"])


def _parity_last_a(f: Features, tokens: torch.Tensor) -> torch.Tensor:
    last = local_one(tokens, int(tokens.max()) + 1)  # the attention head: Y at EOS
    return parity(f["b"], f["bos"]) & (last[..., 0] > 0.5)


AB, A = Alphabet(("a", "b")), Alphabet(("a",))
#: The constructions of docs/theory.md §14, by name.
CONSTRUCTIONS: dict[str, Construction] = {c.name: c for c in (
    Construction("parity", "a* (b a* b a*)*", AB, ("MS",), 1, _parity_b),
    Construction("aa-star", "(a a)*", A, ("MS",), 1, _parity_a),
    Construction("aa-star-ab", "(a a)*", AB, ("MS",), 1, _even_as),
    Construction("factor-ab", "(a|b)* a b (a|b)*", AB, ("M",), 2, _factor_ab),
    Construction("dyck-1-1", "(a b)*", AB, ("M",), 2, _dyck_11),
    Construction("parity-last-a", "(a | b a* b)* a", AB, ("MS", "L1"), 1,
                 _parity_last_a),
)}
