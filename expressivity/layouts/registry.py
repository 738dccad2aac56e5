"""The registry of atom kinds (one file each under `expressivity.layouts.atoms`) and `Atom`.

Every module of `expressivity.layouts.atoms` that defines ``ATOM`` (an `AtomKind`) is
registered under its letter(s) when this module is imported, so adding an atom kind is adding
one file. `Atom` is one atom of a spelling (a kind and its numbers); its properties and mask
rule read its kind here.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

from expressivity.errors import ConfigError
from expressivity.layouts import atoms
from expressivity.layouts.kind import AtomKind, Index, Reads

__all__ = ["KINDS", "Atom", "kind"]


def _discover() -> dict[str, AtomKind]:
    found: dict[str, AtomKind] = {}
    for info in sorted(pkgutil.iter_modules(atoms.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{atoms.__name__}.{info.name}")
        atom = getattr(module, "ATOM", None)
        if not isinstance(atom, AtomKind):
            continue
        if not atom.letter.isalpha() or not atom.letter.isupper() or not atom.letter.isascii():
            raise ConfigError(f"atom kind in {module.__name__}: letter {atom.letter!r} must be "
                              "capital letters A-Z")
        if atom.letter in found:
            raise ConfigError(f"atom kind {atom.letter!r} is defined twice (atoms.{info.name})")
        found[atom.letter] = atom
    return dict(sorted(found.items(), key=lambda item: (item[1].rank, item[0])))


#: Every registered atom kind by letter(s), in grammar order (``rank``, then letter).
KINDS: dict[str, AtomKind] = _discover()


def kind(letter: str) -> AtomKind:
    """The registered kind spelled ``letter`` (a `ConfigError` naming the known ones if none)."""
    if letter not in KINDS:
        raise ConfigError(f"unknown atom kind {letter!r}; registered: {', '.join(KINDS)}")
    return KINDS[letter]


@dataclass(frozen=True, order=True)
class Atom:
    """One atom of a spelling: its kind's letter(s) and numbers, e.g. ``Atom("L", (4,))``."""

    kind: str
    params: tuple[int, ...] = ()

    def __str__(self) -> str:
        return self.kind + ".".join(str(p) for p in self.params)

    @property
    def spec(self) -> AtomKind:
        """Its registered kind."""
        return kind(self.kind)

    @property
    def band(self) -> int | None:
        """Largest key offset ``n − m`` this atom allows, or None when not a causal band."""
        return self.spec.band(self.params)

    @property
    def causal(self) -> bool:
        """No row sees a later key."""
        return self.spec.causal

    @property
    def label(self) -> str:
        """Its name in diagrams, e.g. ``4-local``."""
        return self.spec.label.format(*self.params)

    def reads(self) -> Reads:
        """What it denotes for the theory (`AtomKind.reads`)."""
        return self.spec.reads(self.params)

    def allowed(self, n: Index, m: Index, seed: int = 0, length: Index | None = None) -> Index:
        """Its mask rule on query / key token index arrays (`AtomKind.allowed`)."""
        return self.spec.allowed(n, m, self.params, seed, length)
