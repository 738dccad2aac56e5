"""Dilated and block heads: what they read of a position, and formulas rewritten into them.

`Rewriter` rewrites a formula into the heads of a ``dilated-k-d`` or ``block-b`` layout, given
the `Reading` of the position n itself by those heads (`construct.sparse.prepare` checks the
result against the DFA of the original; docs/theory.md §6, "Constructions"):

- ``dilated-k-d`` (heads `Dk.d`, keys n − j·d ≥ 1, 1 ≤ j ≤ k): a disjunction
  ``Y^d ψ | Y^{2d} ψ | … | Y^{kd} ψ`` (the full window, in any order and nesting of ``|``)
  becomes one head; with k = 1 every ``Y^{jd}`` is j nested heads; with d = 1 ``Y<=k`` is one
  head (`D{k}.1` = `L{k}`).
- ``block-b`` (heads `Bb`, the earlier positions of the block): ``Y^i ψ`` (i < b) becomes
  ⋁_{j≥i} (κ = j ∧ B(ψ ∧ κ = j − i)), which is exact wherever the block phase κ(n) ≥ i.
- Both: a maximal subformula without letters and ``eos`` (``start``, ``mod(m,r)``, ``Y^k true``,
  their Boolean combinations, ...) is a *position predicate*; it is realised exactly when it
  is a function of what the heads read of the position: the block phase κ(n), or the number
  ⌊(n − 1)/d⌋ of dilated steps before n (capped); otherwise `Rewriter.conflicts` names two
  positions that the layout cannot tell apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from expressivity.errors import UnsupportedFragmentError
from expressivity.logic.semantics import holds
from expressivity.logic.syntax import (
    FALSE,
    TRUE,
    And,
    Bottom,
    Eos,
    Formula,
    Mod,
    Not,
    Or,
    Symbol,
    Top,
    disj,
)
from expressivity.logic.temporal import FUTURE, BoundedPast, Historically, Past, Since, Yesterday
from expressivity.models.construct.nodes import Dilated, InBlock, phase

__all__ = ["BlockReading", "DilatedReading", "Reading", "Rewriter"]


# ------------------------------------------------------------------ position readings
@dataclass(frozen=True)
class Reading:
    """What a layout's heads read of the position n itself."""

    @property
    def pattern(self) -> str:
        raise NotImplementedError

    def phase_of(self, n: int, cap: int) -> int:
        raise NotImplementedError

    def phase_formula(self, j: int, cap: int) -> Formula:
        raise NotImplementedError

    def period(self) -> int:
        return 1


@dataclass(frozen=True)
class BlockReading(Reading):
    b: int

    @property
    def pattern(self) -> str:
        return f"B{self.b}"

    def phase_of(self, n: int, cap: int) -> int:
        return n - 1 if n < self.b else n % self.b

    def phase_formula(self, j: int, cap: int) -> Formula:
        return phase(self.b, j)

    def period(self) -> int:
        return self.b


@dataclass(frozen=True)
class DilatedReading(Reading):
    k: int
    d: int

    @property
    def pattern(self) -> str:
        return f"D{self.k}.{self.d}"

    def phase_of(self, n: int, cap: int) -> int:
        return min((n - 1) // self.d, cap)

    def phase_formula(self, j: int, cap: int) -> Formula:
        def steps(i: int) -> Formula:  # n > i·d: i nested heads
            out: Formula = TRUE
            for _ in range(i):
                out = Dilated(out, self.k, self.d)
            return out

        return steps(j) if j == cap else And(steps(j), Not(steps(j + 1)))


# ------------------------------------------------------------------ rewriting
def _letter_free(f: Formula) -> bool:
    """No letter, no ``eos`` and no future operator: the truth at n depends on n alone."""
    return not any(isinstance(s, (Symbol, Eos, Dilated, InBlock, *FUTURE))
                   for s in f.subformulas())


def _threshold(f: Formula, period: int) -> int:
    """A bound T such that the truth of a letter-free past formula is periodic (with a
    period dividing ``period``) for n > T: Y^k adds k, P/H/S two periods and one step."""
    total = 0
    for s in f.subformulas():
        if isinstance(s, Yesterday | BoundedPast):
            total += s.k
        elif isinstance(s, Past | Historically | Since):
            total += 2 * period + 1
        elif not s.children and not isinstance(s, Mod | Top | Bottom):
            total += 1  # start: true at n = 1 only
    return total


@dataclass(frozen=True)
class Rewriter:
    reading: Reading
    layout: str
    conflicts: list[str] = field(default_factory=list)  # position predicates read inexactly

    def rewrite(self, f: Formula) -> Formula:
        if isinstance(f, Top | Bottom):
            return f
        if _letter_free(f):
            return self.position(f)
        if isinstance(f, Symbol | Eos):
            return f
        if isinstance(f, Dilated | InBlock):  # built with construct.nodes: its own head
            if f.pattern != self.reading.pattern:
                raise UnsupportedFragmentError(
                    f"{f} needs {f.pattern} heads; the layout {self.layout} has "
                    f"{self.reading.pattern}")
            return replace(f, arg=self.rewrite(f.arg))
        if isinstance(f, And | Or):
            return self.chain(f)
        if isinstance(f, Yesterday | BoundedPast):
            return self.yesterday(f)
        if isinstance(f, (Past, Historically, Since, *FUTURE)):
            raise UnsupportedFragmentError(
                f"{f} needs a {'global' if f.op in 'PH' else 'different'} head: a layout "
                f"{self.layout} reads only {self._reads()}; use global or hybrid-k for P and H"
            )
        kids = [self.rewrite(c) for c in f.children]
        return type(f)(*kids)

    def _reads(self) -> str:
        r = self.reading
        if isinstance(r, BlockReading):
            return (f"the earlier positions of a block of {r.b} (Y^i with i < {r.b} inside a "
                    "block, and functions of the block phase)")
        assert isinstance(r, DilatedReading)
        window = " | ".join(f"Y^{j * r.d} ψ" for j in range(1, r.k + 1))
        return f"ψ at some n - j·{r.d}, 1 <= j <= {r.k} (written {window})"

    def chain(self, f: And | Or) -> Formula:
        """∧ / ∨ chains: letter-free members become one position predicate; with dilated
        heads, a full window Y^d ψ ∨ … ∨ Y^{kd} ψ inside an ∨ chain becomes one head."""
        kind: type[And] | type[Or] = type(f)
        members: list[Formula] = []

        def walk(g: Formula) -> None:
            if isinstance(g, And | Or) and type(g) is kind:
                walk(g.left)
                walk(g.right)
            else:
                members.append(g)

        walk(f)
        free = [g for g in members if _letter_free(g)]
        rest = [g for g in members if not _letter_free(g)]
        out: list[Formula] = []
        if free:
            combined = free[0]
            for g in free[1:]:
                combined = kind(combined, g)
            out.append(self.position(combined))
        if kind is Or and isinstance(self.reading, DilatedReading):
            rest = self._windows(rest, out)
        out += [self.rewrite(g) for g in rest]
        result = out[0]
        for g in out[1:]:
            result = kind(result, g)
        return result

    def _windows(self, members: list[Formula], out: list[Formula]) -> list[Formula]:
        r = self.reading
        assert isinstance(r, DilatedReading)
        offsets: dict[Formula, set[int]] = {}
        for g in members:
            y = _collapse(g)
            if isinstance(y, Yesterday):
                offsets.setdefault(y.arg, set()).add(y.k)
        full = {j * r.d for j in range(1, r.k + 1)}
        done = {arg for arg, ks in offsets.items() if full <= ks}
        for arg in done:
            out.append(Dilated(self.rewrite(arg), r.k, r.d))
        return [g for g in members if not (isinstance(y := _collapse(g), Yesterday)
                                           and y.arg in done and y.k in full)]

    def yesterday(self, f: Yesterday | BoundedPast) -> Formula:
        r = self.reading
        if isinstance(f, BoundedPast) and isinstance(r, DilatedReading) and r.d == 1 and f.k == r.k:
            return Dilated(self.rewrite(f.arg), r.k, 1)
        if isinstance(f, BoundedPast):
            if isinstance(r, DilatedReading):
                raise UnsupportedFragmentError(
                    f"{f} is not read by {r.pattern} heads; a layout {self.layout} reads "
                    f"{self._reads()}")
            return self.rewrite(disj(*(Yesterday(f.arg, i) for i in range(1, f.k + 1))))
        y = _collapse(f)
        assert isinstance(y, Yesterday)
        inner = self.rewrite(y.arg)
        if isinstance(r, DilatedReading):
            if r.k != 1 or y.k % r.d:
                raise UnsupportedFragmentError(
                    f"{f} alone is not read by {r.pattern} heads: a layout {self.layout} reads "
                    f"{self._reads()}; with k = 1 every Y^(j·{r.d}) is j nested heads"
                )
            for _ in range(y.k // r.d):
                inner = Dilated(inner, 1, r.d)
            return inner
        assert isinstance(r, BlockReading)
        if y.k >= r.b:
            raise UnsupportedFragmentError(
                f"{f} reaches {y.k} positions back, outside every block of {r.b}: a layout "
                f"{self.layout} reads {self._reads()}"
            )
        return disj(*(And(phase(r.b, j), InBlock(And(inner, phase(r.b, j - y.k)), r.b))
                      for j in range(y.k, r.b)))

    def position(self, f: Formula) -> Formula:
        """A letter-free formula as a function of the phase, or an error with two positions."""
        r = self.reading
        mods = [s.modulus for s in f.subformulas() if isinstance(s, Mod)]
        period = math.lcm(r.period(), *mods)
        threshold = _threshold(f, period)
        cap = 0
        if isinstance(r, DilatedReading):
            cap = threshold // r.d + 1
        horizon = max(threshold, cap * max(1, getattr(r, "d", 1)), r.period()) + period + 1
        word = ("",) * horizon  # letters do not matter; the symbol is never read
        seen: dict[int, tuple[int, bool]] = {}
        for n in range(1, horizon + 1):
            j, value = r.phase_of(n, cap), holds(f, word, n)
            if j in seen and seen[j][1] != value and not self.conflicts:
                self.conflicts.append(
                    f"{f} is not a function of what a layout {self.layout} reads of the "
                    f"position: positions {seen[j][0]} and {n} look alike to its heads "
                    f"({self._phase_name(j)}) but {f} is {seen[j][1]} at {seen[j][0]} and "
                    f"{value} at {n}. {self._position_hint()}"
                )
            seen[j] = (n, value)  # where they differ, the value at the latest position
        true = sorted(j for j, (_, v) in seen.items() if v)
        if not true:
            return FALSE
        if len(true) == len(seen):
            return TRUE
        return disj(*(r.phase_formula(j, cap) for j in true))

    def _phase_name(self, j: int) -> str:
        r = self.reading
        if isinstance(r, BlockReading):
            return f"block phase {j}"
        return f"{j} dilated steps back"

    def _position_hint(self) -> str:
        r = self.reading
        if isinstance(r, BlockReading):
            return (f"Block heads read the phase κ(n) = n - 1 for n < {r.b}, n mod {r.b} "
                    f"from n = {r.b} on (BOS is index 0), so mod(m,r) is readable only away "
                    "from the first block: e.g. with block-2, mod(2,1) & !start (N even, "
                    "N >= 2) is readable, mod(2,1) alone (N even) is not")
        assert isinstance(r, DilatedReading)
        return (f"Dilated heads read only how many steps of {r.d} fit before n "
                f"(Y^{r.d} true, Y^{2 * r.d} true, ...)")


def _collapse(f: Formula) -> Formula:
    """Y^i Y^j ψ → Y^{i+j} ψ (nested yesterdays as one offset)."""
    if isinstance(f, Yesterday):
        inner = _collapse(f.arg)
        if isinstance(inner, Yesterday):
            return Yesterday(inner.arg, inner.k + f.k)
        return Yesterday(inner, f.k)
    return f
