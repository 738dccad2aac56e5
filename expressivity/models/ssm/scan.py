"""Diagonal recurrences h_t = a_t ⊙ h_{t-1} + b_t: the sequential reference and a parallel scan.

Both functions take gates ``a`` and inputs ``b`` of one shape ``(B, T, *state)`` (real or
complex, any float dtype) and return every state ``h`` of that shape, with h_0 = ``initial``
(zeros by default) before position 0. `sequential_scan` is the recurrence itself, one step per
position (the reference, and the semantics docs/theory.md §13 reasons about); `parallel_scan`
is the Hillis–Steele log-depth scan over the associative composition of affine maps

    (a₁, b₁) then (a₂, b₂)  =  (a₂ a₁, a₂ b₁ + b₂),

so ``ceil(log2 T)`` rounds of element-wise work replace T dependent steps. They agree up to
floating-point reassociation (tests/models/ssm/test_scan.py checks both against each other and
against the independent `mambapy` scan).

Padding: a recurrence is causal, so positions after a row's end never change earlier states;
callers read each row at its own EOS index.
"""

from __future__ import annotations

import torch

__all__ = ["SCANS", "parallel_scan", "scan", "sequential_scan"]

#: The scans by the name a config spells them with.
SCANS = ("parallel", "sequential")


def _checked(a: torch.Tensor, b: torch.Tensor) -> None:
    if a.shape != b.shape or a.dim() < 2:
        raise ValueError(f"gates and inputs must share one shape (B, T, ...), got "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")


def sequential_scan(
    a: torch.Tensor, b: torch.Tensor, initial: torch.Tensor | None = None
) -> torch.Tensor:
    """Every state of h_t = a_t ⊙ h_{t-1} + b_t, one step at a time. (B, T, *S) -> (B, T, *S)."""
    _checked(a, b)
    if a.shape[1] == 0:
        return b.clone()
    h = torch.zeros_like(b[:, 0]) if initial is None else initial.to(b.dtype)
    states = []
    for t in range(a.shape[1]):
        h = a[:, t] * h + b[:, t]
        states.append(h)
    return torch.stack(states, dim=1)


def parallel_scan(
    a: torch.Tensor, b: torch.Tensor, initial: torch.Tensor | None = None
) -> torch.Tensor:
    """The same states by a log-depth (Hillis–Steele) scan. (B, T, *S) -> (B, T, *S)."""
    _checked(a, b)
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


def scan(a: torch.Tensor, b: torch.Tensor, how: str = "parallel") -> torch.Tensor:
    """`parallel_scan` or `sequential_scan` by name (``how`` in `SCANS`)."""
    if how == "parallel":
        return parallel_scan(a, b)
    if how == "sequential":
        return sequential_scan(a, b)
    raise ValueError(f"scan: expected one of {SCANS}, got {how!r}")
