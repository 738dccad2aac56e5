"""`classify --layouts` on every mixer and hybrid spelling: never "no" inside a proved class.

Random formulas and DFAs of each proved class (star-free: pure-past formulas; locally
R-trivial: LTL[P,Y] formulas; 2-groups: products of dihedral groups with star-free languages)
must get "yes" where theory §14 proves it and never "no"; on arbitrary random DFAs every "no"
must carry a certificate that re-checks on the DFA.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from expressivity.algebra.classify import classify
from expressivity.algebra.mixers import OddCycle, check_odd_cycle
from expressivity.algebra.witnesses import IdentityWitness, check_witness
from expressivity.automata.compile import compile_formula
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import minimize
from expressivity.logic.parser import parse
from expressivity.logic.syntax import Formula
from tests.algebra.helpers import AB, ABC, random_dfa
from tests.algebra.test_mixers import _dihedral_dfa
from tests.logic.strategies import formulas

#: Every SSM spelling of the experiment and the guide, with the class it is proved to contain.
STAR_FREE_YES = ("M", "mamba", "MS", "mamba-signed", "DR", "samba-1", "jamba-2", "2xM,2xL1",
                 "M;G", "2xMS,2xG")
LR_YES = ("SD", "s4d", "SDC", "SD,G", "2xSD,2xL1")
TWO_GROUP_YES = ("MS", "mamba-signed", "DR", "deltanet", "2xMS,2xL1", "MS;G")
ALL = tuple(dict.fromkeys(STAR_FREE_YES + LR_YES + TWO_GROUP_YES))
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _verdicts(d: DFA, layouts: tuple[str, ...]) -> dict[str, object]:
    c = classify(minimize(d), layouts=list(layouts), synthesize=False)
    return {text: c.recognizer(text) for text in layouts}


def _recheck(d: DFA, verdicts: dict[str, object]) -> None:
    for text, v in verdicts.items():
        if getattr(v, "status", None) != "no":
            continue
        w = v.witness  # type: ignore[attr-defined]
        assert isinstance(w, OddCycle | IdentityWitness), (text, w)
        if isinstance(w, OddCycle):
            check_odd_cycle(minimize(d), w)
        else:
            check_witness(minimize(d), w)


@SETTINGS
@given(phi=formulas(("a", "b", "c"), ("P", "H", "Y", "S"), max_depth=2, max_height=4))
def test_pure_past_formulas_are_yes_for_every_selective_spelling(phi: Formula) -> None:
    """Pure-past LTL = star-free: proved yes for M, MS, DR and their hybrids."""
    d = compile_formula(phi, ABC)
    verdicts = _verdicts(d, STAR_FREE_YES)
    assert all(v.status == "yes" for v in verdicts.values()), (phi, verdicts)  # type: ignore[attr-defined]


@SETTINGS
@given(phi=formulas(("a", "b", "c"), ("P", "H", "Y"), max_depth=2, max_height=4))
def test_ltl_p_y_formulas_are_yes_for_the_time_invariant_spellings(phi: Formula) -> None:
    d = compile_formula(phi, ABC)
    verdicts = _verdicts(d, LR_YES)
    assert all(v.status == "yes" for v in verdicts.values()), (phi, verdicts)  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(12))
def test_two_group_languages_are_yes_for_the_sign_flipping_spellings(seed: int) -> None:
    """A dihedral-group language, alone and intersected with a star-free one."""
    rng = np.random.default_rng(seed)
    group = _dihedral_dfa(rng)
    star_free = compile_formula(parse("P(b & Y a)", AB), AB)
    for d in (group, minimize(group & star_free), minimize(group | ~star_free)):
        verdicts = _verdicts(d, TWO_GROUP_YES)
        assert all(v.status == "yes" for v in verdicts.values()), verdicts  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(15))
def test_every_no_on_random_dfas_carries_a_certificate_that_rechecks(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    for d in (random_dfa(rng, AB, 5), random_dfa(rng, ABC, 4)):
        _recheck(d, _verdicts(d, ALL))
