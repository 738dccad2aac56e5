"""Optional positional information: sinusoidal tables, rotary embeddings (RoPE), ALiBi slopes.

None of these hold parameters (the learned absolute table is an `nn.Embedding` in the model),
so they are computed on the fly for any length. Positions are token indices (BOS = 0), so the
token index of the word position n (EOS: N+1) is n itself.

*Periodic* encodings [JSLC26] replace the angle ``position · base^(−2i/D)`` by a lookup table
indexed by the position modulo a period m: channel pair i uses the period
``periods[i % len(periods)]`` and the angle ``2π · f · (position mod m) / m`` with the integer
frequency ``f = 1 + i // len(periods)``. The residue is taken on integers, so the angle of
position n is exactly that of n mod m at every length (no drift with n), and the first pair of
each period tells its m residues apart. Partial RoPE leaves the last ``unrotated`` channels of
every head as they are.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch

__all__ = [
    "absolute_table",
    "alibi_slopes",
    "apply_rope",
    "periodic_angles",
    "periodic_sinusoidal_table",
    "rotate",
    "sinusoidal_table",
]

if TYPE_CHECKING:
    from expressivity.models.config import ModelConfig


def sinusoidal_table(
    length: int, dim: int, *, device: torch.device | None = None, dtype: torch.dtype | None = None
) -> torch.Tensor:
    """The (T, dim) table of Vaswani et al.: ``sin`` on even, ``cos`` on odd channels."""
    pos = torch.arange(length, device=device, dtype=torch.float32)[:, None]
    freq = torch.exp(
        torch.arange(0, dim, 2, device=device, dtype=torch.float32) * (-math.log(10000.0) / dim)
    )
    table = torch.zeros(length, dim, device=device)
    table[:, 0::2] = torch.sin(pos * freq)
    table[:, 1::2] = torch.cos(pos * freq)[:, : dim // 2]
    return table.to(dtype or torch.get_default_dtype())


def periodic_angles(positions: torch.Tensor, periods: tuple[int, ...], pairs: int) -> torch.Tensor:
    """The (..., pairs) angles ``2π f (position mod m) / m`` of the periodic encodings (float32).

    Pair i has period ``m = periods[i % len(periods)]`` and frequency ``f = 1 + i // len(periods)``
    (module docstring); ``positions`` are integers.
    """
    if not periods:
        raise ValueError("a periodic encoding needs at least one period")
    idx = torch.arange(pairs, device=positions.device)
    m = torch.tensor(periods, device=positions.device, dtype=torch.int64)[idx % len(periods)]
    f = 1 + idx // len(periods)
    residue = positions.to(torch.int64)[..., None] % m  # exact, for any position
    turns = (residue * f) % m  # f·r mod m: the angle is a function of r mod m alone
    return turns.to(torch.float32) * (2 * math.pi) / m.to(torch.float32)


def periodic_sinusoidal_table(
    length: int,
    dim: int,
    periods: tuple[int, ...],
    *,
    device: torch.device | None = None,
    dtype: torch.dtype | None = None,
) -> torch.Tensor:
    """The (T, dim) periodic table: ``sin`` / ``cos`` of `periodic_angles` on even / odd
    channels."""
    angle = periodic_angles(torch.arange(length, device=device), periods, (dim + 1) // 2)
    table = torch.zeros(length, dim, device=device)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle)[:, : dim // 2]
    return table.to(dtype or torch.get_default_dtype())


def apply_rope(
    x: torch.Tensor,
    positions: torch.Tensor,
    *,
    base: float = 10000.0,
    unrotated: int = 0,
    periods: tuple[int, ...] = (),
) -> torch.Tensor:
    """Rotate channel pairs ``(i, i + R/2)`` of ``x`` (..., T, D) by ``position * base^(-2i/R)``.

    R = D − ``unrotated``: the last ``unrotated`` channels are left as they are (partial RoPE).
    With ``periods``, the angles are the periodic lookup `periodic_angles` instead.
    ``positions`` broadcasts against ``x.shape[:-1]`` (e.g. (T,) or (B, 1, T')).
    """
    rotated = x.shape[-1] - unrotated
    half = rotated // 2
    if periods:
        angle = periodic_angles(positions, periods, half)
    else:
        inv = base ** (-torch.arange(half, device=x.device, dtype=torch.float32) / half)
        angle = positions.to(torch.float32)[..., None] * inv  # (..., T, R/2)
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    x1, x2, rest = x[..., :half], x[..., half:rotated], x[..., rotated:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """ALiBi head slopes (Press et al. 2022): ``2^(-8i/n)`` for i = 1..n, with the paper's
    interleaving rule when ``n`` is not a power of two. Shape (n_heads,), float32."""

    def power_of_two(n: int) -> list[float]:
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]

    if n_heads & (n_heads - 1) == 0:
        slopes = power_of_two(n_heads)
    else:
        below = 2 ** math.floor(math.log2(n_heads))
        slopes = power_of_two(below) + power_of_two(2 * below)[0::2][: n_heads - below]
    return torch.tensor(slopes, dtype=torch.float32)


def absolute_table(
    config: ModelConfig, t_sz: int, d: int, *, device: torch.device, dtype: torch.dtype
) -> torch.Tensor | None:
    """The parameter-free (T, d) table added to the token embeddings (sinusoidal or periodic
    sinusoidal), or None for the other encodings: the one place `Recognizer` and
    `EnsembleRecognizer` read it from (the learned table is a parameter of the model)."""
    if config.positional == "sinusoidal":
        return sinusoidal_table(t_sz, d, device=device, dtype=dtype)
    if config.positional == "periodic-sinusoidal":
        return periodic_sinusoidal_table(t_sz, d, config.periods, device=device, dtype=dtype)
    return None


def rotate(x: torch.Tensor, positions: torch.Tensor, config: ModelConfig) -> torch.Tensor:
    """Queries or keys ``x`` (..., T, D) rotated as ``config`` says (RoPE, periodic RoPE,
    partial with ``rope_unrotated``); ``x`` itself for the other encodings. Shared by
    `SelfAttention` and `EnsembleRecognizer`, so the two cannot disagree."""
    if config.positional not in ("rope", "periodic-rope"):
        return x
    return apply_rope(x, positions, unrotated=config.rope_unrotated, periods=config.periods)
