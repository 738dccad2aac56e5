"""The LTLf dialect against ltlf2dfa + MONA on hundreds of random formulas (where installed).

Both are test-only peers (``pip install ltlf2dfa``; Debian ``apt-get install mona``): the
test skips cleanly without them. The suite, the translation of our AST into ltlf2dfa's and the
reading of MONA's automaton are those of ``benchmarks/compile.py``, which prints the same
comparison with timings.
"""

from __future__ import annotations

import shutil

import pytest

from benchmarks.compile import Mona, ltlf_disagreement, ltlf_suite, to_ltlf2dfa
from expressivity.automata.compile import compile_formula
from expressivity.logic.ltlf import language_formula

pytest.importorskip("ltlf2dfa", reason="ltlf2dfa is not installed (pip install ltlf2dfa)")
if shutil.which("mona") is None:
    pytest.skip("the MONA binary is not on PATH (apt-get install mona)", allow_module_level=True)

COUNT = 300


@pytest.mark.slow
def test_ltlf_agrees_with_ltlf2dfa_and_mona(tmp_path) -> None:  # type: ignore[no-untyped-def]
    mona = Mona(str(tmp_path), timeout=30.0)
    checked = 0
    for formula, sigma in ltlf_suite(COUNT, seed=0):
        ours = compile_formula(language_formula(formula, logic="ltlf"), sigma)
        out = mona.compile(to_ltlf2dfa(formula))
        assert out is not None, f"MONA timed out on {formula}"
        assert ltlf_disagreement(ours, out, sigma, max_len=6) is None, formula
        checked += 1
    assert checked == COUNT
