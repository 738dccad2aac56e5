"""Algebraic classification of regular languages: semigroups, varieties, types, synthesis."""

from expressivity.algebra.classification import CLASSES, Classification, predicted_recognizers
from expressivity.algebra.classify import classify
from expressivity.algebra.graphs import is_definite_by_pair_graph, is_partially_ordered
from expressivity.algebra.modular import (
    is_quasi_locally_r_trivial,
    is_quasi_r_trivial,
    stability_index,
    stable_semigroup,
)
from expressivity.algebra.monoid import TransitionSemigroup, transition_semigroup
from expressivity.algebra.operators import Fragment
from expressivity.algebra.synthesis import synthesize_past, synthesize_yesterday
from expressivity.algebra.types import Definable, NotDefinable, definability
from expressivity.algebra.varieties import (
    is_aperiodic,
    is_da,
    is_definite,
    is_generalized_definite,
    is_group,
    is_j_trivial,
    is_l_trivial,
    is_locally_r_trivial,
    is_locally_testable,
    is_r_trivial,
    is_reverse_definite,
)
from expressivity.algebra.witnesses import IdentityWitness, check_witness

__all__ = [
    "CLASSES",
    "Classification",
    "Definable",
    "Fragment",
    "IdentityWitness",
    "NotDefinable",
    "TransitionSemigroup",
    "check_witness",
    "classify",
    "definability",
    "is_aperiodic",
    "is_da",
    "is_definite",
    "is_definite_by_pair_graph",
    "is_generalized_definite",
    "is_group",
    "is_j_trivial",
    "is_l_trivial",
    "is_locally_r_trivial",
    "is_locally_testable",
    "is_partially_ordered",
    "is_quasi_locally_r_trivial",
    "is_quasi_r_trivial",
    "is_r_trivial",
    "is_reverse_definite",
    "predicted_recognizers",
    "stability_index",
    "stable_semigroup",
    "synthesize_past",
    "synthesize_yesterday",
    "transition_semigroup",
]
