"""One exception hierarchy for every kind of bad input the toolkit reports."""

from __future__ import annotations


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
        caret = " " * max(self.column - 1, 0) + "^"
        out = f"{self.reason} at line {self.line}, column {self.column}:\n  {src}\n  {caret}"
        if self.expected:
            out += "\nexpected one of: " + ", ".join(self.expected)
        return out


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


class SamplingError(ExpressivityError):
    """An impossible sampling request (no members of a length, quota too large, ...)."""


class StoreError(ExpressivityError):
    """A results store that cannot be opened, or has an incompatible schema."""


class TrainingError(ExpressivityError):
    """A training run that cannot go on: non-finite or diverging loss, a mismatched checkpoint."""


class ExpressivityWarning(UserWarning):
    """Something the user should know that does not stop the work (the CLI prints ``warning:``)."""
