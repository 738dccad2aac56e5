"""Circuits: the builder's folding identities hold, and they shrink what is explored."""

from __future__ import annotations

import numpy as np
import pytest

from expressivity.automata.circuit import build_circuit
from expressivity.automata.compile import compile_formula, compile_with
from expressivity.logic.parser import parse
from tests.automata.conftest import ABC
from tests.automata.reference import dfa_language, formula_language

IDENTITIES = [  # (formula, what the builder folds it into), docs/theory.md §2 strict semantics
    ("true S a", "P a"),
    ("true U a", "F a"),
    ("false S a", "Y a"),
    ("false U a", "X a"),
    ("a S false", "false"),
    ("Y Y a", "Y^2 a"),
    ("Y<=1 a", "Y a"),
    ("!!P a", "P a"),
    ("H true & P a", "P a"),
    ("a & !a | P b", "P b"),
]


@pytest.mark.parametrize(("text", "folded"), IDENTITIES)
def test_folding_identities(text: str, folded: str) -> None:
    assert build_circuit(parse(text), ABC).nodes == build_circuit(parse(folded), ABC).nodes


@pytest.mark.parametrize(
    "text",
    [
        "P(b & (true S a))",
        "H(c | true S (a & Y b))",
        "(true S a) S (true S b)",
        "P(true U (a & X b))",
        "H(true U c) | P(a & (true U b))",
    ],
)
def test_folded_formulas_stay_exact(text: str) -> None:
    f = parse(text)
    for direction in ("forward", "backward"):
        dfa = compile_with(f, ABC, direction=direction)
        assert np.array_equal(dfa_language(dfa, 6), formula_language(f, ABC, 6))
    assert compile_with(f, ABC, direction="forward") == compile_formula(f, ABC)


def test_true_since_is_a_gate_that_saturates() -> None:
    # ⊤ S ψ folded into P ψ: once P ψ holds, ψ's registers are forgotten, so the exploration
    # of P(Y^3 a) ∧ ... does not carry the last three letters for ever
    f = parse("true S Y^3 a")
    assert "since" not in {kind for kind, _, _ in build_circuit(f, ABC).nodes}
    assert compile_formula(f, ABC) == compile_formula(parse("P Y^3 a"), ABC)
