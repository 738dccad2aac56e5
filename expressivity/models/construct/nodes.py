"""Internal formula nodes of the constructions: what a dilated, block or periodic head reads.

These nodes never come from the parser: `models.construct.sparse` (with `sparse_rewrite`)
rewrites ordinary formulas into them for the layouts ``dilated-k-d``, ``block-b`` and
``…+periodic``, and `models.construct.plan` gives each one head. Each node has an equivalent
ordinary formula (`standard`), used to check a rewriting against the DFA of the original
formula. Token indices are theory positions (BOS = 0, the word 1..N, EOS N+1), as in
`models.masks`.

- ``Dilated(ψ, k, d)``: ψ holds at some n − j·d ≥ 1 with 1 ≤ j ≤ k  (≡ ⋁_{j≤k} Y^{jd} ψ);
- ``InBlock(ψ, b)``: ψ holds at some m ≥ 1, m < n in the block of n (⌊m/b⌋ = ⌊n/b⌋), i.e. at
  one of the κ(n) previous positions, where κ(n) = n − 1 for n < b and n mod b for n ≥ b
  (the *block phase*; BOS occupies index 0, so block 0 holds the positions 1..b−1);
- ``ModRead(m, r)``: n ≡ r (mod m) or n = 1: what one head reads from a periodic encoding by
  comparing its position with BOS's (the row n = 1 has no other key).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from expressivity.logic.syntax import TRUE, And, Formula, Mod, Not, Or, Start, disj
from expressivity.logic.temporal import BoundedPast, Yesterday

__all__ = ["Dilated", "InBlock", "ModRead", "Prepared", "phase", "phase_at_least", "standard"]

Render = Callable[[Formula], str]


@dataclass(frozen=True)
class Dilated(Formula):
    """``D<k>.<d> ψ``: ψ at some n − j·d with 1 ≤ j ≤ k and n − j·d ≥ 1 (a `D<k>.<d>` head)."""

    arg: Formula
    k: int = 1
    d: int = 1
    op: ClassVar[str] = "D"
    temporal: ClassVar[bool] = True

    @property
    def pattern(self) -> str:
        return f"D{self.k}.{self.d}"

    def render(self, operand: Render) -> str:
        return f"{self.pattern} {operand(self.arg)}"


@dataclass(frozen=True)
class InBlock(Formula):
    """``B<b> ψ``: ψ at some earlier position of n's block of b token indices (a `B<b>` head)."""

    arg: Formula
    b: int = 2
    op: ClassVar[str] = "B"
    temporal: ClassVar[bool] = True

    @property
    def pattern(self) -> str:
        return f"B{self.b}"

    def render(self, operand: Render) -> str:
        return f"{self.pattern} {operand(self.arg)}"


@dataclass(frozen=True)
class ModRead(Formula):
    """``mod(m,r)|start`` as one periodic-RoPE head reads it (m ≥ 2, 0 ≤ r < m)."""

    modulus: int
    residue: int
    op: ClassVar[str] = "modread"

    def render(self, operand: Render) -> str:
        return f"modread({self.modulus},{self.residue})"


def phase_at_least(b: int, j: int) -> Formula:
    """κ(n) ≥ j as j nested block heads: ``B^j ⊤``."""
    out: Formula = TRUE
    for _ in range(j):
        out = InBlock(out, b)
    return out


def phase(b: int, j: int) -> Formula:
    """κ(n) = j (0 ≤ j < b): ``B^j ⊤ ∧ ¬B^{j+1} ⊤`` (just ``B^{b−1} ⊤`` for j = b − 1)."""
    if j == b - 1:
        return phase_at_least(b, j)
    if j == 0:
        return Not(InBlock(TRUE, b))
    return And(phase_at_least(b, j), Not(phase_at_least(b, j + 1)))


def _phase_standard(b: int, j: int) -> Formula:
    """κ(n) = j in ordinary syntax: (n ≥ b ∧ n ≡ j mod b) ∨ (n = j + 1 < b)."""
    late: Formula = And(Mod(b, j), Yesterday(TRUE, b - 1)) if b > 1 else TRUE
    return Or(late, Yesterday(Start(), j) if j else Start()) if j <= b - 2 else late


def standard(f: Formula) -> Formula:
    """An ordinary formula (parser syntax) equivalent to ``f`` at every position."""
    if isinstance(f, Dilated):
        inner = standard(f.arg)
        return disj(*(Yesterday(inner, j * f.d) for j in range(1, f.k + 1)))
    if isinstance(f, InBlock):
        inner = standard(f.arg)
        return disj(*(And(_phase_standard(f.b, j), BoundedPast(inner, j))
                      for j in range(1, f.b)))
    if isinstance(f, ModRead):
        return Or(Mod(f.modulus, f.residue), Start())
    if not f.children:
        return f
    kids = [standard(c) for c in f.children]
    if isinstance(f, Yesterday | BoundedPast):
        return type(f)(kids[0], f.k)
    return type(f)(*kids)


@dataclass(frozen=True)
class Prepared:
    """What `construct` plans (made by `construct.sparse.prepare`, `construct.periodic`): the
    (rewritten) formula, head patterns, start's pattern and the periods of a periodic-RoPE
    encoding (empty: NoPE)."""

    formula: Formula
    patterns: frozenset[str]
    start_pattern: str
    periods: tuple[int, ...] = ()
