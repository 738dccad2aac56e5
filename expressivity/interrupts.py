"""Ctrl-C on the command line: the first one stops the command, every later one is ignored.

`stop_on_first_interrupt` is the SIGINT handler `expressivity.cli.main` installs. The first
Ctrl-C raises `KeyboardInterrupt` and, in the same step, swaps the handler for one that does
nothing, so a second Ctrl-C at any moment after the first (even before the code that catches
the first has run a line) cannot break the clean stop: records committed, workers shut down,
one ``interrupted`` line. Python can lose that one `KeyboardInterrupt` (raised inside a
finalizer it is only printed), so a loop that must stop asks `stop_requested` as it waits.
"""

from __future__ import annotations

import signal
from types import FrameType

__all__ = ["stop_on_first_interrupt", "stop_requested"]


def stop_on_first_interrupt(signum: int, frame: FrameType | None) -> None:
    """Raise `KeyboardInterrupt` once; from then on, Ctrl-C does nothing."""
    signal.signal(signal.SIGINT, _stopping)
    raise KeyboardInterrupt


def _stopping(signum: int, frame: FrameType | None) -> None:
    """The SIGINT handler once a stop was asked for: nothing (the stop is under way)."""


def stop_requested() -> bool:
    """Whether a Ctrl-C has asked the command to stop (`stop_on_first_interrupt` fired)."""
    return signal.getsignal(signal.SIGINT) is _stopping
