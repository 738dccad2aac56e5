"""Finite automata: the `DFA` value, its operations, and compilation of formulas and regexes.

Everything that builds an automaton returns it in canonical form (minimal, complete, states
numbered breadth-first in symbol order), so equal languages give equal, equally hashed DFAs.
"""

from expressivity.automata.compile import compile_formula
from expressivity.automata.dfa import DFA
from expressivity.automata.nfa import NFA
from expressivity.automata.ops import (
    canonical,
    complement,
    difference,
    distinguishing_word,
    equivalent,
    intersection,
    is_empty,
    is_finite,
    minimize,
    shortest_accepted,
    shortest_rejected,
    symmetric_difference,
    union,
)
from expressivity.automata.regex import compile_regex

__all__ = [
    "DFA",
    "NFA",
    "canonical",
    "compile_formula",
    "compile_regex",
    "complement",
    "difference",
    "distinguishing_word",
    "equivalent",
    "intersection",
    "is_empty",
    "is_finite",
    "minimize",
    "shortest_accepted",
    "shortest_rejected",
    "symmetric_difference",
    "union",
]
