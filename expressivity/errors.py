"""One exception hierarchy for every kind of bad input the toolkit reports."""

from __future__ import annotations

import sys
from collections.abc import Callable

#: The most characters of user input an error message repeats (longer input is cut with "…").
ECHO_LIMIT = 120


def echo(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` as an error message repeats it: ``repr`` cut to ``limit`` characters."""
    shown = repr(text)
    if len(shown) <= limit:
        return shown
    return f"{shown[: limit - 1]}… ({len(text)} characters)"


class ExpressivityError(Exception):
    """Base class of every error the toolkit raises on purpose (bad input, impossible request)."""


class FormulaSyntaxError(ExpressivityError):
    """A formula that does not parse; carries line, column, the offending text and a caret."""

    def __init__(
        self,
        message: str,
        *,
        text: str = "",
        line: int = 0,
        column: int = 0,
        expected: tuple[str, ...] = (),
    ) -> None:
        self.text = text
        self.line = line
        self.column = column
        self.expected = expected
        self.reason = message
        super().__init__(self._render())

    def _render(self) -> str:
        if not self.line:
            return self.reason
        lines = self.text.splitlines() or [""]
        src = lines[self.line - 1] if 0 < self.line <= len(lines) else ""
        src, column = _window(src, self.column)
        caret = " " * max(column - 1, 0) + "^"
        out = f"{self.reason} at line {self.line}, column {self.column}:\n  {src}\n  {caret}"
        if self.expected:
            out += "\nexpected one of: " + ", ".join(self.expected)
        return out


def _window(line: str, column: int, width: int = ECHO_LIMIT) -> tuple[str, int]:
    """At most ``width`` characters of ``line`` around ``column`` ("…" where cut), and the
    column of the same character in the excerpt."""
    if len(line) <= width:
        return line, column
    start = max(0, min(column - 1 - width // 2, len(line) - width))
    end = start + width
    head = "…" if start > 0 else ""
    tail = "…" if end < len(line) else ""
    return head + line[start:end] + tail, column - start + len(head)


class FormulaLimitError(FormulaSyntaxError):
    """Text that parses as a formula but exceeds a named bound (nesting depth, shift k).

    Such text is this error and never another reading (a regex), whatever the caller tries next.
    """


class RegexSyntaxError(FormulaSyntaxError):
    """A regular expression that does not parse."""


class FormulaError(ExpressivityError, ValueError):
    """A formula node with an invalid parameter (``Y^k`` with k < 1, ``mod(m,r)`` outside
    0 ≤ r < m); also a `ValueError`, as the node constructors raised before."""


class AlphabetError(ExpressivityError):
    """A symbol outside the alphabet, or an alphabet that is not well formed."""


class CatalogueError(ExpressivityError):
    """A language catalogue entry that is malformed, duplicated or unknown.

    ``key`` names the offending TOML key (and ``column`` a 1-based column inside its string
    value) so that a file loader can point at the line and column of the file.
    """

    def __init__(self, message: str, *, key: str | None = None, column: int = 0) -> None:
        super().__init__(message)
        self.key = key
        self.column = column


class ConfigError(ExpressivityError):
    """An invalid configuration value; the message names the field (and file position if any)."""


class AutomatonError(ExpressivityError, ValueError):
    """An automaton built from inconsistent parts (a transition table of the wrong shape, a
    state out of range, an impossible option); also a `ValueError`, as it was raised before."""


class StateExplosionError(ExpressivityError):
    """An automaton construction exceeded its `max_states` bound."""


class SemigroupTooLargeError(ExpressivityError):
    """A transition semigroup exceeded its size bound."""


class UnsupportedFragmentError(ExpressivityError):
    """A formula uses an operator outside the fragment a construction supports."""


class NotInFragmentError(ExpressivityError):
    """A language is not in the fragment a synthesis targets (the message gives the witness)."""


class SynthesisTooLargeError(ExpressivityError):
    """A synthesized formula that outgrew its written-size bound."""


class SamplingError(ExpressivityError):
    """An impossible sampling request (no members of a length, quota too large, ...)."""


class StoreError(ExpressivityError):
    """A results store that cannot be opened, or has an incompatible schema."""


class CheckpointWriteError(ExpressivityError):
    """A checkpoint that could not be written; the message names the disk and its free space."""


class TrainingError(ExpressivityError):
    """A training run that cannot go on: non-finite or diverging loss, a mismatched checkpoint."""


class ExpressivityWarning(UserWarning):
    """Something the user should know that does not stop the work (the CLI prints ``warning:``)."""


def script_status(main: Callable[[], int]) -> int:
    """The exit status of a ``python -m expressivity.analysis.…`` script: ``main()``'s, or 2
    with ``error: <message>`` on stderr when it raises an `ExpressivityError` (as the
    `expressivity` command reports one), not a traceback."""
    try:
        return main()
    except ExpressivityError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
