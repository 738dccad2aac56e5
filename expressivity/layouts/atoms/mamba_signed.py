"""``MS``: the sign-flipping selective SSM, gates 2·exp(Δ·A) − 1 in (−1, 1] (theory §14)."""

from __future__ import annotations

from expressivity.layouts.mixer import MixerKind

__all__ = ["ATOM"]

ATOM = MixerKind(
    letter="MS", arity=0, spelling="MS", meaning="sign-flipping selective SSM",
    label="signed Mamba", rank=21,
    gates="(-1, 1]",
)
