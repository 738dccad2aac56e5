"""``SD``: the time-invariant diagonal SSM (S4D), real constant gates in (0, 1] (theory §14)."""

from __future__ import annotations

from expressivity.layouts.mixer import MixerKind

__all__ = ["ATOM"]

ATOM = MixerKind(
    letter="SD", arity=0, spelling="SD", meaning="time-invariant SSM",
    label="S4D", rank=22,
    gates="(0, 1]",
)
