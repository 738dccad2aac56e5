"""The temporal operators of the formula AST: past (P, Y, Y<=k, H, S) and future (X, X~, F, G, U).

Each node is a frozen `syntax.Formula` documenting its meaning at a position n of w1...wN,
N+1 being the EOS position (docs/theory.md §2); ``temporal`` marks it for `Formula.depth`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from expressivity.errors import FormulaError
from expressivity.logic.syntax import Formula

__all__ = ["FUTURE", "PAST", "BoundedPast", "Eventually", "Globally", "Historically", "Next",
           "Past", "Since", "Until", "WeakNext", "Yesterday"]


# ---------------------------------------------------------------- past operators


@dataclass(frozen=True)
class Past(Formula):
    """``P ψ`` (once, strict): ψ holds at some m < n."""

    arg: Formula
    op: ClassVar[str] = "P"
    temporal: ClassVar[bool] = True


@dataclass(frozen=True)
class Yesterday(Formula):
    """``Y ψ`` / ``Y^k ψ`` (strict): n > k and ψ holds at n − k."""

    arg: Formula
    k: int = 1
    op: ClassVar[str] = "Y"
    temporal: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if self.k < 1:
            raise FormulaError(f"Y^k needs k >= 1, got {self.k}")

    @property
    def operator_name(self) -> str:
        return "Y" if self.k == 1 else f"Y^{self.k}"


@dataclass(frozen=True)
class BoundedPast(Formula):
    """``Y<=k ψ`` (Y^{≤k}): ψ holds at some m with max(1, n − k) ≤ m < n."""

    arg: Formula
    k: int = 1
    op: ClassVar[str] = "Y<="
    temporal: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if self.k < 1:
            raise FormulaError(f"Y^{{<=k}} needs k >= 1, got {self.k}")

    @property
    def operator_name(self) -> str:
        return f"Y<={self.k}"


@dataclass(frozen=True)
class Historically(Formula):
    """``H ψ`` (¬P¬ψ): ψ holds at every m < n."""

    arg: Formula
    op: ClassVar[str] = "H"
    temporal: ClassVar[bool] = True


@dataclass(frozen=True)
class Since(Formula):
    """``ψ1 S ψ2`` (strict): some m < n has ψ2, and ψ1 holds at every k with m < k < n."""

    left: Formula
    right: Formula
    op: ClassVar[str] = "S"
    temporal: ClassVar[bool] = True


# ---------------------------------------------------------------- future operators


@dataclass(frozen=True)
class Next(Formula):
    """``X ψ`` (strong next): n < N+1 and ψ holds at n + 1."""

    arg: Formula
    op: ClassVar[str] = "X"
    temporal: ClassVar[bool] = True


@dataclass(frozen=True)
class WeakNext(Formula):
    """``WX ψ`` (weak next): n = N+1 or ψ holds at n + 1."""

    arg: Formula
    op: ClassVar[str] = "WX"
    temporal: ClassVar[bool] = True


@dataclass(frozen=True)
class Eventually(Formula):
    """``F ψ`` (strict): ψ holds at some m with n < m ≤ N+1."""

    arg: Formula
    op: ClassVar[str] = "F"
    temporal: ClassVar[bool] = True


@dataclass(frozen=True)
class Globally(Formula):
    """``G ψ`` (strict): ψ holds at every m with n < m ≤ N+1."""

    arg: Formula
    op: ClassVar[str] = "G"
    temporal: ClassVar[bool] = True


@dataclass(frozen=True)
class Until(Formula):
    """``ψ1 U ψ2`` (strict): some m with n < m ≤ N+1 has ψ2, and ψ1 holds at every n < k < m."""

    left: Formula
    right: Formula
    op: ClassVar[str] = "U"
    temporal: ClassVar[bool] = True


PAST: tuple[type[Formula], ...] = (Past, Yesterday, BoundedPast, Historically, Since)
FUTURE: tuple[type[Formula], ...] = (Next, WeakNext, Eventually, Globally, Until)
