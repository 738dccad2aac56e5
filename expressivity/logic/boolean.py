"""The Boolean layer of a formula evaluated over any valuation of the nodes below it.

One evaluator for every place that reads a formula's connectives (`algebra.boolean`'s
simplifier on truth assignments, the construction's token values and truth tables): the
caller's ``leaf`` gives the value of every node that is not a connective (an atom, a temporal
subformula, or any node the caller chooses to stop at) and the connectives are combined with
numpy's logical functions, so values may be Python bools or boolean arrays alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from expressivity.logic.syntax import And, Bottom, Formula, Iff, Implies, Not, Or, Top

__all__ = ["boolean_value"]


def boolean_value(
    f: Formula, leaf: Callable[[Formula], Any], *, stop: Callable[[Formula], bool] | None = None
) -> Any:
    """The value of ``f``'s connectives (¬ ∧ ∨ → ↔, ⊤ and ⊥) over ``leaf``'s node values.

    ``leaf(g)`` is called for every other node, and for any node where ``stop(g)`` holds
    (before looking at its connective). Values are bools or boolean arrays (broadcast).
    """
    if stop is not None and stop(f):
        return leaf(f)
    match f:
        case Top():
            return np.True_
        case Bottom():
            return np.False_
        case Not(a):
            return np.logical_not(boolean_value(a, leaf, stop=stop))
        case And(a, b):
            return np.logical_and(boolean_value(a, leaf, stop=stop),
                                  boolean_value(b, leaf, stop=stop))
        case Or(a, b):
            return np.logical_or(boolean_value(a, leaf, stop=stop),
                                 boolean_value(b, leaf, stop=stop))
        case Implies(a, b):
            return np.logical_or(np.logical_not(boolean_value(a, leaf, stop=stop)),
                                 boolean_value(b, leaf, stop=stop))
        case Iff(a, b):
            return np.equal(boolean_value(a, leaf, stop=stop), boolean_value(b, leaf, stop=stop))
    return leaf(f)
