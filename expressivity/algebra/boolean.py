"""Boolean simplification of formulas, temporal subformulas taken as atoms (sympy SOP/POS).

Each maximal Boolean layer is minimized by sympy's Quine–McCluskey (`SOPform`/`POSform`) with
don't-cares for impossible atom combinations: two letters at one position, a letter at the EOS
position, and for the atoms ``Y^i x`` of one offset the facts of words (one letter per
position, ``Y^i ⊤`` iff the word is that long). The smallest of the original, SOP and POS
forms is kept, so simplification never makes a formula larger.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache

import sympy

from expressivity.logic.boolean import boolean_value
from expressivity.logic.syntax import (
    FALSE,
    START,
    TRUE,
    And,
    Bottom,
    Eos,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Symbol,
    Top,
    conj,
    disj,
)
from expressivity.logic.temporal import BoundedPast, Historically, Past, Yesterday

#: Layers with more distinct atoms than this are left as they are.
MAX_ATOMS = 8


def simplify(formula: Formula, symbols: Sequence[str], at_eos: bool = True) -> Formula:
    """An equivalent, never larger pure-past formula, simplified bottom-up.

    Equivalent at the EOS position (``at_eos``, the language) or at every letter position
    (``at_eos=False``: how arguments of past operators are simplified).
    """
    return _simplify(formula, tuple(symbols), at_eos)


@lru_cache(maxsize=4096)
def _simplify(formula: Formula, symbols: tuple[str, ...], at_eos: bool) -> Formula:
    inner = _simplify_children(formula, symbols)
    return _simplify_layer(inner, symbols, at_eos)


def _simplify_children(f: Formula, symbols: Sequence[str]) -> Formula:
    """Simplify below temporal operators, with constant folding of P/Y/H of constants."""
    if isinstance(f, Not):
        arg = _simplify_children(f.arg, symbols)
        return START if arg == Past(TRUE) else Not(arg)
    if isinstance(f, And | Or | Implies | Iff):
        return type(f)(_simplify_children(f.left, symbols), _simplify_children(f.right, symbols))
    if isinstance(f, Past | Yesterday | BoundedPast | Historically):
        arg = simplify(f.arg, symbols, at_eos=False)
        if isinstance(arg, Bottom) and not isinstance(f, Historically):
            return FALSE
        if isinstance(arg, Top) and isinstance(f, Historically):
            return TRUE
        if isinstance(f, Past):
            return Past(_first_occurrence(arg))
        return type(f)(arg, f.k) if isinstance(f, Yesterday | BoundedPast) else type(f)(arg)
    return f


def _conjuncts(f: Formula) -> frozenset[Formula]:
    if isinstance(f, And):
        return _conjuncts(f.left) | _conjuncts(f.right)
    return frozenset([f])


def _first_occurrence(arg: Formula) -> Formula:
    """P(X ∧ ¬P X) ≡ P X: some position has X iff a first one does (also for ¬P X = start)."""
    parts = _conjuncts(arg)
    for part in parts:
        inner = part.arg.arg if isinstance(part, Not) and isinstance(part.arg, Past) else None
        if part == START:
            inner = TRUE
        if inner is not None and _conjuncts(inner) == (parts - {part} or {TRUE}):
            return inner
    return arg


def _atoms(f: Formula, out: list[Formula]) -> None:
    if isinstance(f, Not):
        _atoms(f.arg, out)
    elif isinstance(f, And | Or | Implies | Iff):
        _atoms(f.left, out)
        _atoms(f.right, out)
    elif not isinstance(f, Top | Bottom) and f not in out:
        out.append(f)


def _evaluate(f: Formula, value: dict[Formula, bool]) -> bool:
    return bool(boolean_value(f, value.__getitem__))


def _possible(value: dict[Formula, bool], symbols: Sequence[str], at_eos: bool) -> bool:
    """Whether some word and position realize this assignment of atoms (sound don't-cares)."""
    letters = [a for a in value if isinstance(a, Symbol) and value[a]]
    if len(letters) > 1 or (letters and (at_eos or value.get(Eos(), False))):
        return False
    if value.get(Eos()) is (not at_eos):  # eos holds exactly at the EOS position
        return False
    all_here = all(Symbol(s) in value for s in symbols)
    if not at_eos and all_here and not letters and not value.get(Eos(), False):
        return False
    return _possible_offsets(value, symbols)


def _possible_offsets(value: dict[Formula, bool], symbols: Sequence[str]) -> bool:
    """Consistency of the atoms ``Y^i x`` (x a letter or ⊤): position n−i exists for i ≤ some
    length bound, holds exactly one letter when it exists, and none when it does not."""
    offsets: dict[int, list[Yesterday]] = {}
    for a in value:
        if isinstance(a, Yesterday) and isinstance(a.arg, Symbol | Top):
            offsets.setdefault(a.k, []).append(a)
    if not offsets:
        return True
    exists: dict[int, bool] = {}  # offsets whose existence the assignment fixes
    for i, atoms in offsets.items():
        true_letters = [a for a in atoms if isinstance(a.arg, Symbol) and value[a]]
        if len(true_letters) > 1:
            return False
        top = Yesterday(TRUE, i)
        if true_letters and value.get(top) is False:
            return False
        if true_letters or top in value:
            exists[i] = bool(true_letters) or value[top]
    longest_yes = max((i for i, v in exists.items() if v), default=0)
    shortest_no = min((i for i, v in exists.items() if not v), default=10**9)
    if longest_yes >= shortest_no:
        return False
    for i, atoms in offsets.items():  # an existing position holds one of the letters
        every = all(Yesterday(Symbol(s), i) in value for s in symbols)
        if i <= longest_yes and every and not any(value[a] for a in atoms if a.arg != TRUE):
            return False
    return True


def _simplify_layer(f: Formula, symbols: Sequence[str], at_eos: bool) -> Formula:
    atoms: list[Formula] = []
    _atoms(f, atoms)
    if len(atoms) > MAX_ATOMS or f in atoms:
        return f
    names = sympy.symbols(f"v0:{len(atoms)}") if atoms else ()
    minterms, dontcares = [], []
    for bits in itertools.product((0, 1), repeat=len(atoms)):
        value = {a: bool(b) for a, b in zip(atoms, bits, strict=True)}
        if not _possible(value, symbols, at_eos):
            dontcares.append(list(bits))
        elif _evaluate(f, value):
            minterms.append(list(bits))
    if not minterms:
        return FALSE
    if len(minterms) + len(dontcares) == 2 ** len(atoms):
        return TRUE
    candidates = [f]
    forms = (sympy.SOPform, sympy.POSform) if len(atoms) <= 5 else (sympy.SOPform,)
    for form in forms:
        expr = form(list(names), minterms, dontcares)
        candidates.append(_from_sympy(expr, dict(zip(names, atoms, strict=True))))
    return min(candidates, key=lambda g: (g.size, str(g)))


def _from_sympy(expr: sympy.Basic, atoms: dict[sympy.Symbol, Formula]) -> Formula:
    if expr is sympy.true:
        return TRUE
    if expr is sympy.false:
        return FALSE
    if isinstance(expr, sympy.Symbol):
        return atoms[expr]
    if isinstance(expr, sympy.Not):
        return Not(_from_sympy(expr.args[0], atoms))
    parts = sorted((_from_sympy(a, atoms) for a in expr.args), key=str)
    if isinstance(expr, sympy.And):
        return conj(*parts)
    if isinstance(expr, sympy.Or):
        return disj(*parts)
    raise TypeError(f"unexpected sympy node {expr!r}")
