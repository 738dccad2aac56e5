"""The formula AST: frozen, hashable dataclasses, the base node, atoms and Boolean connectives.

Positions of a word w = w1...wN are 1..N+1; N+1 is the EOS position. Every node documents
its meaning at a position n (docs/theory.md §2). Equality is structural, never semantic. The
temporal operators (past and future) are in `temporal`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from typing import ClassVar, TypeVar

from expressivity.errors import FormulaError
from expressivity.logic.printer import to_text

_CHILD_FIELDS = ("arg", "left", "right")
_T = TypeVar("_T")


_FIELD_NAMES: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}  # a memo by node type


def _field_names(node_type: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of a node type's child fields and of its other (parameter) fields."""
    known = _FIELD_NAMES.get(node_type)
    if known is None:
        names = [f.name for f in fields(node_type)]
        known = _FIELD_NAMES[node_type] = (
            tuple(n for n in names if n in _CHILD_FIELDS),
            tuple(n for n in names if n not in _CHILD_FIELDS),
        )
    return known


@dataclass(frozen=True)
class Formula:
    """Base class of formula nodes."""

    #: Canonical ASCII operator name (``"P"``, ``"&"``, ...); atoms use their own spelling.
    op: ClassVar[str] = ""
    #: True for temporal operators (counted by `depth`).
    temporal: ClassVar[bool] = False

    @property
    def children(self) -> tuple[Formula, ...]:
        """Direct subformulas, left to right."""
        return tuple(getattr(self, name) for name in _field_names(type(self))[0])

    def subformulas(self) -> Iterator[Formula]:
        """Every subformula (with repetitions), in post-order: children before parents, left
        to right. Iterative (no recursion limit)."""
        stack: list[tuple[Formula, bool]] = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                yield node
                continue
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.children))

    def fold(self, combine: Callable[[Formula, Sequence[_T]], _T]) -> _T:
        """The bottom-up value ``combine(node, values of its children)`` of the formula.

        Iterative (no recursion limit), and each distinct subformula is combined once:
        nodes are shared by structure (type, parameters, children), so equal subformulas
        that are different objects get one value. ``combine`` must depend on the node's
        structure only (its type, parameters and children's values).
        """
        slot_of: dict[int, int] = {}  # id(node) -> slot
        slots: dict[tuple[object, ...], int] = {}
        values: list[_T] = []
        stack: list[tuple[Formula, bool]] = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in slot_of:
                continue
            child_names, param_names = _field_names(type(node))
            children = [getattr(node, name) for name in child_names]
            if not expanded:
                stack.append((node, True))
                stack.extend((c, False) for c in children if id(c) not in slot_of)
                continue
            kids = tuple(slot_of[id(c)] for c in children)
            key = (type(node), tuple(getattr(node, name) for name in param_names), kids)
            if key not in slots:
                slots[key] = len(values)
                values.append(combine(node, [values[i] for i in kids]))
            slot_of[id(node)] = slots[key]
        return values[slot_of[id(self)]]

    @property
    def depth(self) -> int:
        """Temporal operator depth (nesting of P, Y, H, S, X, F, G, U ...); atoms have depth 0."""
        return self.fold(lambda f, inner: max(inner, default=0) + f.temporal)

    @property
    def size(self) -> int:
        """Number of nodes of the syntax tree."""
        return self.fold(lambda f, children: 1 + sum(children))

    @property
    def operators(self) -> frozenset[str]:
        """The set of operator names used (``"P"``, ``"Y"``, ``"Y^k"``, ``"Y<=k"``, ...)."""
        return frozenset(o for sub in self.subformulas() if (o := sub.operator_name))

    @property
    def operator_name(self) -> str:
        """The operator of this node as reported by `operators` (empty for atoms)."""
        return self.op if self.children else ""

    def symbols(self) -> frozenset[str]:
        """Alphabet symbols mentioned in the formula."""
        return frozenset(s.name for s in self.subformulas() if isinstance(s, Symbol))

    def __str__(self) -> str:
        return to_text(self)


# ---------------------------------------------------------------- atoms


@dataclass(frozen=True)
class Symbol(Formula):
    """``a``: the symbol at position n is ``name`` (false at the EOS position)."""

    name: str


@dataclass(frozen=True)
class Top(Formula):
    """``true`` (⊤)."""

    op: ClassVar[str] = "true"


@dataclass(frozen=True)
class Bottom(Formula):
    """``false`` (⊥)."""

    op: ClassVar[str] = "false"


@dataclass(frozen=True)
class Start(Formula):
    """``start``: true exactly at position 1 (equivalent to ¬P⊤)."""

    op: ClassVar[str] = "start"


@dataclass(frozen=True)
class Eos(Formula):
    """``eos``: true exactly at the EOS position N+1."""

    op: ClassVar[str] = "eos"


@dataclass(frozen=True)
class Mod(Formula):
    """``mod(m,r)``: the position n satisfies n ≡ r (mod m), with m ≥ 1 and 0 ≤ r < m.

    Positions count from 1 and include the EOS position N+1, so at the EOS position
    ``mod(2,1)`` says that N is even. The MOD predicates of LTL[P,MOD] (see docs/theory.md,
    "Periodic positions and MOD").
    """

    modulus: int
    residue: int
    op: ClassVar[str] = "mod"

    def __post_init__(self) -> None:
        if self.modulus < 1:
            raise FormulaError(f"mod(m,r) needs a modulus m >= 1, got {self.modulus}")
        if not 0 <= self.residue < self.modulus:
            raise FormulaError(
                f"mod(m,r) needs a residue 0 <= r < m = {self.modulus}, got {self.residue}"
            )


# ---------------------------------------------------------------- boolean connectives


@dataclass(frozen=True)
class Not(Formula):
    """``!ψ`` (¬ψ)."""

    arg: Formula
    op: ClassVar[str] = "!"


@dataclass(frozen=True)
class And(Formula):
    """``ψ1 & ψ2`` (∧)."""

    left: Formula
    right: Formula
    op: ClassVar[str] = "&"


@dataclass(frozen=True)
class Or(Formula):
    """``ψ1 | ψ2`` (∨)."""

    left: Formula
    right: Formula
    op: ClassVar[str] = "|"


@dataclass(frozen=True)
class Implies(Formula):
    """``ψ1 -> ψ2`` (→)."""

    left: Formula
    right: Formula
    op: ClassVar[str] = "->"


@dataclass(frozen=True)
class Iff(Formula):
    """``ψ1 <-> ψ2`` (↔)."""

    left: Formula
    right: Formula
    op: ClassVar[str] = "<->"


ATOMS: tuple[type[Formula], ...] = (Symbol, Top, Bottom, Start, Eos, Mod)
BOOLEAN: tuple[type[Formula], ...] = (Not, And, Or, Implies, Iff)

TRUE = Top()
FALSE = Bottom()
START = Start()
EOS = Eos()


def conj(*args: Formula) -> Formula:
    """Left-nested conjunction of ``args`` (``true`` when empty)."""
    if not args:
        return TRUE
    out = args[0]
    for a in args[1:]:
        out = And(out, a)
    return out


def disj(*args: Formula) -> Formula:
    """Left-nested disjunction of ``args`` (``false`` when empty)."""
    if not args:
        return FALSE
    out = args[0]
    for a in args[1:]:
        out = Or(out, a)
    return out
