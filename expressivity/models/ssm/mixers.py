"""The state-space mixers as modules: selective (Mamba, plain or sign-flipping), S4D, delta rule.

Each maps a sequence ``x`` (B, T, d_in) to (B, T, d_out) causally and takes ``scan_how`` =
"chunked" (default, O(T) work), "parallel" (log depth), "sequential" (the reference) or
"fused" (`ssm.fused`: the selective mixer's scan with its gradient by hand; S4D's convolution
by its kernel up to `fused.KERNEL_MAX_LENGTH` positions, its fused recurrence beyond); the
delta rule runs "chunked" and "fused" as "parallel". Notation of docs/theory.md §14:

* `SelectiveSSM` — Mamba's block (Gu & Dao 2023), parameter names as in ``mambapy``::

      u, z = in_proj(x);  u = silu(conv1d(u))            causal depthwise conv of width d_conv
      Δ = softplus(dt_proj(x_proj_Δ(u)));  B, C = x_proj_B(u), x_proj_C(u)
      a_t = exp(Δ_t A)  ∈ (0, 1)        or, signed:  2 exp(Δ_t A) − 1 ∈ (−1, 1)  (Grazzi et al.)
      h_t = a_t ⊙ h_{t−1} + Δ_t B_t u_t;  y_t = C_t h_t + D u_t;  out_proj(y ⊙ silu(z))

* `DiagonalSSM` — time-invariant (S4D): a = exp(Δ A) with Δ and A fixed per channel (A real
  negative, or complex with negative real part); h_t = a ⊙ h_{t−1} + Δ B u_t;
  y_t = Re(C h_t) + D u_t, that is y_t = Σ_{s≤t} K_{t−s} u_s + D u_t with the kernel
  K_k = Δ Re Σ_n C_n B_n a_n^k (`DiagonalSSM.kernel`; the convolution mode of S4 and S4D);
  out_proj(y) (``output = "linear"``) or, as Gu et al.'s S4D layer has it,
  GLU(out_proj(GELU(y))) with out_proj to twice the width and a bias (``"gelu-glu"``).
* `DeltaRule` — the gated delta rule of `ssm.delta` with β = 2·sigmoid(·) ∈ (0, 2) and
  α = exp(−softplus(·)) ∈ (0, 1); keys L2-normalized.

fp32 is the default; every module runs on any device torch does (no CUDA-only kernel).
`reset_parameters(gen)` draws every weight from a `torch.Generator` (no global RNG).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from expressivity.models.ssm.delta import parallel_delta, sequential_delta
from expressivity.models.ssm.fused import (
    KERNEL_MAX_LENGTH,
    causal_convolution,
    causal_depthwise,
    selective_scan,
)
from expressivity.models.ssm.init import (
    DT_RANGE,
    FAST_DT_RANGE,
    initial_log_dt,
    normal_linear,
    s4d_magnitudes,
    uniform_,
)
from expressivity.models.ssm.scan import SCANS, scan

__all__ = ["S4D_OUTPUTS", "DeltaRule", "DiagonalSSM", "SelectiveSSM", "signed_gate"]

#: What `DiagonalSSM` does with y + D·u: "linear", or S4D's "gelu-glu" (docs/theory.md §16.6)
S4D_OUTPUTS = ("linear", "gelu-glu")


def signed_gate(decay: torch.Tensor) -> torch.Tensor:
    """Grazzi et al.'s one-line change: a gate exp(Δ·A) ∈ (0, 1] becomes 2·exp(Δ·A) − 1."""
    return 2 * decay - 1


class SelectiveSSM(nn.Module):
    """Mamba's selective diagonal SSM (``signed``: gates in (−1, 1)); maps (B, T, d_in) to d_out."""

    def __init__(self, d_in: int, d_out: int, *, d_state: int = 16, expand: int = 2,
                 d_conv: int = 4, signed: bool = False,
                 dt_range: tuple[float, float] = DT_RANGE, slow_scale: float = 1.0,
                 fast_fraction: float = 0.0,
                 fast_range: tuple[float, float] = FAST_DT_RANGE) -> None:
        super().__init__()
        self.d_inner, self.d_state, self.signed = expand * d_in, d_state, signed
        self.dt_range, self.slow_scale = dt_range, slow_scale
        self.fast_fraction, self.fast_range = fast_fraction, fast_range
        self.dt_rank = math.ceil(d_in / 16)
        self.in_proj = nn.Linear(d_in, 2 * self.d_inner, bias=False)
        self.conv1d = nn.Conv1d(self.d_inner, self.d_inner, d_conv, groups=self.d_inner,
                                padding=d_conv - 1)
        self.x_proj = nn.Linear(self.d_inner, self.dt_rank + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(self.dt_rank, self.d_inner)
        self.A_log = nn.Parameter(torch.zeros(self.d_inner, d_state))
        self.D = nn.Parameter(torch.ones(self.d_inner))
        self.out_proj = nn.Linear(self.d_inner, d_out, bias=False)
        #: with ``record_steps`` on, a forward in training mode keeps its step sizes Δ (B, T, E),
        #: graph and all, in ``step_sizes`` for the training step's penalty, which takes them
        #: (`training.step_penalty`); off (the default), nothing is kept
        self.record_steps = False
        self.step_sizes: torch.Tensor | None = None
        self.reset_parameters(torch.Generator().manual_seed(0))

    @torch.no_grad()
    def reset_parameters(self, gen: torch.Generator, std: float = 0.02) -> None:
        """mambapy's initialisation, drawn from ``gen``: S4D-real A = −(1..N) (the first state's
        times ``slow_scale``, `s4d_magnitudes`), log-uniform Δ in ``dt_range`` (the fast block's
        in ``fast_range``)."""
        for layer in (self.in_proj, self.x_proj, self.out_proj):
            normal_linear(layer, gen, std)
        uniform_(self.conv1d.weight, self.conv1d.weight[0].numel() ** -0.5, gen)
        assert self.conv1d.bias is not None
        uniform_(self.conv1d.bias, self.conv1d.weight[0].numel() ** -0.5, gen)
        uniform_(self.dt_proj.weight, self.dt_rank ** -0.5, gen)
        self.dt_proj.bias.copy_(initial_log_dt(self.d_inner, gen, self.dt_range,
                                        self.fast_fraction, self.fast_range))
        magnitudes = s4d_magnitudes(self.d_state, self.slow_scale)
        self.A_log.copy_(torch.log(magnitudes).repeat(self.d_inner, 1))
        self.D.fill_(1.0)

    def selection(self, u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The input-dependent Δ (B, T, E), B and C (B, T, N) from the conv output u (Δ kept in
        ``step_sizes`` when ``record_steps`` is on in training mode)."""
        dt, b_in, c = self.x_proj(u).split([self.dt_rank, self.d_state, self.d_state], dim=-1)
        delta = F.softplus(self.dt_proj(dt))
        if self.record_steps and self.training:
            self.step_sizes = delta
        return delta, b_in, c

    def gates(self, u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """a (B, T, E, N), b = Δ B u (B, T, E, N) and C (B, T, N) from the conv output u
        (`selection`)."""
        delta, b_in, c = self.selection(u)
        a = torch.exp(delta.unsqueeze(-1) * -torch.exp(self.A_log))
        if self.signed:
            a = signed_gate(a)
        b = (delta * u).unsqueeze(-1) * b_in.unsqueeze(2)
        return a, b, c

    def forward(self, x: torch.Tensor, scan_how: str = "chunked") -> torch.Tensor:
        t_sz = x.shape[1]
        if t_sz == 0:  # conv1d refuses empty sequences
            return x.new_zeros(x.shape[0], 0, self.out_proj.out_features)
        u, z = self.in_proj(x).chunk(2, dim=-1)  # (B, T, E) each
        if scan_how == "fused":  # the same convolution and recurrence, faster (`ssm.fused`)
            assert self.conv1d.bias is not None
            u = F.silu(causal_depthwise(u, self.conv1d.weight, self.conv1d.bias))
            delta, b_in, c = self.selection(u)
            y = selective_scan(u, delta, -torch.exp(self.A_log), b_in, c, self.signed)
        else:
            u = F.silu(self.conv1d(u.transpose(1, 2))[:, :, :t_sz].transpose(1, 2))
            a, b, c = self.gates(u)
            h = scan(a, b, scan_how)  # (B, T, E, N)
            y = (h @ c.unsqueeze(-1)).squeeze(-1)
        return self.out_proj((y + self.D * u) * F.silu(z))


class DiagonalSSM(nn.Module):
    """Time-invariant diagonal SSM (S4D-Lin; ``complex_``: complex A): (B, T, d_in) to d_out."""

    def __init__(self, d_in: int, d_out: int, *, d_state: int = 16, expand: int = 2,
                 complex_: bool = False, dt_range: tuple[float, float] = DT_RANGE,
                 slow_scale: float = 1.0, fast_fraction: float = 0.0,
                 fast_range: tuple[float, float] = FAST_DT_RANGE, output: str = "linear"
                 ) -> None:
        super().__init__()
        if output not in S4D_OUTPUTS:
            raise ValueError(f"DiagonalSSM: output must be one of {S4D_OUTPUTS}, got {output!r}")
        self.d_inner, self.d_state, self.complex = expand * d_in, d_state, complex_
        self.output = output
        self.dt_range, self.slow_scale = dt_range, slow_scale
        self.fast_fraction, self.fast_range = fast_fraction, fast_range
        self.in_proj = nn.Linear(d_in, self.d_inner, bias=False)
        self.log_dt = nn.Parameter(torch.zeros(self.d_inner))
        self.A_log = nn.Parameter(torch.zeros(self.d_inner, d_state))  # Re A = −exp(A_log)
        self.A_imag = nn.Parameter(torch.zeros(self.d_inner, d_state)) if complex_ else None
        self.B = nn.Parameter(torch.zeros(self.d_inner, d_state, 2 if complex_ else 1))
        self.C = nn.Parameter(torch.zeros(self.d_inner, d_state, 2 if complex_ else 1))
        self.D = nn.Parameter(torch.ones(self.d_inner))
        glu = output == "gelu-glu"  # S4D's layer: GELU, then Linear to 2·d_out and a GLU
        self.out_proj = nn.Linear(self.d_inner, 2 * d_out if glu else d_out, bias=glu)
        #: with ``record_writes`` on, a forward in training mode keeps each channel's write size
        #: Σ_n |Δ B_n u_t| (B, T, E) in ``writes`` for the training step's write penalty, which
        #: takes them (`training.write_penalty`), with a graph through u only (Δ and B held);
        #: off (default): nothing is kept
        self.record_writes = False
        self.writes: torch.Tensor | None = None
        self.reset_parameters(torch.Generator().manual_seed(0))

    @torch.no_grad()
    def reset_parameters(self, gen: torch.Generator, std: float = 0.02) -> None:
        """S4D-Lin from ``gen``: Re A = −1/2 (complex) or −(1..N) (real), the first state's times
        ``slow_scale`` (`s4d_magnitudes`), Im A = πn, log-uniform Δ in ``dt_range`` (the fast
        block's in ``fast_range``)."""
        normal_linear(self.in_proj, gen, std)
        normal_linear(self.out_proj, gen, std)
        self.log_dt.copy_(initial_log_dt(self.d_inner, gen, self.dt_range, self.fast_fraction,
                                  self.fast_range))
        n = torch.arange(self.d_state, dtype=torch.float32)
        magnitudes = s4d_magnitudes(self.d_state, self.slow_scale, complex_=self.complex)
        self.A_log.copy_(torch.log(magnitudes).repeat(self.d_inner, 1))
        if self.A_imag is not None:
            self.A_imag.copy_((math.pi * n).repeat(self.d_inner, 1))
        self.B.fill_(1.0 if not self.complex else 0.0)
        if self.complex:
            self.B[..., 0] = 1.0
        self.C.copy_(torch.empty(self.C.shape).normal_(0.0, self.d_state ** -0.5, generator=gen))
        self.D.fill_(1.0)

    def gate(self) -> torch.Tensor:
        """The constant gate a = exp(Δ A): (E, N), real in (0, 1] or complex with |a| ≤ 1."""
        delta = F.softplus(self.log_dt).unsqueeze(-1)
        re = -torch.exp(self.A_log)
        if self.A_imag is None:
            return torch.exp(delta * re)
        return torch.exp(torch.complex(delta * re, delta * self.A_imag))

    def kernel(self, length: int) -> torch.Tensor:
        """The impulse response K_k = Δ Re Σ_n C_n B_n a_n^k, k < ``length``: (E, length)."""
        delta = F.softplus(self.log_dt).unsqueeze(-1)
        log_a = delta * -torch.exp(self.A_log)  # log a = Δ A, (E, N)
        if self.A_imag is not None:
            log_a = torch.complex(log_a, delta * self.A_imag)
        b_in, c = self._write_read()
        steps = torch.arange(length, dtype=delta.dtype, device=delta.device)
        response = ((c * b_in).unsqueeze(-1) * torch.exp(log_a.unsqueeze(-1) * steps)).sum(1)
        return delta * (response.real if self.complex else response)

    def _write_read(self) -> tuple[torch.Tensor, torch.Tensor]:
        """B and C as (E, N) tensors, complex for a complex mixer."""
        if self.complex:
            return torch.view_as_complex(self.B), torch.view_as_complex(self.C)
        return self.B[..., 0], self.C[..., 0]

    def forward(self, x: torch.Tensor, scan_how: str = "chunked") -> torch.Tensor:
        u = self.in_proj(x)  # (B, T, E)
        delta = F.softplus(self.log_dt)
        b_in, c = self._write_read()
        if self.record_writes and self.training:
            self.writes = u.abs() * (delta * b_in.abs().sum(-1)).detach()
        if scan_how == "fused" and u.shape[1] <= KERNEL_MAX_LENGTH:
            y = causal_convolution(u, self.kernel(u.shape[1]))
        else:
            b = (delta * u).unsqueeze(-1) * b_in  # (B, T, E, N)
            h = scan(self.gate().expand(b.shape), b, scan_how)
            y = (h * c).sum(-1)
            y = y.real if self.complex else y
        if self.output == "gelu-glu":
            return F.glu(self.out_proj(F.gelu(y + self.D * u)), dim=-1)
        return self.out_proj(y + self.D * u)


class DeltaRule(nn.Module):
    """The gated delta rule with β ∈ (0, 2) (negative eigenvalues); maps (B, T, d_in) to d_out."""

    def __init__(self, d_in: int, d_out: int, *, n_heads: int = 1, d_head: int = 16) -> None:
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_head
        inner = n_heads * d_head
        self.qkv = nn.Linear(d_in, 3 * inner, bias=False)
        self.beta_proj = nn.Linear(d_in, n_heads)
        self.alpha_proj = nn.Linear(d_in, n_heads)
        self.out_proj = nn.Linear(inner, d_out, bias=False)
        self.reset_parameters(torch.Generator().manual_seed(0))

    @torch.no_grad()
    def reset_parameters(self, gen: torch.Generator, std: float = 0.02) -> None:
        """N(0, std) projections from ``gen``; α starts near 1 (bias −4: softplus ≈ 0.018)."""
        for layer in (self.qkv, self.beta_proj, self.alpha_proj, self.out_proj):
            normal_linear(layer, gen, std)
        self.alpha_proj.bias.fill_(-4.0)

    def forward(self, x: torch.Tensor, scan_how: str = "chunked") -> torch.Tensor:
        b_sz, t_sz, _ = x.shape
        q, k, v = (y.reshape(b_sz, t_sz, self.n_heads, self.d_head).transpose(1, 2)
                   for y in self.qkv(x).chunk(3, dim=-1))  # (B, H, T, D) each
        k = F.normalize(k, dim=-1)
        beta = 2 * torch.sigmoid(self.beta_proj(x)).transpose(1, 2)  # (B, H, T)
        alpha = torch.exp(-F.softplus(self.alpha_proj(x))).transpose(1, 2)
        if scan_how not in SCANS:
            raise ValueError(f"scan: expected one of {SCANS}, got {scan_how!r}")
        run = sequential_delta if scan_how == "sequential" else parallel_delta
        o = run(q, k, v, beta, alpha)  # (B, H, T, D)
        return self.out_proj(o.transpose(1, 2).reshape(b_sz, t_sz, self.n_heads * self.d_head))
