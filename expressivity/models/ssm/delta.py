"""The gated delta rule S_t = S_{t-1} A_t + B_t with generalized Householder transitions.

Per head, with key k_t (unit norm), value v_t, strength β_t ∈ [0, 2] and decay α_t ∈ (0, 1]:

    A_t = α_t (I − β_t k_t k_tᵀ)    (d_k × d_k: eigenvalue α_t(1 − β_t) ∈ [−1, 1] along k_t,
                                      α_t on k_t's orthogonal complement)
    B_t = β_t v_t k_tᵀ               (d_v × d_k)
    o_t = S_t q_t

β ∈ [0, 1] is DeltaNet's range (eigenvalues in [0, 1]); β up to 2 is Grazzi et al.'s (ICLR
2025) extension to negative eigenvalues, the one that makes PARITY possible. `sequential_delta`
applies the rank-one update step by step (the reference); `parallel_delta` runs the log-depth
scan over the associative composition (A₁, B₁) then (A₂, B₂) = (A₁A₂, B₁A₂ + B₂) with explicit
d_k × d_k matrices (O(T log T · d_k³) work: meant for the small heads of this toolkit).
"""

from __future__ import annotations

import torch

__all__ = ["delta_outputs", "parallel_delta", "sequential_delta"]


def _checked(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, beta: torch.Tensor,
             alpha: torch.Tensor) -> None:
    if q.shape != k.shape or v.shape[:-1] != k.shape[:-1] or q.dim() != 4:
        raise ValueError(f"expected q, k (B, H, T, d_k) and v (B, H, T, d_v), got "
                         f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    if beta.shape != k.shape[:-1] or alpha.shape != k.shape[:-1]:
        raise ValueError(f"expected beta and alpha (B, H, T), got {tuple(beta.shape)} and "
                         f"{tuple(alpha.shape)}")


def sequential_delta(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, beta: torch.Tensor,
                     alpha: torch.Tensor) -> torch.Tensor:
    """o_t = S_t q_t, S_t = α_t (S_{t-1} − β_t (S_{t-1} k_t) k_tᵀ) + β_t v_t k_tᵀ, S_0 = 0.
    q, k: (B, H, T, d_k); v: (B, H, T, d_v); beta, alpha: (B, H, T) -> (B, H, T, d_v)."""
    _checked(q, k, v, beta, alpha)
    b_sz, h_sz, t_sz, d_k = k.shape
    s = k.new_zeros(b_sz, h_sz, v.shape[-1], d_k)
    outs = []
    for t in range(t_sz):
        kt, vt = k[:, :, t], v[:, :, t]  # (B, H, d_k), (B, H, d_v)
        bt, at = beta[:, :, t, None, None], alpha[:, :, t, None, None]
        sk = torch.einsum("bhvk,bhk->bhv", s, kt)
        k_row = kt[:, :, None, :]
        s = at * (s - bt * sk[..., None] * k_row) + bt * vt[..., None] * k_row
        outs.append(torch.einsum("bhvk,bhk->bhv", s, q[:, :, t]))
    if not outs:
        return v.new_zeros(v.shape)
    return torch.stack(outs, dim=2)


def transitions(k: torch.Tensor, v: torch.Tensor, beta: torch.Tensor,
                alpha: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A_t (B, H, T, d_k, d_k) and B_t (B, H, T, d_v, d_k) of every step."""
    eye = torch.eye(k.shape[-1], dtype=k.dtype, device=k.device)
    outer = k[..., :, None] * k[..., None, :]
    a = alpha[..., None, None] * (eye - beta[..., None, None] * outer)
    b = beta[..., None, None] * v[..., :, None] * k[..., None, :]
    return a, b


def parallel_delta(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, beta: torch.Tensor,
                   alpha: torch.Tensor) -> torch.Tensor:
    """The outputs of `sequential_delta` by a Hillis–Steele scan over (A_t, B_t)."""
    _checked(q, k, v, beta, alpha)
    a, b = transitions(k, v, beta, alpha)
    t_sz, step = k.shape[2], 1
    while step < t_sz:
        # position t: the composite of steps ..t-step, then the composite ending at t
        a_prev, b_prev = a[:, :, :-step], b[:, :, :-step]
        b = torch.cat([b[:, :, :step], b_prev @ a[:, :, step:] + b[:, :, step:]], dim=2)
        a = torch.cat([a[:, :, :step], a_prev @ a[:, :, step:]], dim=2)
        step *= 2
    return delta_outputs(b, q)


def delta_outputs(states: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """o_t = S_t q_t for states (B, H, T, d_v, d_k) and queries (B, H, T, d_k)."""
    return torch.einsum("bhtvk,bhtk->bhtv", states, q)
