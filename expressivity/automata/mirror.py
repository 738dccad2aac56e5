"""The mirror image of a formula: read the word right to left, so future operators need no guess.

The forward construction (`automata.circuit_to_automaton`) carries past operators in deterministic
registers but must guess every future operator. Reading ``v = # · reverse(w)`` instead, where
``#`` is a fresh letter standing for the EOS position of w, swaps the roles: position n of w is
position N+2−n of v, a past operator of w looks to the right in v (it becomes a future
operator, guessed) and a future operator of w looks to the left (it becomes a past operator,
deterministic). The engine's own EOS step after v has no counterpart in w, so mirrored
operators never look at it ("real" below). Translations, with ψ' the mirror of ψ:

==================  =====================================  ====================
w                   v                                      why
==================  =====================================  ====================
a, eos              a, #                                   same position
Y^k ψ, Y^{≤k} ψ     X^k(ψ' ∧ real), ⋁_{d≤k} X^d(ψ' ∧ real)  n−k ↦ j+k
P ψ, H ψ            F(ψ' ∧ real), G(ψ' ∨ ¬real)             m < n ↦ j' > j
ψ1 S ψ2             ψ1' U (ψ2' ∧ real)
X ψ, WX ψ           Y ψ', ¬Y¬ψ'                             n+1 ↦ j−1
F ψ, G ψ, ψ1 U ψ2   P ψ', H ψ', ψ1' S ψ2'
==================  =====================================  ====================

and the language is { w : v ⊨ P(# ∧ ¬P⊤ ∧ φ') }: φ' holds at position 1 of v, which carries #.

MOD predicates have no mirror image here: position n of w is N+2−j of v, whose residue depends
on the length N, unknown until the end of v. `mirrored_circuit` rejects them; formulas with
MOD are compiled forwards.
"""

from __future__ import annotations

from expressivity.alphabet import Alphabet
from expressivity.automata.circuit import (
    Circuit,
    CircuitBuilder,
    compact,
    formula_nodes,
    plan,
)
from expressivity.automata.kinds import (
    AND,
    BOUNDED,
    EV,
    GLOB,
    HIST,
    IFF,
    LETTERS,
    MOD,
    NEXT,
    NOT,
    ONCE,
    OR,
    PREV,
    SINCE,
    TRUE,
    UNTIL,
    WNEXT,
)
from expressivity.errors import UnsupportedFragmentError
from expressivity.logic.syntax import Formula

__all__ = ["mirrored_circuit"]


def mirrored_circuit(formula: Formula, alphabet: Alphabet) -> tuple[Circuit, Alphabet]:
    """The circuit of the mirrored formula over Σ ∪ {#}; # is the last symbol of the result."""
    fwd, root = formula_nodes(formula, alphabet)
    marker = _fresh(alphabet)
    sigma = Alphabet((*alphabet.symbols, marker))
    b = CircuitBuilder(sigma)
    real = b.letters(b.full ^ b.eos)  # a letter of Σ or #: not the engine's EOS step
    image: list[int] = []
    for kind, x, y in fwd.nodes:
        img = image.__getitem__
        if kind == LETTERS:  # bit |Σ| was w's EOS and is now # (same bit); EOS steps are new
            image.append(b.letters(x))
        elif kind in (NOT, AND, OR, IFF):
            image.append(b.mk(kind, img(x), img(y) if y >= 0 else -1))
        elif kind == PREV:
            image.append(_nexts(b, b.mk(AND, img(x), real), y))
        elif kind == BOUNDED:
            here = b.mk(AND, img(x), real)
            terms = [_nexts(b, here, d) for d in range(1, y + 1)]
            out = terms[0]
            for term in terms[1:]:
                out = b.mk(OR, out, term)
            image.append(out)
        elif kind == ONCE:
            image.append(b.mk(EV, b.mk(AND, img(x), real)))
        elif kind == HIST:
            image.append(b.mk(GLOB, b.mk(OR, img(x), b.mk(NOT, real))))
        elif kind == SINCE:
            image.append(b.mk(UNTIL, img(x), b.mk(AND, img(y), real)))
        elif kind == MOD:
            raise UnsupportedFragmentError(
                "the backward construction cannot read MOD predicates (mod(m,r)): their residue "
                "from the right end depends on the length; use direction='forward' or 'auto'"
            )
        elif kind == NEXT:
            image.append(b.mk(PREV, img(x), 1))
        elif kind == WNEXT:
            image.append(b.mk(NOT, b.mk(PREV, b.mk(NOT, img(x)), 1)))
        else:  # ev, glob, until
            twin = {EV: ONCE, GLOB: HIST, UNTIL: SINCE}[kind]
            image.append(b.mk(twin, img(x), img(y) if kind == UNTIL else -1))
    first = b.mk(NOT, b.mk(ONCE, b.mk(TRUE)))
    at_first = b.mk(AND, b.letters(b.eos >> 1), b.mk(AND, first, image[root]))
    b, (top,) = compact(b, [b.mk(ONCE, at_first)])
    return plan(b, top), sigma


def _nexts(b: CircuitBuilder, node: int, k: int) -> int:
    for _ in range(k):
        node = b.mk(NEXT, node)
    return node


def _fresh(alphabet: Alphabet) -> str:
    name = "end"
    while name in alphabet:
        name += "_"
    return name
