"""Verdicts for k-local and hybrid-k attention: algebra first, periodic families, type automata.

LTL[Y^≤k] ⊆ LTL[Y] = definite and LTL[P,Y^≤k] ⊆ LTL[P,Y] = locally R-trivial [LC26], so a
failed algebraic test is an exact "no". An exact "yes" comes from the algebra (R-trivial ⇒
hybrid, since hybrid models have global heads) or from a depth-bounded type automaton.

A second exact "no", generalizing [LC26]'s pair (a b^(k−1))^r a / (a b^(k−1))^r: for any words
x and y with |y| ≤ k, all long prefixes of x·y^∞ have the same depth-d type (for P and Y^≤k)
at their EOS. Proof, by induction on d: the depth-d type of position n of x·y^∞ is eventually
periodic in n with period |y| (depth 0: the letter; the set of earlier depth-(d−1) types is
eventually constant; a window of k ≥ |y| consecutive positions meets every phase of y, so its
set of depth-(d−1) types is eventually constant too), hence the EOS types of all prefixes
longer than a bound growing linearly in d coincide. So if L separates x·y^K·y[:i] from
x·y^K·y[:j] for all large K (checked at multiples of the ω-exponent of y, where membership is
constant), no formula of LTL[P,Y^≤k] (nor LTL[Y^≤k]) defines L. Otherwise the answer is
"unknown", with the same-type pair found at the deepest depth explored.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from expressivity.algebra.monoid import omega_exponent, power
from expressivity.algebra.operators import Fragment
from expressivity.algebra.types import Definable, NotDefinable, definability
from expressivity.algebra.witnesses import access_words, word_row
from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA


@dataclass(frozen=True)
class PeriodicWitness:
    """L separates x·y^K·y[:i] from x·y^K·y[:j] (|y| ≤ k) for every multiple K of ``exponent``."""

    k: int
    prefix: Word
    period: Word
    cuts: tuple[int, int]
    exponent: int
    words: tuple[Word, Word]
    accepted: tuple[bool, bool]
    why: str = ""  # why long prefixes share their types, when not "period ≤ k"
    phase_only: bool = False  # only the prefixes cut at i and at j share their type

    def __bool__(self) -> bool:
        return False

    def describe(self, fmt: Any = None) -> str:
        f = fmt or (lambda w: "".join(w) if w else "ε")

        def spell(cut: int, power: str) -> str:
            parts = [f(self.prefix)] if self.prefix else []
            parts.append(
                f"({f(self.period)})^{power}"
                if len(self.period) > 1
                else f"{f(self.period)}^{power}"
            )
            if cut:
                parts.append(f(self.period[:cut]))
            return " ".join(parts)

        i, j = self.cuts
        ks = "K ≥ 1" if self.exponent == 1 else f"K divisible by {self.exponent}"
        why = self.why or f"period {len(self.period)} ≤ k = {self.k}"
        which = (f"the long prefixes of {spell(0, '∞')} cut at {i} and at {j} (mod "
                 f"{len(self.period)})" if self.phase_only
                 else f"all long prefixes of {spell(0, '∞')}")
        return (
            f"{which} have one type at each depth ({why}), "
            f"but L separates {spell(i, 'K')} from "
            f"{spell(j, 'K')} for every {ks}: {f(self.words[0])} "
            f"{'∈' if self.accepted[0] else '∉'} L, {f(self.words[1])} "
            f"{'∈' if self.accepted[1] else '∉'} L"
        )

    def pumped(self, dfa: DFA, at_least: int) -> tuple[Word, Word]:
        """x·y^K·y[:i] and x·y^K·y[:j] for the least valid K ≥ ``at_least`` (a multiple of
        the exponent): a longer pair the language separates and no model of the layout does
        (``dfa`` is unused: the family needs no exponent search)."""
        big = -(-max(1, at_least) // self.exponent) * self.exponent
        i, j = self.cuts
        stem = self.prefix + self.period * big
        return stem + self.period[:i], stem + self.period[:j]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "periodic-family",
            "k": self.k,
            "prefix": list(self.prefix),
            "period": list(self.period),
            "cuts": list(self.cuts),
            "omega": self.exponent,
            "pair": [list(self.words[0]), list(self.words[1])],
            "accepted": list(self.accepted),
        } | ({"why": self.why} if self.why else {}) | (
            {"phase_only": True} if self.phase_only else {})


def periodic_family(
    dfa: DFA,
    k: int,
    admissible: Callable[[int], bool] | None = None,
    why: str = "",
    alike: Callable[[int, int, int, int], bool] | None = None,
) -> PeriodicWitness | None:
    """The shortest y (|y| ≤ k, and ``admissible(|y|)`` when given), then x, whose family L
    separates; None if there is none. ``alike(p, |x|, i, j)``: for a period p that is not
    admissible, whether the cuts i and j still give long prefixes of one type (the phases the
    heads read from EOS coincide, `patterns.phase_alike`); such a pair is a witness too."""
    access = access_words(dfa)
    by_length = sorted(range(dfa.n_states), key=lambda q: (len(access[q]), access[q]))
    for length in range(1, k + 1):
        if admissible is not None and not admissible(length):
            if alike is not None:
                found = _alike_family(dfa, length, access, by_length, alike, k)
                if found is not None:
                    return found
            continue
        for y in itertools.product(dfa.alphabet.symbols, repeat=length):
            row = word_row(dfa, y)
            exponent = omega_exponent(row)
            e = power(row[None, :], exponent)[0]
            phases = np.stack([word_row(dfa, y[:j])[e] for j in range(length)], axis=1)
            acc = dfa.accepting[phases]  # (states, phases): membership of x·y^K·y[:j]
            for q in by_length:
                if acc[q].any() and not acc[q].all():
                    i = int(np.flatnonzero(acc[q])[0])
                    j = int(np.flatnonzero(~acc[q])[0])
                    x = access[q]
                    words = (x + y * exponent + y[:i], x + y * exponent + y[:j])
                    accepted = (dfa.accepts(words[0]), dfa.accepts(words[1]))
                    assert accepted == (True, False)
                    return PeriodicWitness(k, x, y, (i, j), exponent, words, accepted, why)
    return None


def _alike_family(
    dfa: DFA, length: int, access: Any, by_length: list[int],
    alike: Callable[[int, int, int, int], bool], k: int,
) -> PeriodicWitness | None:
    """`periodic_family` for one period whose cuts are told apart only by their phase: the
    first x, y and cuts i, j with ``alike`` that L separates."""
    for y in itertools.product(dfa.alphabet.symbols, repeat=length):
        row = word_row(dfa, y)
        exponent = omega_exponent(row)
        e = power(row[None, :], exponent)[0]
        phases = np.stack([word_row(dfa, y[:j])[e] for j in range(length)], axis=1)
        acc = dfa.accepting[phases]
        for q in by_length:
            x = access[q]
            for i, j in itertools.permutations(range(length), 2):
                if acc[q, i] and not acc[q, j] and alike(length, len(x) + exponent * length,
                                                          i, j):
                    words = (x + y * exponent + y[:i], x + y * exponent + y[:j])
                    accepted = (dfa.accepts(words[0]), dfa.accepts(words[1]))
                    assert accepted == (True, False)
                    why = "every bounded head reads the same phases from EOS at both cuts"
                    return PeriodicWitness(k, x, y, (i, j), exponent, words, accepted, why,
                                           phase_only=True)
    return None


@dataclass(frozen=True)
class LayoutVerdict:
    """Whether an attention layout recognizes L: status "yes", "no" or "unknown", and why."""

    layout: str
    logic: str
    status: str
    reason: str
    witness: Any = None  # the witness object behind a "no"/"unknown", if any
    depth: int | None = None  # the least depth of a defining formula, for a type-automaton "yes"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"logic": self.logic, "status": self.status, "reason": self.reason,
                               "depth": self.depth, "witness": None}
        if self.witness is not None and hasattr(self.witness, "to_dict"):
            out["witness"] = self.witness.to_dict()
        elif isinstance(self.witness, NotDefinable):
            out["witness"] = {
                "kind": "same-type-pair",
                "depth": self.witness.max_depth,
                "every_depth": self.witness.stable,
                "pair": [list(w) for w in self.witness.words],
                "accepted": list(self.witness.accepted),
            }
        return out


def types_verdict(
    dfa: DFA, layout: str, fragment: Fragment, max_depth: int, max_states: int
) -> LayoutVerdict:
    """Decide by a periodic family, then by type automata up to ``max_depth``."""
    family = periodic_family(dfa, fragment.window)
    if family is not None:
        return LayoutVerdict(layout, str(fragment), "no", family.describe(), family)
    found = definability(dfa, fragment, max_depth=max_depth, max_states=max_states)
    if isinstance(found, Definable):
        return LayoutVerdict(layout, str(fragment), "yes", found.describe(), depth=found.depth)
    assert isinstance(found, NotDefinable)
    bound = "state bound" if found.exhausted else "depth bound"
    (u, v), d = found.words, found.max_depth
    fmt = dfa.alphabet.format_word
    reason = (
        f"({bound} reached at depth {d}): no formula of {fragment} of depth ≤ {d} tells "
        f"{fmt(u)} from {fmt(v)}, only {fmt(u) if found.accepted[0] else fmt(v)} is in L; "
        "deeper formulas were not tried"
    )
    return LayoutVerdict(layout, str(fragment), "unknown", reason, found)
