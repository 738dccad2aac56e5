"""``SDC``: the time-invariant diagonal SSM (S4D-Lin), complex constant gates (theory §14)."""

from __future__ import annotations

from expressivity.layouts.mixer import MixerKind

__all__ = ["ATOM"]

ATOM = MixerKind(
    letter="SDC", arity=0, spelling="SDC", meaning="complex time-invariant SSM",
    label="complex S4D", rank=23,
    gates="complex, |a| <= 1",
)
