"""Attention layouts as pure data (no torch): the registry of atom kinds and the spellings.

One file per atom kind under `expressivity.layouts.atoms` (an `AtomKind`: letter, arity,
label, key band, mask rule `allowed`, the operator it `reads` for the theory); `parse_spelling`
reads a preset or custom spelling once into an `UnsizedLayout` (rows of head patterns) that the
theory uses directly, and `UnsizedLayout.sized` lays it over a model's layers and heads (the
rows `expressivity.models.layouts.Layout` is built from). The grammar, `GRAMMAR`, is quoted
by every parse error and lists the registered atoms.
"""

from expressivity.layouts.grammar import GRAMMAR, LIMITS
from expressivity.layouts.kind import AtomKind, Reads
from expressivity.layouts.layout import SizedRows, UnsizedLayout
from expressivity.layouts.presets import PRESET_ARITY, Preset, parse_preset
from expressivity.layouts.registry import KINDS, Atom
from expressivity.layouts.rows import Group, HeadAtoms, Row
from expressivity.layouts.spec import parse_heads, parse_spelling

__all__ = ["GRAMMAR", "KINDS", "LIMITS", "PRESET_ARITY", "Atom", "AtomKind", "Group",
           "HeadAtoms", "Preset", "Reads", "Row", "SizedRows", "UnsizedLayout", "parse_heads",
           "parse_preset", "parse_spelling"]
