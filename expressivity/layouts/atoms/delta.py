"""``DR``: the gated delta rule, transitions I − β·k·kᵀ with β in (0, 2) (theory §14)."""

from __future__ import annotations

from expressivity.layouts.mixer import MixerKind

__all__ = ["ATOM"]

ATOM = MixerKind(
    letter="DR", arity=0, spelling="DR", meaning="gated delta rule",
    label="delta rule", rank=24,
    gates="eigenvalues in [-1, 1]",
)
