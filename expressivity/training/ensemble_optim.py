"""AdamW and gradient clipping on stacked parameters: one optimizer state per ensemble member.

`StackedAdamW` is `torch.optim.AdamW`'s update (betas 0.9/0.999, eps 1e-8, no amsgrad) applied
to tensors with a leading member axis, with a learning rate and a weight decay per member, and
weight decay only on parameters that are matrices or embeddings in the single model (as
`training.optim.adamw`). `clip_per_member` is `torch.nn.utils.clip_grad_norm_` per member.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

__all__ = ["StackedAdamW", "clip_per_member"]

BETAS = (0.9, 0.999)
EPS = 1e-8


def _per_member(values: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """(M,) values shaped to broadcast against a stacked tensor (M, ...)."""
    return values.to(like.dtype).view(-1, *([1] * (like.dim() - 1)))


def clip_per_member(params: Sequence[torch.Tensor], max_norms: torch.Tensor) -> torch.Tensor:
    """Scale each member's gradients to global norm <= ``max_norms[i]``; returns the norms (M,).

    The norm of member i is that of all its gradient entries (`clip_grad_norm_` of the single
    model); the scale is ``max_norm / (norm + 1e-6)`` capped at 1, as in PyTorch.
    """
    grads = [p.grad for p in params if p.grad is not None]
    norms = torch.stack([g.flatten(1).norm(dim=1) for g in grads]).norm(dim=0)
    scale = (max_norms.to(norms.dtype) / (norms + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(_per_member(scale, g))
    return norms


class StackedAdamW:
    """AdamW over stacked parameters (M, ...) with per-member learning rates and weight decay."""

    def __init__(self, params: Sequence[torch.nn.Parameter], decay: Sequence[bool]) -> None:
        self.params, self.decay = list(params), list(decay)
        self.steps = 0
        self.exp_avg = [torch.zeros_like(p) for p in self.params]
        self.exp_avg_sq = [torch.zeros_like(p) for p in self.params]

    @torch.no_grad()
    def step(self, lr: torch.Tensor, weight_decay: torch.Tensor) -> None:
        """One update; ``lr`` and ``weight_decay`` are (M,) float64 tensors."""
        self.steps += 1
        beta1, beta2 = BETAS
        correction1 = 1 - beta1**self.steps
        correction2 = math.sqrt(1 - beta2**self.steps)
        for p, m, v, decays in zip(self.params, self.exp_avg, self.exp_avg_sq, self.decay,
                                   strict=True):
            if p.grad is None:
                continue
            g = p.grad
            if decays:
                p.mul_(_per_member(1 - lr * weight_decay, p))
            m.lerp_(g, 1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            denom = (v.sqrt() / correction2).add_(EPS)
            # p + (−lr/c1 · m) / denom, in the order of torch's addcdiv_(m, denom, value=−lr/c1),
            # so that each member's update is bitwise that of `torch.optim.AdamW` on a CPU
            p.add_((_per_member(-lr / correction1, p) * m) / denom)

    def zero_grad(self) -> None:
        """Drop the gradients (set to None, as ``zero_grad(set_to_none=True)``)."""
        for p in self.params:
            p.grad = None

    def select(self, params: Sequence[torch.nn.Parameter], keep: Sequence[int]) -> StackedAdamW:
        """The state of members ``keep`` for the compacted ``params`` (same order of tensors)."""
        out = StackedAdamW.__new__(StackedAdamW)
        out.params, out.decay, out.steps = list(params), self.decay, self.steps
        idx = torch.tensor(list(keep), dtype=torch.long, device=self.exp_avg[0].device)
        out.exp_avg = [m[idx].clone() for m in self.exp_avg]
        out.exp_avg_sq = [v[idx].clone() for v in self.exp_avg_sq]
        return out

    def state_dict(self) -> dict[str, Any]:
        """Tensors and the step count, for checkpoints."""
        return {"steps": self.steps, "exp_avg": [m.detach().cpu() for m in self.exp_avg],
                "exp_avg_sq": [v.detach().cpu() for v in self.exp_avg_sq]}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore `state_dict`'s values (shapes must match)."""
        self.steps = int(state["steps"])
        for dst, src in zip(self.exp_avg + self.exp_avg_sq,
                            list(state["exp_avg"]) + list(state["exp_avg_sq"]), strict=True):
            dst.copy_(src)
