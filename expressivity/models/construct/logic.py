"""Boolean side of the construction: threshold forms, disjoint DNFs and formula normalization.

Helpers of `models.construct.plan`, pure functions of formulas:

- a *threshold form* ``[Σ wᵢ·lᵢ ≥ θ]`` over literals (node, negated) with positive integer
  weights: `fold` combines a form with a plain conjunction/disjunction of literals, so nested
  ∧/∨ chains (e.g. ``start ∨ (Y b ∧ P x ∧ ¬P y)``) become one linear score;
- `disjoint_cover`: a DNF with pairwise exclusive terms (Shannon expansion), so that the sum of
  its terms' ReLUs is exactly 0/1;
- `unfold`: Y^k ψ → Y…Yψ and Y^{≤1} → Y; `bounded_to_yesterday`: Y^{≤k}ψ → Yψ ∨ … ∨ Y^kψ.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from expressivity.logic.boolean import boolean_value
from expressivity.logic.syntax import (
    And,
    Bottom,
    Eos,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Start,
    Symbol,
    Top,
)
from expressivity.logic.temporal import BoundedPast, Historically, Past, Yesterday
from expressivity.models.construct.nodes import Dilated, InBlock, ModRead

__all__ = [
    "ATOMS",
    "BOOLEAN",
    "MAX_WEIGHT",
    "TEMPORAL",
    "Form",
    "Lit",
    "bounded_to_yesterday",
    "conjunction",
    "disjoint_cover",
    "flatten",
    "fold",
    "frontier_table",
    "is_atomic",
    "strip",
    "threshold_form",
    "unfold",
    "value_on_token",
]

BOOLEAN = (Not, And, Or, Implies, Iff)
ATOMS = (Symbol, Top, Bottom, Eos)
TEMPORAL = (Past, Historically, Yesterday, BoundedPast, Start, Dilated, InBlock, ModRead)

Lit = tuple[Formula, bool]  # (node, negated)
#: A threshold function [Σ wᵢ·lᵢ ≥ θ] of literals: ((literal, positive integer weight), ...), θ.
Form = tuple[tuple[tuple[Lit, int], ...], int]
MAX_WEIGHT = 64  # largest Σwᵢ of a fused threshold form (keeps values exact in float16)


def strip(f: Formula, neg: bool) -> Lit:
    """The literal (node, negated) of ``¬…¬f`` with the negations moved into the sign."""
    while isinstance(f, Not):
        f, neg = f.arg, not neg
    return f, neg


def threshold_form(
    f: Formula, neg: bool, when: Callable[[Formula], int], cache: dict[Lit, Form]
) -> Form:
    """``(¬)f`` as a threshold form. A connective whose sides do not `fold` keeps the side
    ready first (by ``when``) as a form and takes the other as one literal (to be materialized);
    anything else (atoms, temporal nodes, ↔) is a literal itself."""
    if (f, neg) in cache:
        return cache[f, neg]
    form: Form | None = None
    if isinstance(f, Not):
        form = threshold_form(f.arg, neg=not neg, when=when, cache=cache)
    elif isinstance(f, And | Or | Implies):
        is_and = neg if isinstance(f, Implies) else isinstance(f, And) != neg
        kids = [(f.left, not neg if isinstance(f, Implies) else neg), (f.right, neg)]
        a, b = (threshold_form(c, n, when, cache) for c, n in kids)
        form = fold(a, b, is_and)
        if form is None:
            late = max(kids, key=lambda cn: when(cn[0]))
            other = threshold_form(*kids[1 - kids.index(late)], when, cache)
            form = fold(other, (((strip(*late), 1),), 1), is_and)
    if form is None:
        form = (((f, neg), 1),), 1
    cache[f, neg] = form
    return form


def conjunction(lits: list[Lit]) -> Form:
    """The threshold form of the conjunction of ``lits``."""
    return tuple((lit, 1) for lit in lits), len(lits)


def fold(a: Form, b: Form, is_and: bool) -> Form | None:
    """The threshold form of a ∧ b (or a ∨ b) when one side is a plain conjunction (resp.
    disjunction) of literals, else None. With M = Σw_a − θ_a + 1 (∧) or θ_a (∨), the plain side's
    literals get weight M: all of them (∧) or any of them (∨) then decide alone."""
    def plain(f: Form) -> bool:
        weights = [w for _, w in f[0]]
        return f[1] == sum(weights) if is_and else min(weights) >= f[1]

    if not plain(b):
        a, b = b, a
    if not plain(b):
        return None
    if plain(a) and is_and:
        merged, theta = dict(a[0]), a[1] + b[1]
        for lit, w in b[0]:
            merged[lit] = merged.get(lit, 0) + w
    else:
        total = sum(w for _, w in a[0])
        m = total - a[1] + 1 if is_and else a[1]
        merged = dict(a[0])
        for lit, _ in b[0]:
            merged[lit] = merged.get(lit, 0) + m
        theta = a[1] + m * len(b[0]) if is_and else a[1]
    if sum(merged.values()) > MAX_WEIGHT:
        return None
    return tuple(merged.items()), theta


def flatten(f: Formula, conj: bool, neg: bool, out: list[Lit]) -> None:
    """Append literals whose ∧ (``conj``) or ∨ equals ``f`` (negated if ``neg``)."""
    if isinstance(f, Not):
        flatten(f.arg, conj, not neg, out)
        return
    parts: list[Lit] = []
    if isinstance(f, And | Or):
        is_and = isinstance(f, And) != neg
        parts = [(f.left, neg), (f.right, neg)]
    elif isinstance(f, Implies):
        is_and = neg
        parts = [(f.left, not neg), (f.right, neg)]
    if parts and is_and == conj:
        for child, n in parts:
            flatten(child, conj, n, out)
    elif (f, neg) not in out:
        out.append((f, neg))


def is_atomic(f: Formula) -> bool:
    """True for atoms and Boolean combinations of atoms (functions of the token alone)."""
    return isinstance(f, ATOMS) or (isinstance(f, BOOLEAN) and all(map(is_atomic, f.children)))


def value_on_token(f: Formula, symbol: str | None) -> bool:
    """An atomic formula at a non-BOS token: a symbol, or the EOS token (``symbol=None``)."""

    def leaf(g: Formula) -> bool:
        is_symbol = isinstance(g, Symbol) and g.name == symbol
        return is_symbol or (isinstance(g, Eos) and symbol is None)

    return bool(boolean_value(f, leaf))


def frontier_table(f: Formula, index: dict[Formula, int], n: int) -> np.ndarray:
    """Truth table of Boolean ``f`` over the frontier ``index`` (axis i = variable i)."""

    def variable(g: Formula) -> np.ndarray:
        shape = [1] * n
        shape[index[g]] = 2
        return np.arange(2, dtype=bool).reshape(shape)

    table = boolean_value(f, variable, stop=index.__contains__)
    return np.full((1,) * n, bool(table)) if np.ndim(table) == 0 else table


def disjoint_cover(table: np.ndarray, names: tuple[int, ...]) -> list[list[tuple[int, bool]]]:
    """Disjoint DNF of a truth table (Shannon expansion): terms of (variable, negated)."""
    if table.all():
        return [[]]
    if not table.any():
        return []
    cof = [(np.take(table, 0, axis=i), np.take(table, 1, axis=i)) for i in range(table.ndim)]
    axis = next((i for i, (t0, t1) in enumerate(cof) if (t0 == t1).all()), None)
    if axis is not None:  # the variable does not matter
        return disjoint_cover(cof[axis][0], names[:axis] + names[axis + 1 :])
    axis = next((i for i, (t0, t1) in enumerate(cof) if t0.all() or t1.all()
                 or not t0.any() or not t1.any()), 0)
    rest = names[:axis] + names[axis + 1 :]
    t0, t1 = cof[axis]
    return [[(names[axis], True), *t] for t in disjoint_cover(t0, rest)] + [
        [(names[axis], False), *t] for t in disjoint_cover(t1, rest)
    ]


def unfold(f: Formula) -> Formula:
    """Y^k ψ → Y…Yψ (k nested Y), Y^{≤1} → Y; everything else rebuilt child by child."""
    if isinstance(f, Yesterday) and f.k > 1:
        return Yesterday(unfold(Yesterday(f.arg, f.k - 1)))
    if isinstance(f, BoundedPast) and f.k == 1:
        return Yesterday(unfold(f.arg))
    if not f.children:
        return f
    kids = [unfold(c) for c in f.children]
    if isinstance(f, Dilated | InBlock):
        return replace(f, arg=kids[0])
    if isinstance(f, Not | Past | Historically):
        return type(f)(kids[0])
    if isinstance(f, Yesterday | BoundedPast):
        return type(f)(kids[0], f.k)
    assert isinstance(f, And | Or | Implies | Iff), f"unsupported node {f.operator_name}"
    return type(f)(kids[0], kids[1])


def bounded_to_yesterday(f: Formula) -> Formula:
    """Y^{≤k} ψ → Y ψ ∨ … ∨ Y^k ψ (for layouts with 1-local but no k-local heads)."""
    if isinstance(f, BoundedPast) and f.k > 1:
        inner = bounded_to_yesterday(f.arg)
        out: Formula = Yesterday(inner)
        for j in range(2, f.k + 1):
            out = Or(out, Yesterday(inner, j))
        return out
    if not f.children:
        return f
    kids = [bounded_to_yesterday(c) for c in f.children]
    if isinstance(f, Dilated | InBlock):
        return replace(f, arg=kids[0])
    if isinstance(f, Yesterday | BoundedPast):
        return type(f)(kids[0], f.k)
    return type(f)(*kids)
