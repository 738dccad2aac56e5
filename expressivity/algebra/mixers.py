"""Verdicts for state-space mixers and SSM + attention hybrids (docs/theory.md §14).

The classes, as fixed-precision recognizers read at EOS (proofs in docs/theory.md §14):

=========  ==========================================  =======================================
kind       yes (proved lower bound)                    no (proved upper bound)
=========  ==========================================  =======================================
``M``      star-free (aperiodic)                       star-free: every channel step is
                                                       order-preserving, so the monoid is
                                                       aperiodic
``MS``     every subgroup a 2-group (`two_groups`)     the same: steps are order-preserving
                                                       or -reversing, groups divide Z2 wreaths
``SD``     locally R-trivial (LTL[P,Y])                star-free (time-invariant gates ≥ 0)
``SDC``    locally R-trivial                           none proved under floating point
``DR``     every subgroup a 2-group                    none (all regular, Grazzi et al., in
                                                       exact arithmetic: conjecture here)
=========  ==========================================  =======================================

A hybrid (SSM heads or layers beside attention heads) gets "yes" when one of its parts alone
is proved to suffice, and "no" when the union of its parts lies in a proved upper bound: the
fixed-precision attention atoms G, Lk and Dk.d read LTL[P, Y^offsets] ⊆ star-free, and any
cascade of star-free letter-to-letter maps with an SSM's monoid stays in that SSM's variety
(aperiodic, or subgroups 2-groups), both closed under wreath products.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from expressivity.algebra.locality import LayoutVerdict
from expressivity.algebra.monoid import TransitionSemigroup, index_and_period
from expressivity.algebra.witnesses import access_words, distinguishing_word
from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA

__all__ = ["KINDS", "STAR_FREE_ATOMS", "MixerClass", "OddCycle", "check_odd_cycle",
           "mixer_verdict", "two_groups"]


@dataclass(frozen=True)
class MixerClass:
    """What one mixer kind provably recognizes: decision keys of its lower and upper bound."""

    name: str  # e.g. "selective SSM, gates in (0, 1)"
    lower: str  # "aperiodic", "two_groups" or "locally_r_trivial"
    upper: str | None  # "aperiodic", "two_groups" or None (no proved bound below regular)


#: Every mixer kind and its proved bounds (docs/theory.md §14).
KINDS: dict[str, MixerClass] = {
    "M": MixerClass("selective SSM, gates in (0, 1) (Mamba)", "aperiodic", "aperiodic"),
    "MS": MixerClass("selective SSM, gates in (-1, 1) (Grazzi et al.)", "two_groups",
                     "two_groups"),
    "SD": MixerClass("time-invariant diagonal SSM, real (S4D)", "locally_r_trivial",
                     "aperiodic"),
    "SDC": MixerClass("time-invariant diagonal SSM, complex (S4D)", "locally_r_trivial", None),
    "DR": MixerClass("gated delta rule, beta in [0, 2] (DeltaNet, Householder)", "two_groups",
                     None),
}
#: Attention atoms whose fixed-precision heads read a star-free operator (G: P, Lk: Y^≤k,
#: Dk.d: fixed offsets), the ones Theorem 14.3 composes with SSM layers.
STAR_FREE_ATOMS = frozenset({"G", "L", "D"})
_CLASS_NAMES = {"aperiodic": "star-free (aperiodic)",
                "two_groups": "every subgroup of the syntactic monoid a 2-group",
                "locally_r_trivial": "LTL[P,Y] = locally R-trivial"}
_RANK = {"aperiodic": 0, "two_groups": 1}  # aperiodic ⊆ two_groups


@dataclass(frozen=True)
class OddCycle:
    """x acts on the state after u with a cycle of length c, c divisible by the odd prime q,
    and v tells u from u·x^(c/q): so n ↦ [u xⁿ v ∈ L] has an eventual period that is not a
    power of 2, and some subgroup of the syntactic monoid has order divisible by q."""

    prefix: Word
    word: Word
    suffix: Word
    cycle: int
    prime: int

    def __bool__(self) -> bool:
        return False

    def describe(self, fmt: Any = None) -> str:
        f = fmt or (lambda w: "".join(w) if w else "ε")
        step = self.cycle // self.prime
        return (f"u·x^{self.cycle} ≡ u with u = {f(self.prefix)}, x = {f(self.word)}, but "
                f"v = {f(self.suffix)} tells u from u·x^{step}: a cycle of length "
                f"{self.cycle}, divisible by the odd prime {self.prime}")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "odd-cycle", "prefix": list(self.prefix), "word": list(self.word),
                "suffix": list(self.suffix), "cycle": self.cycle, "prime": self.prime}


def _odd_prime(n: int) -> int | None:
    while n % 2 == 0:
        n //= 2
    if n == 1:
        return None
    return next(p for p in range(3, n + 1, 2) if n % p == 0)


def two_groups(sg: TransitionSemigroup) -> Literal[True] | OddCycle:
    """True iff every subgroup of M is a 2-group (every element's period a power of 2),
    else an `OddCycle` certificate. ``sg`` must be of a minimal complete DFA."""
    dfa = sg.dfa
    words = access_words(dfa)
    for i in range(sg.size):
        row = sg.elements[i]
        _, period = index_and_period(row)
        if _odd_prime(period) is None:
            continue
        for state in range(dfa.n_states):  # a cycle of x whose length has an odd prime
            orbit = [state]
            while (nxt := int(row[orbit[-1]])) not in orbit:
                orbit.append(nxt)
            start = orbit.index(nxt)
            cycle = len(orbit) - start
            prime = _odd_prime(cycle)
            if prime is None:
                continue
            r0 = orbit[start]
            r1 = orbit[start + cycle // prime] if start + cycle // prime < len(orbit) else None
            assert r1 is not None
            v = distinguishing_word(dfa, r0, r1)
            assert v is not None  # distinct states of a minimal DFA
            return OddCycle(words[r0], sg.word(i), v, cycle, prime)
        raise AssertionError("an element's period is the lcm of its cycle lengths")
    return True


def check_odd_cycle(dfa: DFA, w: OddCycle) -> None:
    """Re-check a certificate on the minimal complete DFA of the language (AssertionError if
    it fails): u·x^c and u reach one state, and u, u·x^(c/q) differ on v."""
    assert w.prime > 2 and w.cycle % w.prime == 0
    assert all(w.prime % d for d in range(2, int(w.prime ** 0.5) + 1)), "q is prime"
    u, x, v = w.prefix, w.word, w.suffix
    assert x, "the cycling word is non-empty"
    assert dfa.run(u + x * w.cycle) == dfa.run(u)
    assert dfa.accepts(u + v) != dfa.accepts(u + x * (w.cycle // w.prime) + v)


def mixer_verdict(
    layout: str,
    kinds: frozenset[str],
    attention: LayoutVerdict | None,
    attention_star_free: bool,
    member: Mapping[str, bool],
    witnesses: Mapping[str, Any],
) -> LayoutVerdict:
    """The verdict of a layout with SSM heads of ``kinds`` (and attention heads whose own
    verdict is ``attention``, None without any; ``attention_star_free`` when every attention
    atom is G, Lk or Dk.d). ``member``/``witnesses``: decision key → bool / witness, with
    "two_groups" beside the `varieties` decisions."""
    logic = "+".join(sorted(kinds)) + ("+attention" if attention is not None else "")
    for kind in sorted(kinds, key=lambda k: list(KINDS).index(k)):
        c = KINDS[kind]
        if member[c.lower]:
            return LayoutVerdict(layout, logic, "yes",
                                 f"its {kind} heads suffice: {c.name} ⊇ {_CLASS_NAMES[c.lower]} "
                                 "(docs/theory.md §14, with enough layers): yes")
    if attention is not None and attention.status == "yes":
        return LayoutVerdict(layout, logic, "yes", f"its attention heads suffice: "
                             f"{attention.reason}", attention.witness, attention.depth)
    uppers = [KINDS[k].upper for k in kinds]
    if all(u is not None for u in uppers) and (attention is None or attention_star_free):
        bound = max((u for u in uppers if u is not None), key=_RANK.__getitem__)
        if not member[bound]:
            return LayoutVerdict(layout, logic, "no",
                                 f"{logic} ⊆ {_CLASS_NAMES[bound]} (docs/theory.md §14): no",
                                 witnesses[bound])
        why = f"inside {_CLASS_NAMES[bound]} (the proved upper bound) but outside every proved " \
              "lower bound"
    else:
        why = "no upper bound below the regular languages is proved for " + ", ".join(
            sorted(k for k in kinds if KINDS[k].upper is None) or ["its attention atoms"])
    lowers = sorted({_CLASS_NAMES[KINDS[k].lower] for k in kinds})
    return LayoutVerdict(layout, logic, "unknown",
                         f"{why}; not in {' nor '.join(lowers)}: undecided")
