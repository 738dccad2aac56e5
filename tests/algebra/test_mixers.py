"""SSM mixer verdicts: the 2-group decision against brute force, certificates, soundness."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from expressivity.algebra.classify import classify
from expressivity.algebra.locality import LayoutVerdict
from expressivity.algebra.mixers import KINDS, OddCycle, check_odd_cycle, mixer_verdict, two_groups
from expressivity.algebra.monoid import transition_semigroup
from expressivity.algebra.patterns import layout_fragment
from expressivity.algebra.varieties import DECISIONS
from expressivity.algebra.witnesses import IdentityWitness, check_witness
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import minimize
from expressivity.automata.regex import compile_regex
from expressivity.errors import ConfigError
from tests.algebra.helpers import AB, ABC, dfas, random_dfa


def _member(d: DFA) -> tuple[dict[str, bool], dict[str, object]]:
    sg = transition_semigroup(d)
    found = {cls: decide(sg) for cls, decide in DECISIONS.items()}
    found["two_groups"] = two_groups(sg)
    return {k: v is True for k, v in found.items()}, found


def _brute_two_groups(d: DFA) -> bool:
    """Every element of the transformation monoid (a naive closure of the letters' rows) has
    a cycle structure whose cycle lengths are all powers of 2."""
    letters = [tuple(int(x) for x in d.transitions[:, a]) for a in range(len(d.alphabet))]
    seen, todo = set(letters), list(letters)
    while todo:
        f = todo.pop()
        for g in letters:
            fg = tuple(g[f[q]] for q in range(d.n_states))
            if fg not in seen:
                seen.add(fg)
                todo.append(fg)
    for f in seen:
        for q in range(d.n_states):
            orbit = [q]
            while f[orbit[-1]] not in orbit:
                orbit.append(f[orbit[-1]])
            cycle = len(orbit) - orbit.index(f[orbit[-1]])
            if cycle & (cycle - 1):
                return False
    return True


@settings(max_examples=150)
@given(d=dfas(AB, max_states=5))
def test_two_groups_against_brute_force(d: DFA) -> None:
    verdict = two_groups(transition_semigroup(d))
    assert (verdict is True) == _brute_two_groups(d)
    if verdict is not True:
        check_odd_cycle(d, verdict)


@pytest.mark.parametrize(("regex", "alphabet", "expected"), [
    ("a* (b a* b a*)*", AB, True),  # PARITY: Z2
    ("((a|b)(a|b))*", AB, True),  # length even
    ("(a* b a* b a* b a* b)* a*", AB, True),  # count of b mod 4: Z4, a 2-group
    ("(a* b a* b a* b)* a*", AB, False),  # count of b mod 3
    ("(a|b)* a b (a|b)*", AB, True),  # star-free
    ("(a b c)*", ABC, True),  # star-free
])
def test_two_groups_on_known_languages(regex: str, alphabet: object, expected: bool) -> None:
    d = minimize(compile_regex(regex, alphabet))  # type: ignore[arg-type]
    verdict = two_groups(transition_semigroup(d))
    assert (verdict is True) == expected
    if not expected:
        assert isinstance(verdict, OddCycle) and verdict.prime == 3
        check_odd_cycle(d, verdict)
        assert "odd prime 3" in verdict.describe()


def test_certificate_check_rejects_a_forgery() -> None:
    d = minimize(compile_regex("(a* b a* b a* b)* a*", AB))
    real = two_groups(transition_semigroup(d))
    assert isinstance(real, OddCycle)
    forged = OddCycle(real.prefix, real.word, real.suffix, real.cycle * 2, 2)
    with pytest.raises(AssertionError):
        check_odd_cycle(d, forged)


def _dihedral_dfa(rng: np.random.Generator) -> DFA:
    """Letters act as random elements of D4 on 4 points: a group language of a 2-group."""
    r, s = np.array([1, 2, 3, 0]), np.array([0, 3, 2, 1])
    group = {tuple(range(4))}
    while True:
        new = {tuple(np.array(g)[m]) for g in group for m in (r, s)} | group
        if new == group:
            break
        group = new
    elements = sorted(group)
    table = np.array([elements[int(i)] for i in rng.integers(0, len(elements), 2)]).T
    return minimize(DFA(AB, table, rng.random(4) < 0.5, 0))


@pytest.mark.parametrize("seed", range(30))
def test_soundness_on_random_dfas_of_each_proved_class(seed: int) -> None:
    """A DFA in a kind's proved class gets "yes"; a "no" always carries a checked witness."""
    rng = np.random.default_rng(seed)
    for d in (random_dfa(rng, AB, 5), random_dfa(rng, ABC, 4), _dihedral_dfa(rng)):
        member, found = _member(d)
        for kinds in itertools.chain(([k] for k in KINDS), (["M", "SD"], ["MS", "SDC"])):
            v = mixer_verdict("x", frozenset(kinds), None, True, member, found)
            lowers = [KINDS[k].lower for k in kinds]
            if any(member[c] for c in lowers):
                assert v.status == "yes", (kinds, v)
            if v.status == "no":
                uppers = {KINDS[k].upper for k in kinds}
                assert None not in uppers
                bound = "two_groups" if "two_groups" in uppers else "aperiodic"
                assert not member[bound] and v.witness is found[bound]
                if isinstance(v.witness, OddCycle):
                    check_odd_cycle(d, v.witness)


def test_dihedral_languages_are_two_group_languages() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        d = _dihedral_dfa(rng)
        assert two_groups(transition_semigroup(d)) is True


def test_hybrid_verdicts() -> None:
    parity = minimize(compile_regex("a* (b a* b a*)*", AB))
    mod3 = minimize(compile_regex("(a* b a* b a* b)* a*", AB))
    dyck12 = minimize(compile_regex("(a (a b)* b)*", AB))
    glob_no = LayoutVerdict("global", "LTL[P]", "no", "not R-trivial")
    glob_yes = LayoutVerdict("global", "LTL[P]", "yes", "R-trivial: yes")
    m, f = _member(parity)
    assert mixer_verdict("4xM,4xG", frozenset({"M"}), glob_no, True, m, f).status == "no"
    assert mixer_verdict("4xMS,4xG", frozenset({"MS"}), glob_no, True, m, f).status == "yes"
    # a non-star-free attention atom leaves the upper bound unproved: unknown, never no
    assert mixer_verdict("4xM,4xB2", frozenset({"M"}), glob_no, False, m, f).status == "unknown"
    m, f = _member(mod3)
    v = mixer_verdict("4xMS,4xL1", frozenset({"MS"}), glob_no, True, m, f)
    assert v.status == "no" and isinstance(v.witness, OddCycle)
    assert mixer_verdict("DR", frozenset({"DR"}), None, True, m, f).status == "unknown"
    m, f = _member(dyck12)  # star-free, not locally R-trivial
    assert mixer_verdict("SD", frozenset({"SD"}), None, True, m, f).status == "unknown"
    assert mixer_verdict("M", frozenset({"M"}), None, True, m, f).status == "yes"
    assert mixer_verdict("SD,G", frozenset({"SD"}), glob_yes, True, m, f).status == "yes"


@pytest.mark.parametrize(("regex", "alphabet", "expected"), [
    ("a* (b a* b a*)*", AB, {"M": "no", "MS": "yes", "SD": "no", "SDC": "unknown", "DR": "yes",
                             "samba-1": "no", "jamba-2": "no", "4xM,4xB2": "unknown",
                             "4xMS,4xG": "yes"}),
    ("(a* b a* b a* b)* a*", AB, {"MS": "no", "mamba-signed": "no", "DR": "unknown",
                                  "2xMS,2xL1": "no"}),
    ("(a (a b)* b)*", AB, {"M": "yes", "SD": "unknown", "samba-1": "yes", "s4d": "unknown"}),
    ("(a|b)* a b (a|b)*", AB, {"SD": "yes", "SDC": "yes", "M": "yes"}),
])
def test_classify_decides_ssm_spellings(regex: str, alphabet: object,
                                        expected: dict[str, str]) -> None:
    d = minimize(compile_regex(regex, alphabet))  # type: ignore[arg-type]
    c = classify(d, layouts=list(expected), synthesize=False)
    got = {text: c.recognizer(text).status for text in expected}
    assert got == expected
    for text in expected:
        v = c.recognizer(text)
        if isinstance(v.witness, OddCycle):
            check_odd_cycle(d, v.witness)
        if v.status == "no" and isinstance(v.witness, IdentityWitness):
            check_witness(d, v.witness)


def test_operator_questions_refuse_ssm_layouts() -> None:
    with pytest.raises(ConfigError, match="SSM heads"):
        layout_fragment("samba-1")
