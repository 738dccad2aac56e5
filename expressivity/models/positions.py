"""Optional positional information: sinusoidal tables, rotary embeddings (RoPE), ALiBi slopes.

None of these hold parameters (the learned absolute table is an `nn.Embedding` in the model),
so they are computed on the fly for any length. Positions are token indices (BOS = 0).
"""

from __future__ import annotations

import math

import torch

__all__ = ["alibi_slopes", "apply_rope", "sinusoidal_table"]


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


def apply_rope(x: torch.Tensor, positions: torch.Tensor, *, base: float = 10000.0) -> torch.Tensor:
    """Rotate channel pairs ``(i, i + D/2)`` of ``x`` (..., T, D) by ``position * base^(-2i/D)``.

    ``positions`` broadcasts against ``x.shape[:-1]`` (e.g. (T,) or (B, 1, T')).
    """
    half = x.shape[-1] // 2
    inv = base ** (-torch.arange(half, device=x.device, dtype=torch.float32) / half)
    angle = positions.to(torch.float32)[..., None] * inv  # (..., T, D/2)
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


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
