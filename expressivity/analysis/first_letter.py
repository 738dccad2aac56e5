"""The first-letter measures of one trained model: gate-path retention, influence, signal.

A diagonal mixer (Mamba's selective SSM, signed or not, and S4D) adds the input of position
``s`` to its state ``h_j`` scaled by ``∏_{r=s'+1..j} a_r`` (``s'`` the last position whose conv
window still holds ``s``: ``s + d_conv - 1`` for Mamba, ``s`` for S4D; docs/theory.md §14). A
layer's output at ``j`` therefore reads position ``s`` with at most the factor

* 1 when ``j - s < d_conv`` (the conv and ``D`` skip) or when an attention head of the layer
  lets query ``j`` attend key ``s`` (its mask), and always along the residual (``s = j``);
* ``max_c |∏_{r=s'+1..j} a_{r,c}|`` over the mixer's channels ``c`` otherwise.

`first_letter_retention` composes these factors through the layers (a path may stay put in a
layer, move by attention or by the state): the largest product over all paths from the first
letter (token 1) to the readout row (EOS), in log10, per word. It is an exact property of the
weights on that word, and the measure of the failure the state-space protocol pilot found
(runs fit the training lengths and decay beyond): a run whose best path keeps 10⁻⁶ of the first
letter at length 500 must tell that letter from the other 500 contributions of its state with a
millionth of the signal. It bounds how strongly the state can carry the letter; it is not a
bound on the decision (the readout can amplify a small signal), so it is evidence, not proof.

`first_letter_influence` measures the decision itself: how far the accept logit moves when the
first letter is replaced by each other letter (max − min over the alphabet). A run with
retention near 0 but influence 0 at every length has the memory and never used it (an
optimization failure, not a decay with length); influence that shrinks with length is decay.

`first_letter_signal` measures what reaches the decision: the largest distance between the
final residual vectors at the readout row (before the last LayerNorm) of the words that differ
in their first letter only, and (``relative=True``) that distance over the mean norm of those
vectors, the scale the LayerNorm removes. Retention is a maximum over *every* channel, used or
not; the signal is the letter's difference in the channels the model actually wrote it to. The
influence is a thresholded image of it (the readout saturates), flat while the signal clears
the readout's threshold and 0 after; the signal shows the decay itself (docs/theory.md §19).

`memory_by_length` takes their medians over random words of each length; `analysis.memory`
takes them over the runs of a store. Limits: `MAX_LENGTH` letters, `MAX_WORDS` words per
length.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from expressivity.errors import ConfigError
from expressivity.models.ssm.mixers import DiagonalSSM, SelectiveSSM
from expressivity.models.tokens import encode_batch
from expressivity.models.transformer import Recognizer

__all__ = ["LENGTHS", "MAX_LENGTH", "MAX_WORDS", "first_letter_influence",
           "first_letter_retention", "first_letter_signal", "memory_by_length"]

#: The longest word measured (letters).
MAX_LENGTH = 2_000
#: The most words measured per length.
MAX_WORDS = 64
#: Default word lengths: inside the papers' training range, the pilot's, twice it, the test's end.
LENGTHS = (40, 120, 240, 500)


def _mixer_log_gates(mixer: torch.nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, int]:
    """log |a| (B, T, C) of a diagonal mixer on its input ``x`` (B, T, d), and its conv width."""
    if isinstance(mixer, SelectiveSSM):
        t_sz = x.shape[1]
        u, _ = mixer.in_proj(x).chunk(2, dim=-1)
        u = F.silu(mixer.conv1d(u.transpose(1, 2))[:, :, :t_sz].transpose(1, 2))
        a, _, _ = mixer.gates(u)  # (B, T, E, N)
        width = int(mixer.conv1d.kernel_size[0])
        return torch.log(a.abs().clamp_min(1e-38)).flatten(2), width
    if isinstance(mixer, DiagonalSSM):
        a = mixer.gate().abs().clamp_min(1e-38).log().flatten()  # (C,), time-invariant
        return a.expand(x.shape[0], x.shape[1], -1), 1
    raise ConfigError(f"memory: {type(mixer).__name__} is not a diagonal mixer (the delta "
                      "rule's state transition is a matrix: no per-channel gate product)")


def _through_mixer(best: torch.Tensor, gates: torch.Tensor, width: int) -> torch.Tensor:
    """max over s ≤ j of best[s] + log-factor(s → j) of one mixer: (B, T) -> (B, T)."""
    b_sz, t_sz = best.shape
    near = torch.stack([torch.cat([best.new_full((b_sz, i), -math.inf), best[:, :t_sz - i]], 1)
                        for i in range(min(width, t_sz))]).amax(0)  # j - s < width: factor 1
    cum = gates.cumsum(1)  # S[t, c] = Σ_{r ≤ t} log|a_r|
    shifted = torch.cat([cum[:, width - 1:], cum.new_full((b_sz, width - 1, cum.shape[2]),
                                                           math.inf)], 1)  # S[s + w - 1]
    start = torch.cummax(best.unsqueeze(-1) - shifted, dim=1).values  # max_{s ≤ j}
    # s ≤ j - w + 1 enters the state at s' = s + w - 1 ≤ j: shift the prefix max by w - 1
    lag = torch.cat([start.new_full((b_sz, width - 1, start.shape[2]), -math.inf),
                     start[:, :t_sz - width + 1]], 1)
    far = (cum + lag).amax(-1)
    return torch.maximum(near, far)


@contextlib.contextmanager
def _evaluating(model: Recognizer) -> Iterator[None]:
    """The block with ``model`` in eval mode; its mode is restored after."""
    was = model.training
    model.eval()
    try:
        yield
    finally:
        model.train(was)


@torch.no_grad()
def first_letter_retention(model: Recognizer, words: Sequence[np.ndarray]) -> np.ndarray:
    """Per word (symbol codes, all of one length ≥ 1), log10 of the largest product of gates on
    any path from its first letter (token 1) to its readout row (EOS), through every layer
    (module docstring). 0 means a path keeps the letter whole; -inf means no path reaches."""
    if model.config.readout != "eos":
        raise ConfigError(f"memory: the readout is {model.config.readout!r}; the retention is "
                          "measured to the EOS row of a causal model (readout 'eos')")
    lengths = {len(w) for w in words}
    if len(lengths) != 1 or min(lengths) < 1:
        raise ConfigError(f"memory: words of one length ≥ 1 per call, got lengths {lengths}")
    tokens, n = encode_batch(list(words), model.alphabet_size)
    with _evaluating(model):
        states = model.forward_hidden(tokens, n)
    t_sz = tokens.shape[1]
    best = torch.full((len(words), t_sz), -math.inf, dtype=torch.float64)
    best[:, 1] = 0.0
    for block, x in zip(model.blocks, states[:-1], strict=True):
        attn, h = block.attn, block.ln1(x)
        out = best.clone()  # the residual: a path may stay at its position
        mixed = {i for heads in attn.mixer_heads for i in heads}
        reach = torch.zeros(t_sz, t_sz, dtype=torch.bool)
        for i, pattern in enumerate(attn.patterns):
            if i not in mixed:
                reach |= pattern.mask(t_sz, strict=model.config.strict).to(torch.bool)
        if reach.any():
            via = best.unsqueeze(1).masked_fill(~reach, -math.inf).amax(-1)
            out = torch.maximum(out, via)
        for mixer in attn.mixers:
            gates, width = _mixer_log_gates(mixer, h)
            out = torch.maximum(out, _through_mixer(best, gates.double(), width))
        best = out
    return (best[:, t_sz - 1] / math.log(10)).numpy()


@torch.no_grad()
def _variant_readouts(model: Recognizer, words: Sequence[np.ndarray], what: str
                      ) -> torch.Tensor:
    """The final residual vectors at the readout row (before the last LayerNorm), (W, S, d),
    of the S words that replace each word's first letter by each letter of the alphabet."""
    if any(len(w) < 1 for w in words):
        raise ConfigError(f"memory: the first-letter {what} needs words of length ≥ 1")
    s = model.alphabet_size
    variants = [np.concatenate([[c], w[1:]]) for w in words for c in range(s)]
    tokens, n = encode_batch(variants, s)
    with _evaluating(model):
        final = model.forward_hidden(tokens, n)[-1]
        return model.read_out(final, n).view(len(words), s, -1)


@torch.no_grad()
def _influence(model: Recognizer, read: torch.Tensor) -> np.ndarray:
    with _evaluating(model):
        logits = model.classify(read.flatten(0, 1)).double().view(read.shape[:2])
    return (logits.amax(1) - logits.amin(1)).numpy()


def _signal(read: torch.Tensor, relative: bool) -> np.ndarray:
    read = read.double()
    spread = torch.cdist(read, read).flatten(1).amax(1)
    if relative:
        norm = read.norm(dim=-1).mean(1)
        spread = torch.where(norm > 0, spread / norm.clamp_min(1e-300), torch.zeros_like(norm))
    return spread.numpy()


@torch.no_grad()
def first_letter_influence(model: Recognizer, words: Sequence[np.ndarray]) -> np.ndarray:
    """Per word (symbol codes, length ≥ 1), max − min of the accept logit over the words that
    replace its first letter by each letter of the alphabet."""
    return _influence(model, _variant_readouts(model, words, "influence"))


@torch.no_grad()
def first_letter_signal(model: Recognizer, words: Sequence[np.ndarray], *,
                        relative: bool = False) -> np.ndarray:
    """Per word (symbol codes, length ≥ 1), the largest Euclidean distance between the final
    residual vectors at the readout row (before the last LayerNorm) of the words that replace
    its first letter by each letter of the alphabet: 0 when the decision cannot see it. With
    ``relative``, divided by the mean norm of those vectors (0 where they are all 0)."""
    return _signal(_variant_readouts(model, words, "signal"), relative)


def memory_by_length(model: Recognizer, lengths: Sequence[int] = LENGTHS, *,
                     words: int = 16, seed: int = 0
                     ) -> dict[int, tuple[float, float, float, float]]:
    """Per length: the median `first_letter_retention` (log10), `first_letter_influence`,
    `first_letter_signal` and relative signal over ``words`` uniform random words of that
    length (symbols drawn with ``seed``)."""
    if not 1 <= words <= MAX_WORDS:
        raise ConfigError(f"memory: words per length from 1 to {MAX_WORDS}, got {words}")
    bad = [n for n in lengths if not 1 <= n <= MAX_LENGTH]
    if bad:
        raise ConfigError(f"memory: lengths from 1 to {MAX_LENGTH} letters, got {bad}")
    rng = np.random.default_rng(seed)
    out = {}
    for n in lengths:
        sample = [rng.integers(0, model.alphabet_size, n) for _ in range(words)]
        read = _variant_readouts(model, sample, "signal")  # one pass for the last three
        out[n] = (float(np.median(first_letter_retention(model, sample))),
                  float(np.median(_influence(model, read))),
                  float(np.median(_signal(read, relative=False))),
                  float(np.median(_signal(read, relative=True))))
    return out
