"""Diagonal recurrences h_t = a_t ⊙ h_{t-1} + b_t: the sequential reference and a parallel scan.

Both functions take gates ``a`` and inputs ``b`` of one shape ``(B, T, *state)`` (real or
complex, any float dtype) and return every state ``h`` of that shape, with h_0 = ``initial``
(zeros by default) before position 0. `sequential_scan` is the recurrence itself, one step per
position (the reference, and the semantics docs/theory.md §14 reasons about); `parallel_scan`
is the Hillis–Steele log-depth scan over the associative composition of affine maps

    (a₁, b₁) then (a₂, b₂)  =  (a₂ a₁, a₂ b₁ + b₂),

so ``ceil(log2 T)`` rounds of element-wise work replace T dependent steps (O(T log T) work:
the choice for wide parallel hardware). `chunked_scan` splits T into chunks of C ≈ √T, scans
inside all chunks at once (C steps), carries the chunk ends (T/C steps) and adds each carry
times the chunk's running gate product: O(T) work in about 2√T vectorized steps (the CPU
default of the mixers). All three agree up to floating-point reassociation
(tests/models/ssm/test_scan.py checks them against each other and against the independent
`mambapy` scan). The fourth, ``"fused"`` (`models.ssm.fused.recurrence`), is the sequential
recurrence with its gradient written by hand, time-major, for training on a CPU (the mixers'
fused paths go further: the selective mixer's `models.ssm.fused.selective_scan`, S4D's
convolution by its kernel, `models.ssm.fused.causal_convolution`).

Padding: a recurrence is causal, so positions after a row's end never change earlier states;
callers read each row at its own EOS index.
"""

from __future__ import annotations

import math

import torch

from expressivity.models.ssm.fused import check_scan, recurrence

__all__ = ["SCANS", "chunked_scan", "parallel_scan", "scan", "sequential_scan"]

#: The scans by the name a config spells them with.
SCANS = ("chunked", "parallel", "sequential", "fused")


def sequential_scan(
    a: torch.Tensor, b: torch.Tensor, initial: torch.Tensor | None = None
) -> torch.Tensor:
    """Every state of h_t = a_t ⊙ h_{t-1} + b_t, one step at a time. (B, T, *S) -> (B, T, *S)."""
    check_scan(a, b)
    if a.shape[1] == 0:
        return b.clone()
    h = torch.zeros_like(b[:, 0]) if initial is None else initial.to(b.dtype)
    states = []
    for a_t, b_t in zip(a.unbind(1), b.unbind(1), strict=True):
        h = a_t * h + b_t
        states.append(h)
    return torch.stack(states, dim=1)


def parallel_scan(
    a: torch.Tensor, b: torch.Tensor, initial: torch.Tensor | None = None
) -> torch.Tensor:
    """The same states by a log-depth (Hillis–Steele) scan. (B, T, *S) -> (B, T, *S)."""
    check_scan(a, b)
    if initial is not None and a.shape[1]:  # fold h_0 into the first input: h_1 = a_1 h_0 + b_1
        b = torch.cat([(a[:, :1] * initial.to(b.dtype).unsqueeze(1) + b[:, :1]), b[:, 1:]], 1)
    t_sz, step = a.shape[1], 1
    while step < t_sz:
        # position t composes the map ending at t - step (earlier) with its own
        a_prev, b_prev = a[:, :-step], b[:, :-step]
        b = torch.cat([b[:, :step], a[:, step:] * b_prev + b[:, step:]], dim=1)
        a = torch.cat([a[:, :step], a[:, step:] * a_prev], dim=1)
        step *= 2
    return b if t_sz else b.clone()


def chunked_scan(
    a: torch.Tensor, b: torch.Tensor, chunk: int | None = None
) -> torch.Tensor:
    """The same states in chunks of ``chunk`` (default ⌈√T⌉) positions. (B, T, *S) -> same."""
    check_scan(a, b)
    t_sz = a.shape[1]
    if t_sz == 0:
        return b.clone()
    c = chunk or max(1, math.isqrt(t_sz - 1) + 1)
    pad = (-t_sz) % c
    if pad:  # gate 1, input 0: the padded steps keep the state
        a = torch.cat([a, a.new_ones((a.shape[0], pad, *a.shape[2:]))], 1)
        b = torch.cat([b, b.new_zeros((b.shape[0], pad, *b.shape[2:]))], 1)
    n = a.shape[1] // c
    a4, b4 = (t.reshape(t.shape[0], n, c, *t.shape[2:]) for t in (a, b))  # (B, n, C, *S)
    a_steps, b_steps = a4.unbind(2), b4.unbind(2)  # unbind: one backward, not C selects
    h, p = torch.zeros_like(b_steps[0]), torch.ones_like(a_steps[0])
    local, gain = [], []
    for a_j, b_j in zip(a_steps, b_steps, strict=True):  # every chunk from a zero state
        h = a_j * h + b_j
        p = p * a_j  # and its running gate product
        local.append(h)
        gain.append(p)
    hl, pl = torch.stack(local, 2), torch.stack(gain, 2)
    carry, carries = torch.zeros_like(h[:, 0]), []
    for end_h, end_p in zip(h.unbind(1), p.unbind(1), strict=True):  # state before chunk i
        carries.append(carry)
        carry = end_p * carry + end_h
    out = hl + pl * torch.stack(carries, 1).unsqueeze(2)
    return out.reshape(out.shape[0], n * c, *out.shape[3:])[:, :t_sz]


def scan(a: torch.Tensor, b: torch.Tensor, how: str = "chunked") -> torch.Tensor:
    """`chunked_scan`, `parallel_scan`, `sequential_scan` or `ssm.fused.recurrence` (the
    hand-written gradient, time-major) by name (``how`` in `SCANS`)."""
    if how == "chunked":
        return chunked_scan(a, b)
    if how == "parallel":
        return parallel_scan(a, b)
    if how == "sequential":
        return sequential_scan(a, b)
    if how == "fused":
        return recurrence(a, b)
    raise ValueError(f"scan: expected one of {SCANS}, got {how!r}")
