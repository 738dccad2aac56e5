"""Preset spellings (``hybrid-2:g=3``) as a typed value and the rows each spells at a size."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from expressivity.layouts.encoders import ENCODER_ARITY, ENCODER_ATOMS, family_of
from expressivity.layouts.grammar import check_atom, fail, number
from expressivity.layouts.registry import Atom
from expressivity.layouts.rows import Group, HeadAtoms, Row

__all__ = ["PRESET_ARITY", "Preset", "did_you_mean", "parse_preset", "read_preset"]

PRESET_RE = re.compile(r"([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)((?:-\d+)*)(-sep)?(?::g=(\d+))?")
#: Every preset family and how many numbers its spelling takes (``dilated-k-d``: 2).
PRESET_ARITY = {"global": 0, "local": 1, "hybrid": 1, "interleaved": 1, "longformer": 2,
                "bigbird": 3, "dilated": 2, "block": 1,
                # state-space mixers and hybrids (docs/theory.md §14)
                "mamba": 0, "mamba-signed": 0, "s4d": 0, "deltanet": 0, "samba": 1, "jamba": 1,
                **ENCODER_ARITY}
_ATOMS = {"global": "G", "local": "L{0}", "hybrid": "G L{0}", "interleaved": "G L{0}",
          "longformer": "L{0}+T{1}", "bigbird": "L{0}+R{1}+T{2}", "dilated": "D{0}.{1}",
          "block": "B{0}", "mamba": "M", "mamba-signed": "MS", "s4d": "SD", "deltanet": "DR",
          "samba": "M L{0}", "jamba": "M G",
          **ENCODER_ATOMS}  # the head patterns of each family, space-separated


@dataclass(frozen=True)
class Preset:
    """A preset spelling as a value: ``hybrid-2:g=3`` is ``Preset("hybrid", (2,), 3)``."""

    family: str  # a key of PRESET_ARITY
    params: tuple[int, ...] = ()  # its numbers, in spelling order (window first)
    global_heads: int | None = None  # hybrid's ``:g=G``

    @property
    def window(self) -> int | None:
        """The local window k of ``local-k`` / ``hybrid-k``, else None."""
        return self.params[0] if self.family in ("local", "hybrid") else None

    def __str__(self) -> str:
        g = "" if self.global_heads is None else f":g={self.global_heads}"
        base, sep = self.family.removesuffix("-sep"), self.family.endswith("-sep")
        return "-".join([base, *map(str, self.params)]) + "-sep" * sep + g

    @property
    def patterns(self) -> tuple[HeadAtoms, ...]:
        """Its distinct head patterns (hybrid, interleaved: global, then k-local)."""
        spelled = _ATOMS[self.family].format(*self.params).split()
        return tuple(tuple(sorted(_atom(a) for a in p.split("+"))) for p in spelled)

    @property
    def smallest(self) -> tuple[int, int]:
        """The smallest model size (layers, heads) that has a head of every pattern."""
        if self.family == "hybrid":
            return 1, 2 if self.global_heads is None else self.global_heads + 1
        if self.family == "jamba":  # layer ⌊n/2⌋ is the first global one
            return self.params[0] // 2 + 1, 1
        return (2, 1) if self.family in ("interleaved", "samba", "swin") else (1, 1)

    def rows(self, n_layers: int, n_heads: int, whole: str) -> tuple[Row, ...]:
        """The layer rows it spells at this model size (``whole``: the spelling, for errors)."""
        first, *rest = self.patterns
        if self.family == "hybrid":
            g = self.global_heads if self.global_heads is not None else n_heads // 2
            if not 1 <= g <= n_heads - 1:
                raise fail(whole, f"a hybrid layer needs 1 <= g <= n_heads - 1 = {n_heads - 1}")
            return (Row((Group(first, g), Group(rest[0], n_heads - g))),)
        if self.family in ("interleaved", "samba", "swin"):  # samba: SSM first, then k-local
            return tuple(Row((Group(first if i % 2 == 0 else rest[0]),)) for i in range(n_layers))
        if self.family == "jamba":  # one global layer in every n, at i mod n = ⌊n/2⌋
            n = self.params[0]
            return tuple(Row((Group(rest[0] if i % n == n // 2 else first),))
                         for i in range(n_layers))
        return (Row((Group(first),)),)


def _atom(text: str) -> Atom:
    kind = text.rstrip("0123456789.")
    return Atom(kind, tuple(int(x) for x in text[len(kind):].split(".") if x))


def read_preset(spelled: str, whole: str) -> Preset | None:
    """The preset ``spelled`` (lower case, no spaces) names, None if it is no preset; a
    `ConfigError` for a preset with the wrong numbers (count, ``>= 1``, limits)."""
    m = PRESET_RE.fullmatch(spelled)
    if not m or family_of(m) not in PRESET_ARITY:
        return None
    name, nums = family_of(m), tuple(number(x, whole) for x in m.group(2).split("-")[1:])
    if len(nums) != PRESET_ARITY[name] or (m.group(4) is not None and name != "hybrid"):
        raise fail(whole, f"preset '{name}' takes {PRESET_ARITY[name]} number(s)")
    if any(x < 1 for x in nums):
        raise fail(whole, "preset numbers must be >= 1")
    if name == "jamba" and nums[0] < 2:
        raise fail(whole, "jamba-n needs n >= 2 (one global layer in every n; jamba-1 would "
                   "have no SSM layer: use global)")
    g = None if m.group(4) is None else number(m.group(4), whole)
    if g is not None and g < 1:
        raise fail(whole, f"a hybrid layer needs 1 <= g <= n_heads - 1, got g = {g}")
    preset = Preset(name, nums, g)
    for pattern in preset.patterns:
        for atom in pattern:
            check_atom(atom, str(atom), whole)  # the numbers within `LIMITS`
    return preset


def parse_preset(text: str) -> Preset | None:
    """``text`` (any case, spaces ignored) as a well-formed preset, or None if it is not one
    (a custom spelling, an unknown name, the wrong count of numbers, ``:g=`` off hybrid).
    Numbers above `LIMITS` are a `ConfigError`; others are not range-checked here:
    `parse_heads` and the callers say what they need."""
    spelled = re.sub(r"\s+", "", text).lower()
    m = PRESET_RE.fullmatch(spelled)
    if not m or family_of(m) not in PRESET_ARITY:
        return None
    nums = tuple(number(x, text) for x in m.group(2).split("-")[1:])
    if len(nums) != PRESET_ARITY[family_of(m)] or (m.group(4) is not None
                                                    and family_of(m) != "hybrid"):
        return None
    g = None if m.group(4) is None else number(m.group(4), text)
    preset = Preset(family_of(m), nums, g)
    if all(x >= 1 for x in nums):
        for pattern in preset.patterns:
            for atom in pattern:
                check_atom(atom, str(atom), text)  # the numbers within `LIMITS`
    return preset


def did_you_mean(whole: str) -> str:
    """`` (did you mean 'hybrid-1'?)`` when ``whole`` is a preset with a misspelled family."""
    m = PRESET_RE.fullmatch(re.sub(r"\s+", "", whole).lower())
    if not m or m.group(1) in PRESET_ARITY:
        return ""
    close = difflib.get_close_matches(m.group(1), PRESET_ARITY, n=1, cutoff=0.6)
    return f" (did you mean {close[0] + whole.strip()[len(m.group(1)):]!r}?)" if close else ""
