"""Every catalogue language compiles; formulas agree with the semantics, and with their regex."""

from __future__ import annotations

import numpy as np
import pytest

from expressivity.automata.compile import compile_formula
from expressivity.automata.regex import compile_regex
from expressivity.catalogue import load_catalogue
from tests.automata.reference import dfa_language, formula_language

LANGUAGES = [lang for lang in load_catalogue().values() if lang.is_regular]


@pytest.mark.parametrize("lang", LANGUAGES, ids=lambda lang: lang.name)
def test_catalogue_language(lang) -> None:  # type: ignore[no-untyped-def]
    dfas = []
    if lang.formula is not None:
        formula = lang.parsed_formula()
        dfa = compile_formula(formula, lang.alphabet)
        expected = formula_language(formula, lang.alphabet, 6)
        assert np.array_equal(dfa_language(dfa, 6), expected)
        dfas.append(dfa)
    if lang.regex is not None:
        dfas.append(compile_regex(lang.regex, lang.alphabet))
    assert all(d == dfas[0] for d in dfas)  # canonical: formula and regex give the same DFA
    assert lang.dfa() == dfas[0] if dfas else True
