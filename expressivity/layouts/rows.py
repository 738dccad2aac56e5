"""The parts of an unsized layout: a head group ``[Nx]pattern`` and a layer row ``Nx(layer)``."""

from __future__ import annotations

from dataclasses import dataclass, field

from expressivity.layouts.registry import Atom

__all__ = ["Group", "HeadAtoms", "Row"]

#: One head's pattern as its sorted, distinct atoms.
HeadAtoms = tuple[Atom, ...]


@dataclass(frozen=True)
class Group:
    """``[Nx]pattern``: ``count`` heads (None: uncounted — every head when it is its layer's
    only group, else one) with the pattern ``atoms``; ``text`` as spelled."""

    atoms: HeadAtoms
    count: int | None = None
    text: str = field(default="", compare=False)


@dataclass(frozen=True)
class Row:
    """One layer spelling, ``repeat`` times in a row (``Nx(layer)``); ``text`` as spelled."""

    groups: tuple[Group, ...]
    repeat: int = 1
    text: str = field(default="", compare=False)

    @property
    def heads(self) -> int | None:
        """Its head count, or None when it is one uncounted pattern (it fills any count)."""
        if len(self.groups) == 1 and self.groups[0].count is None:
            return None
        return sum(1 if g.count is None else g.count for g in self.groups)

    @property
    def body(self) -> str:
        """The layer without its ``Nx( )``."""
        return self.text[self.text.index("(") + 1: -1] if self.text.endswith(")") else self.text
