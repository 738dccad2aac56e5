"""The gradients of one ensemble step: batched (a GPU) or member by member (a CPU, bitwise).

Both functions take the active members' prepared runs, their encoded batches (one (B, T_j)
batch per member, padded to its own width as `training.loop` pads it), targets, learning rates
and the step, fill the ``.grad`` of the stacked parameters, and return each member's batch
accuracy and loss, or ``{position: error}`` for the members that failed (a non-finite or
diverging loss, a non-finite gradient norm; the messages of a single run). `StackedAdamW` then
updates.

- `batched_gradients`: one forward and backward of the `EnsembleRecognizer` over all members
  (batched matrix products), `clip_per_member`. Float rounding differs from the single runs
  (relative weight drift ~1e-6..5e-5 after 50 steps).
- `member_gradients`: member j's `Recognizer` (a template whose weights are replaced) is called
  on leaf views of its parameter slices (`torch.func.functional_call`), with the single run's
  loss and `torch.nn.utils.clip_grad_norm_`; its gradients are stacked. With `StackedAdamW`'s
  update in torch's order of operations, every member is bitwise its single run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from expressivity.training.ensemble_optim import clip_per_member
from expressivity.training.state import loss_error, loss_failure, max_grad_norm, norm_error

if TYPE_CHECKING:
    from expressivity.models.ensemble import EnsembleRecognizer
    from expressivity.models.transformer import Recognizer
    from expressivity.training.prepare import Prepared

__all__ = ["Gradients", "batched_gradients", "member_gradients", "stack_batches"]

#: A step's outcome: (batch accuracy, loss) per member, or the failures {position: error}.
Gradients = tuple[list[float], list[float]] | dict[int, str]
Batch = tuple[torch.Tensor, torch.Tensor]  # (B, T) tokens and (B,) lengths of one member


def batched_gradients(
    model: EnsembleRecognizer, runs: Sequence[Prepared], encoded: Sequence[Batch],
    targets: Sequence[torch.Tensor], lrs: Sequence[float], step: int, device: torch.device,
) -> Gradients:
    """Gradients of all members from one batched forward and backward of ``model``."""
    tokens, lengths = stack_batches(encoded, len(runs[0].source.alphabet))
    target = torch.stack(list(targets)).to(device)
    logits = model(tokens.to(device), lengths.to(device))
    losses = F.binary_cross_entropy_with_logits(logits, target, reduction="none").mean(1)
    values = losses.tolist()
    bad = {j: loss_error(v, step, lrs[j]) for j, v in enumerate(values) if loss_failure(v)}
    if bad:
        return bad
    losses.sum().backward()
    clips = [max_grad_norm(r.spec.train) for r in runs]
    norms = clip_per_member(list(model.stacked), torch.tensor(clips, dtype=torch.float64))
    bad = {j: norm_error(step, lrs[j]) for j, n in enumerate(norms.tolist())
           if not math.isfinite(n)}
    if bad:
        return bad
    return ((logits > 0).float() == target).float().mean(1).tolist(), values


def member_gradients(
    model: EnsembleRecognizer, templates: Sequence[Recognizer], runs: Sequence[Prepared],
    encoded: Sequence[Batch], targets: Sequence[torch.Tensor], lrs: Sequence[float], step: int,
    device: torch.device,
) -> Gradients:
    """Gradients of each member from its own forward and backward, as `training.loop` takes
    them (``templates[j]`` is member j's `Recognizer`; its own weights are not used)."""
    from torch.func import functional_call

    names, stacked = model.names, list(model.stacked)
    right: list[float] = []
    values: list[float] = []
    grads: list[list[torch.Tensor | None]] = [[] for _ in names]
    bad: dict[int, str] = {}
    for j, run in enumerate(runs):
        leaves = {n: p[j].detach().requires_grad_() for n, p in zip(names, stacked, strict=True)}
        (tokens, lengths), target = encoded[j], targets[j].to(device)
        logits = functional_call(templates[j], leaves, (tokens.to(device), lengths.to(device)))
        loss = F.binary_cross_entropy_with_logits(logits, target)
        value = float(loss.item())
        if loss_failure(value):
            bad[j] = loss_error(value, step, lrs[j])
            continue
        loss.backward()
        clip = max_grad_norm(run.spec.train)
        if not math.isfinite(float(torch.nn.utils.clip_grad_norm_(leaves.values(), clip))):
            bad[j] = norm_error(step, lrs[j])
            continue
        values.append(value)
        right.append(float(((logits > 0).float() == target).float().mean()))
        for k, n in enumerate(names):
            grads[k].append(leaves[n].grad)
    if bad:
        return bad
    for p, member_grads in zip(stacked, grads, strict=True):
        if all(g is None for g in member_grads):
            continue  # no member uses it: AdamW skips it, as for a single model
        p.grad = torch.stack([torch.zeros_like(p[0]) if g is None else g for g in member_grads])
    return right, values


def stack_batches(encoded: Sequence[Batch], alphabet_size: int
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-member (B, T_j) token batches padded to one (M, B, T) tensor, and (M, B) lengths."""
    from expressivity.models.tokens import pad_id

    width = max(t.shape[1] for t, _ in encoded)
    tokens = torch.full((len(encoded), encoded[0][0].shape[0], width), pad_id(alphabet_size),
                        dtype=torch.long)
    for j, (t, _) in enumerate(encoded):
        tokens[j, :, : t.shape[1]] = t
    return tokens, torch.stack([n for _, n in encoded])
