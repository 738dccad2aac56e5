"""Syntactic fragments: which operators a formula needs, and the smallest named LTL fragment.

Operator families (a formula "needs" a family when it uses one of its members):

====================  ============================  =========================================
family                members                       why
====================  ============================  =========================================
``P``                 ``P`` (``O``), ``H``          H ψ = ¬P¬ψ
``Y``                 ``Y``, ``Y^k``, ``Y<=1``      Y^k ψ = Y…Yψ (k times); Y^{≤1} = Y
``Y<=k`` (k ≥ 2)      ``Y<=k`` with that k          only itself: Y a ∉ LTL[P,Y^{≤k}] ([LC26]),
                                                    and Y^k, Y^{≤j} (j ≠ k) are not Y^{≤k}-terms
``S``                 ``S``                         full past: P ψ = ⊤Sψ, Y ψ = ⊥Sψ
``F``                 ``F``, ``G``                  G ψ = ¬F¬ψ
``X``                 ``X``, ``WX``                 WX ψ = ¬X¬ψ
``U``                 ``U``                         X ψ = ⊥Uψ, F ψ = ⊤Uψ
``MOD``               ``mod(m,r)``                  a position predicate, not an operator
====================  ============================  =========================================

A fragment given by a set of operators contains the families they define: ``Y`` also covers
every ``Y<=k`` (Y^{≤k}ψ = Yψ ∨ … ∨ Y^kψ, so LTL[Y^{≤k}] ⊆ LTL[Y]); ``S`` covers all past
families and ``U`` all future ones.

Atoms: ``start`` equals ¬P⊤ = ¬Y⊤ = ¬Y^{≤k}⊤ = ¬(⊤S⊤), so it is free in every fragment with a
past operator (a pure-future formula cannot see position 1, so there ``start`` needs one:
``F`` + ``start`` is labelled LTL[P,F]). ``eos`` is free everywhere: a past operator only looks
at positions m < n ≤ N+1, where eos is false, so under past operators it is ⊥ and outside
them (at the evaluation point N+1) it is ⊤; under future operators it is ¬F⊤ = ¬X⊤ = G⊥.

MOD predicates (``mod(m,r)``: n ≡ r mod m) are atoms, but no operator family defines them: a
formula that uses one needs ``MOD`` and its label gains it (``LTL[P,MOD]``, ``LTL[P,Y,MOD]``,
``LTL[MOD]`` without a temporal operator). ``mod(1,0)`` is ⊤ but still counts.

Labels are syntactic (what the operators used guarantee), not semantic: ``Y a`` is labelled
LTL[Y] although Σ*a is also LTL[P,F]-definable; decide semantic classes with the algebra.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from expressivity.errors import UnsupportedFragmentError
from expressivity.logic.syntax import Eos, Formula, Mod, Start
from expressivity.logic.temporal import BoundedPast, Yesterday

__all__ = ["OperatorUse", "check_fragment", "fragment", "fragment_of", "uses_only"]

_FAMILY = {"P": "P", "O": "P", "H": "P", "Y": "Y", "S": "S", "F": "F", "G": "F", "X": "X"}
_FAMILY |= {"WX": "X", "U": "U", "MOD": "MOD"}
_BOUND_RE = re.compile(r"^Y(?:\^\{?)?(?:<=|≤)(\d+)\}?$|^Y\^(?:k|\{k\}|\d+)$|^Y<=k$")
_DESCRIPTIONS = {
    "propositional": "no temporal operator (in every fragment; with start, every past one)",
    "LTL[P]": "past 'once' only; global attention [LC25]",
    "LTL[Y]": "yesterday only (definite languages); 1-local attention [LC26]",
    "LTL[Y^{≤k}]": "bounded past with one window k; k-local attention [LC26]",
    "LTL[P,Y]": "once and yesterday; hybrid global + 1-local attention [LC26]",
    "LTL[P,Y^{≤k}]": "once and bounded past; hybrid global + k-local attention [LC26]",
    "LTL[S]": "full past LTL (since)",
    "LTL[F]": "pure future (eventually); at the EOS position only ∅ or Σ*",
    "LTL[U]": "pure future (until/next); at the EOS position only ∅ or Σ*",
    "LTL[P,F]": "once and eventually (FO2[<], DA)",
    "LTL[S,U]": "past and future LTL (FO[<], star-free) [YCA24]",
}
_MOD_DESCRIPTIONS = {
    "propositional": "MOD predicates only (no temporal operator)",
    "LTL[P]": "once with MOD predicates; global attention with periodic positions",
    "LTL[P,Y]": "once, yesterday and MOD predicates",
}


@dataclass(frozen=True)
class OperatorUse:
    """What a formula uses, and the smallest named fragment that contains it (see module doc)."""

    label: str
    description: str
    #: Temporal operators exactly as written (``"P"``, ``"H"``, ``"Y^3"``, ``"Y<=2"``, ...).
    temporal_operators: frozenset[str]
    #: Families needed after the rewritings (``"P"``, ``"Y"``, ``"Y<=2"``, ``"S"``, ``"F"``, ...).
    families: frozenset[str]
    #: The bound k of every ``Y<=k`` with k ≥ 2.
    past_bounds: frozenset[int]
    #: The largest k of any ``Y^k`` or ``Y<=k`` (0 when there is none).
    max_k: int
    has_past: bool
    has_future: bool
    uses_start: bool
    uses_eos: bool

    def uses_only(self, operators: Iterable[str]) -> bool:
        """Whether the formula lies in LTL[operators] up to the rewritings of the module doc."""
        allowed, any_bound = _closure(operators)
        past = any_bound or any(f in ("P", "Y", "S") or f.startswith("Y<=") for f in allowed)
        if self.uses_start and not past:
            return False
        return all(f in allowed or (any_bound and f.startswith("Y<=")) for f in self.families)


def fragment_of(formula: Formula) -> OperatorUse:
    """The `OperatorUse` of ``formula``: operators used, families needed and the label."""
    written: set[str] = set()
    families: set[str] = set()
    bounds: set[int] = set()
    max_k = 0
    uses_start = uses_eos = False
    for sub in formula.subformulas():
        if isinstance(sub, Mod):
            families.add("MOD")
        if isinstance(sub, Start):
            uses_start = True
        elif isinstance(sub, Eos):
            uses_eos = True
        if not sub.temporal:
            continue
        written.add(sub.operator_name)
        if isinstance(sub, BoundedPast | Yesterday):
            max_k = max(max_k, sub.k)
        if isinstance(sub, BoundedPast) and sub.k >= 2:
            families.add(f"Y<={sub.k}")
            bounds.add(sub.k)
        else:
            families.add(_FAMILY["Y" if isinstance(sub, BoundedPast) else sub.op])
    info = OperatorUse(
        label="",
        description="",
        temporal_operators=frozenset(written),
        families=frozenset(families),
        past_bounds=frozenset(bounds),
        max_k=max_k,
        has_past=bool(families & {"P", "Y", "S"} or bounds),
        has_future=bool(families & {"F", "X", "U"}),
        uses_start=uses_start,
        uses_eos=uses_eos,
    )
    label, generic = _label(replace(info, families=info.families - {"MOD"}))
    description = _DESCRIPTIONS[generic]
    if "MOD" in info.families:
        label = "LTL[MOD]" if label == "propositional" else f"{label[:-1]},MOD]"
        description = _MOD_DESCRIPTIONS.get(generic, f"{description}, with MOD predicates")
    return replace(info, label=label, description=description)


def fragment(formula: Formula) -> str:
    """The label of the smallest named fragment containing ``formula`` (e.g. ``"LTL[P,Y]"``)."""
    return fragment_of(formula).label


def uses_only(formula: Formula, operators: Iterable[str]) -> bool:
    """Whether ``formula`` is in LTL[operators], e.g. ``uses_only(f, {"P", "Y"})``.

    Operators are spelled as in the grammar: ``P`` (or ``O``, ``H``), ``Y`` (or ``Y^k``),
    ``Y<=k`` with a number (``Y<=2``, also ``Y^{≤2}``), ``S``, ``X``, ``WX``, ``F``, ``G``, ``U``,
    and ``MOD`` for the position predicates ``mod(m,r)``.
    """
    return fragment_of(formula).uses_only(operators)


def check_fragment(formula: Formula, operators: Iterable[str], *, context: str = "") -> None:
    """Raise `UnsupportedFragmentError` unless ``formula`` lies in LTL[operators]."""
    operators = tuple(sorted(operators))
    info = fragment_of(formula)
    if info.uses_only(operators):
        return
    allowed, any_bound = _closure(operators)
    outside = sorted(
        f for f in info.families if f not in allowed and not (any_bound and f.startswith("Y<="))
    ) or ["a past operator (for start)"]
    where = f" for {context}" if context else ""
    raise UnsupportedFragmentError(
        f"formula {formula} ({info.label}) is outside LTL[{','.join(operators)}]{where}: "
        f"it needs {', '.join(outside)}"
    )


def _closure(operators: Iterable[str]) -> tuple[frozenset[str], bool]:
    """Families contained in LTL[operators], and whether every ``Y<=k`` is among them."""
    allowed: set[str] = set()
    any_bound = False
    for op in operators:
        op = op.strip()
        match = _BOUND_RE.match(op)
        if op in _FAMILY:
            allowed.add(_FAMILY[op])
        elif match and match.group(1) is not None:
            k = int(match.group(1))
            allowed.add("Y" if k == 1 else f"Y<={k}")
        elif match:  # Y^k, Y^3, Y<=k: the Y family
            allowed.add("Y")
        else:
            raise UnsupportedFragmentError(
                f"unknown operator {op!r}; use P, O, H, Y, Y^k, Y<=k (with a number), S, "
                "X, WX, F, G, U, MOD"
            )
    if "Y" in allowed or "S" in allowed:
        any_bound = True
        allowed.add("Y")
    if "S" in allowed:
        allowed |= {"P", "Y"}
    if "U" in allowed:
        allowed |= {"F", "X"}
    return frozenset(allowed), any_bound


def _label(info: OperatorUse) -> tuple[str, str]:
    if not info.families:
        return "propositional", "propositional"
    candidates: list[tuple[str, str, tuple[str, ...]]] = [("LTL[P]", "LTL[P]", ("P",))]
    single = sorted(info.past_bounds)[0] if len(info.past_bounds) == 1 else 0
    if single:
        candidates.append((f"LTL[Y^{{≤{single}}}]", "LTL[Y^{≤k}]", (f"Y<={single}",)))
    candidates.append(("LTL[Y]", "LTL[Y]", ("Y",)))
    if single:
        candidates.append((f"LTL[P,Y^{{≤{single}}}]", "LTL[P,Y^{≤k}]", ("P", f"Y<={single}")))
    candidates += [
        ("LTL[P,Y]", "LTL[P,Y]", ("P", "Y")),
        ("LTL[S]", "LTL[S]", ("S",)),
        ("LTL[F]", "LTL[F]", ("F",)),
        ("LTL[U]", "LTL[U]", ("U",)),
        ("LTL[P,F]", "LTL[P,F]", ("P", "F")),
    ]
    for label, generic, ops in candidates:
        if info.uses_only(ops):
            return label, generic
    return "LTL[S,U]", "LTL[S,U]"
