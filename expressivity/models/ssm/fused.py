"""The mixers' recurrences as autograd functions with hand-written gradients, time-major.

`selective_scan` computes what `SelectiveSSM` computes between its convolution and its output
gate (docs/theory.md §14, notation of `models.ssm.mixers`)::

    a_t = exp(Δ_t A)  (signed: 2 exp(Δ_t A) − 1),   h_t = a_t ⊙ h_{t−1} + Δ_t u_t B_t,
    y_t = Σ_n C_{t,n} h_{t,·,n}

with the gradient written out by hand (`SelectiveScan.backward`): the adjoint of a diagonal
recurrence is the same recurrence run backwards, g_t = ∂y-terms_t + a_{t+1} ⊙ g_{t+1}, and
∂a_t = g_t ⊙ h_{t−1}, ∂b_t = g_t. `recurrence` is that for any diagonal recurrence (S4D's,
real or complex), `causal_depthwise` the mixer's convolution as K shifted products, and
`causal_convolution` a time-invariant recurrence's whole map as a product with the Toeplitz
matrix of its kernel (S4D's fused path at training lengths: no (B, T, E, N) state at all). Nothing
of it is new mathematics; what it buys is speed on a CPU. Autograd through the module's
steps keeps every broadcast product of shape (B, T, E, N) and reduces it again in the
backward pass, and the chunked scan walks strided views; here every tensor is laid out
(T, B, N, E), so a step of the recurrence is one contiguous slice, the reductions over the N
states run over a middle axis with E contiguous, and the recurrence is a plain loop of ``T``
fused multiply-adds each way. Both directions are O(T) work; the loop has T dependent steps,
which suits the training lengths of the CPU profiles (≤ 40 letters) and leaves long
sequences to the chunked and parallel scans.

`tests/models/ssm/test_fused.py` checks values and gradients against autograd through the
references (`sequential_scan`, ``nn.Conv1d``) in float64, on random shapes (hypothesis),
signed, complex and not.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

__all__ = ["KERNEL_MAX_LENGTH", "Recurrence", "SelectiveScan", "causal_convolution",
           "causal_depthwise", "check_scan", "recurrence", "selective_scan"]

#: The longest sequence `causal_convolution` takes: its Toeplitz product is O(T²) work per
#: channel against the recurrence's O(T N), cheap at the training lengths and not beyond.
KERNEL_MAX_LENGTH = 128


def _recurrence(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Every h_t = a_t ⊙ h_{t−1} + b_t from h_{−1} = 0, time-major: (T, …) -> (T, …)."""
    h = torch.empty_like(b)
    if b.shape[0]:
        h[0] = b[0]
    for t in range(1, b.shape[0]):
        torch.addcmul(b[t], a[t], h[t - 1], out=h[t])
    return h


def _adjoint(a: torch.Tensor, dh: torch.Tensor) -> torch.Tensor:
    """The adjoint recurrence g_t = dh_t + a_{t+1} ⊙ g_{t+1}, g_{T−1} = dh_{T−1}: (T, …)."""
    g = torch.empty_like(dh)
    n = dh.shape[0]
    if n:
        g[n - 1] = dh[n - 1]
    for t in range(n - 2, -1, -1):
        torch.addcmul(dh[t], a[t + 1], g[t + 1], out=g[t])
    return g


def _gate_gradient(g: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    """∂a_t = g_t ⊙ h̄_{t−1} from the adjoint g and the states h (h_{−1} = 0), time-major; the
    conjugate is autograd's convention for complex gates and nothing for real ones."""
    da = torch.zeros_like(g)
    torch.mul(g[1:], h[:-1].conj(), out=da[1:])
    return da


class Recurrence(torch.autograd.Function):
    """h_t = a_t ⊙ h_{t−1} + b_t for (B, T, *S) gates and inputs, real or complex."""

    @staticmethod
    def forward(ctx: Any, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        at = a.transpose(0, 1).contiguous()
        h = _recurrence(at, b.transpose(0, 1).contiguous())
        ctx.save_for_backward(at, h)
        return h.transpose(0, 1)

    @staticmethod
    def backward(ctx: Any, dh: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        at, h = ctx.saved_tensors  # complex: autograd's conjugate convention, ∂L/∂z̄
        g = _adjoint(at.conj(), dh.transpose(0, 1).contiguous())
        return _gate_gradient(g, h).transpose(0, 1), g.transpose(0, 1)


def check_scan(a: torch.Tensor, b: torch.Tensor) -> None:
    """A `ValueError` unless the gates ``a`` and inputs ``b`` of a scan share one shape
    (B, T, ...): every scan of `models.ssm.scan` checks its arguments with it."""
    if a.shape != b.shape or a.dim() < 2:
        raise ValueError(f"gates and inputs must share one shape (B, T, ...), got "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")


def recurrence(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Every state of h_t = a_t ⊙ h_{t−1} + b_t (h_{−1} = 0), (B, T, *S) -> (B, T, *S), by a
    time-major loop each way (`Recurrence`): the scan ``"fused"`` of `models.ssm.scan`."""
    check_scan(a, b)
    out: torch.Tensor = Recurrence.apply(a, b)
    return out


class SelectiveScan(torch.autograd.Function):
    """y = C · h with h_t = a_t h_{t−1} + Δ_t u_t B_t; the hand-written gradient of it."""

    @staticmethod
    def forward(ctx: Any, u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor,
                B: torch.Tensor, C: torch.Tensor, signed: bool) -> torch.Tensor:
        """u, Δ (B, T, E); A (E, N); B, C (B, T, N) -> y (B, T, E)."""
        ut, dt = u.transpose(0, 1), delta.transpose(0, 1)  # (T, B, E)
        bt, ct = B.transpose(0, 1).unsqueeze(-1), C.transpose(0, 1).unsqueeze(-1)  # (T, B, N, 1)
        decay = torch.exp(dt.unsqueeze(2) * A.t())  # (T, B, N, E)
        a = 2 * decay - 1 if signed else decay
        x = dt * ut  # (T, B, E): what a letter writes, before B
        h = _recurrence(a, x.unsqueeze(2) * bt)
        ctx.save_for_backward(ut, dt, A, bt, ct, decay, a, x, h)
        ctx.signed = signed
        return (h * ct).sum(2).transpose(0, 1)

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        ut, dt, A, bt, ct, decay, a, x, h = ctx.saved_tensors
        dyt = dy.transpose(0, 1).unsqueeze(2)  # (T, B, 1, E)
        g = _adjoint(a, dyt * ct)  # ∂loss/∂b_t (T, B, N, E)
        d_c = (h * dyt).sum(-1)  # (T, B, N)
        # ∂(Δ A) = ∂a · ∂a/∂(Δ A), for a = exp(Δ A) or 2 exp(Δ A) − 1
        d_exp = _gate_gradient(g, h).mul_(decay)
        if ctx.signed:
            d_exp.mul_(2)
        dx = (g * bt).sum(2)  # (T, B, E)
        d_b = (g * x.unsqueeze(2)).sum(-1)  # (T, B, N)
        d_delta = (d_exp * A.t()).sum(2) + dx * ut
        d_a = (d_exp * dt.unsqueeze(2)).sum((0, 1)).t()  # (E, N)
        d_u = dx * dt
        return (d_u.transpose(0, 1), d_delta.transpose(0, 1), d_a,
                d_b.transpose(0, 1), d_c.transpose(0, 1), None)


def selective_scan(u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor, B: torch.Tensor,
                   C: torch.Tensor, signed: bool = False) -> torch.Tensor:
    """Σ_n C_{t,n} h_{t,·,n} of the selective recurrence (module docstring), (B, T, E)."""
    if u.shape != delta.shape or u.dim() != 3:
        raise ValueError(f"u and Δ must share one shape (B, T, E), got {tuple(u.shape)} and "
                         f"{tuple(delta.shape)}")
    e, n = A.shape
    want = (u.shape[0], u.shape[1], n)
    if u.shape[2] != e or tuple(B.shape) != want or tuple(C.shape) != want:
        raise ValueError(f"A must be (E, N) = ({u.shape[2]}, N) and B, C (B, T, N) = {want}; "
                         f"got A {tuple(A.shape)}, B {tuple(B.shape)}, C {tuple(C.shape)}")
    out: torch.Tensor = SelectiveScan.apply(u, delta, A, B, C, signed)
    return out


def causal_depthwise(u: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Mamba's causal depthwise convolution of u (B, T, E) as K shifted products, (B, T, E):
    y_t = bias + Σ_k weight[:, 0, k] u_{t−K+1+k}, zero before position 0 — what
    ``nn.Conv1d(E, E, K, groups=E, padding=K − 1)`` computes, cut to the first T outputs. On a
    CPU at the training sizes its backward pass costs less than the convolution's."""
    k_sz, t_sz = weight.shape[-1], u.shape[1]
    padded = F.pad(u, (0, 0, k_sz - 1, 0))
    y = torch.addcmul(bias, padded[:, :t_sz], weight[:, 0, 0])
    for k in range(1, k_sz):
        y = torch.addcmul(y, padded[:, k:k + t_sz], weight[:, 0, k])
    return y


def causal_convolution(u: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """y_t = Σ_{s ≤ t} K_{t−s} ⊙ u_s for u (B, T, E) and a kernel K (E, ≥ T): the map of a
    time-invariant diagonal recurrence read out linearly, as one product per channel with the
    lower-triangular Toeplitz matrix of K ((E, T, T) @ (E, T, B)). (B, T, E) -> (B, T, E)."""
    if u.dim() != 3 or kernel.dim() != 2 or kernel.shape[0] != u.shape[2] \
            or kernel.shape[1] < u.shape[1]:
        raise ValueError(f"causal_convolution: inputs (B, T, E) and a kernel (E, >= T), got "
                         f"{tuple(u.shape)} and {tuple(kernel.shape)}")
    positions = torch.arange(u.shape[1], device=u.device)
    lag = positions[:, None] - positions[None, :]  # t − s
    toeplitz = kernel[:, lag.clamp(min=0)] * (lag >= 0).to(kernel.dtype)
    return torch.bmm(toeplitz, u.permute(2, 1, 0)).permute(2, 1, 0)
