"""``M``: the selective SSM in Mamba's form, gates exp(Δ·A) in (0, 1] (theory §14)."""

from __future__ import annotations

from expressivity.layouts.mixer import MixerKind

__all__ = ["ATOM"]

ATOM = MixerKind(
    letter="M", arity=0, spelling="M", meaning="selective SSM",
    label="Mamba", rank=20,
    gates="(0, 1]",
)
