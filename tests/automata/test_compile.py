"""Formula → DFA: exact against the semantics, canonical, and bounded (docs/theory.md §2)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.automata import circuit_to_automaton as explore_module
from expressivity.automata import ops
from expressivity.automata.compile import DEFAULT_MAX_STATES, compile_formula, compile_with
from expressivity.automata.ops import distinguishing_word, equivalent
from expressivity.automata.regex import compile_regex
from expressivity.errors import AlphabetError, StateExplosionError
from expressivity.logic import syntax as s
from expressivity.logic import temporal as tl
from expressivity.logic.parser import parse
from expressivity.logic.semantics import accepts
from tests.automata.conftest import AB, ABC
from tests.automata.reference import all_words, dfa_language, formula_language
from tests.logic.strategies import FUTURE_OPERATORS, PAST_OPERATORS, TEMPORAL_OPERATORS, formulas

# ----------------------------------------------------------- hand-checked (docs/theory.md §2)

WORKED = [  # (formula, alphabet, equivalent regex, states of the minimal complete DFA)
    ("P a", "abc", ".* a .*", 2),
    ("P(a & !P true)", "abc", "a .*", 3),
    ("P(a & start)", "abc", "a .*", 3),
    ("Y a", "abc", ".* a", 2),
    ("P(b & Y a)", "abc", ".* a b .*", 3),
    ("Y b & Y Y a", "abc", ".* a b", 3),
    ("Y b & Y^2 a", "abc", ".* a b", 3),
    ("!P true | (Y b & P(a & !P true) & !P(a & Y a) & !P(b & Y b))", "ab", "(a b)*", 3),
    ("P(b & Y a)", "ab", ".* a .* b .*", 3),  # the alphabet pitfall: over {a,b} it is Σ*aΣ*bΣ*
    ("P(b & P a)", "ab", ".* a b .*", 3),
    ("H a", "abc", "a*", 2),
    ("a S b", "abc", ".* b a*", 2),
    ("Y<=2 a", "abc", ".* a (Σ)? | .* a Σ", 3),
    ("start", "abc", "ε", 2),
    ("eos", "abc", ".*", 1),
    ("a", "abc", "∅", 1),
    ("P(a & F b)", "abc", ".* a .* b .*", 3),
    ("P(a & X b)", "abc", ".* a b .*", 3),
    ("F a | X a | (a U b)", "abc", "∅", 1),  # strict futures are false at the EOS position
    ("G a & WX a", "abc", ".*", 1),
    ("P(a & !P b0 & !F(a | b1))", "a b0 b1 c", "[^b0]* a [^a b1]*", 4),
]


@pytest.mark.parametrize(("text", "sigma", "regex", "states"), WORKED)
def test_worked_examples(text: str, sigma: str, regex: str, states: int) -> None:
    alphabet = Alphabet.parse(sigma)
    dfa = compile_formula(parse(text, alphabet), alphabet)
    assert equivalent(dfa, compile_regex(regex, alphabet))
    assert dfa.n_states == states
    assert dfa == compile_regex(regex, alphabet)  # canonical: equal languages, equal DFAs


def test_exact_table_of_lt2() -> None:
    dfa = compile_formula(parse("P(b & Y a)"), ABC)
    assert dfa.transitions.tolist() == [[1, 0, 0], [1, 2, 0], [2, 2, 2]]
    assert dfa.accepting.tolist() == [False, False, True]
    assert dfa.initial == 0


def test_pitfall_alphabet_matters() -> None:
    lt2, pt2 = parse("P(b & Y a)"), parse("P(b & P a)")
    assert compile_formula(lt2, AB) == compile_formula(pt2, AB)
    assert distinguishing_word(compile_formula(lt2, ABC), compile_formula(pt2, ABC)) == (
        "a", "c", "b")


# ------------------------------------------------------------------ properties


_PAST = formulas(ABC.symbols, PAST_OPERATORS, max_depth=3, max_height=4)
_FUTURE = formulas(ABC.symbols, FUTURE_OPERATORS, max_depth=3, max_height=4)
_MIXED = formulas(ABC.symbols, TEMPORAL_OPERATORS, max_depth=3, max_height=4)


def _under_past(inner: st.SearchStrategy[s.Formula]) -> st.SearchStrategy[s.Formula]:
    """``P ψ``, ``H ψ``, ``ψ S χ``: at the EOS position a strict future operator is a constant,
    so future subformulas only shape the language when evaluated at earlier positions."""
    return st.one_of(
        st.builds(tl.Past, inner), st.builds(tl.Historically, inner),
        st.builds(tl.Since, inner, inner),
    )


#: Past, future and mixed formulas over {a, b, c}.
FAMILIES = st.one_of(_PAST, _FUTURE, _under_past(_FUTURE), _MIXED, _under_past(_MIXED))


@settings(max_examples=500)
@given(FAMILIES)
def test_dfa_agrees_with_the_semantics_on_all_words_up_to_6(formula: s.Formula) -> None:
    dfa = compile_formula(formula, ABC)
    assert np.array_equal(dfa_language(dfa, 6), formula_language(formula, ABC, 6))


def _construction_is_exact(direction: str, formula: s.Formula) -> None:
    dfa = compile_with(formula, ABC, direction=direction)
    assert np.array_equal(dfa_language(dfa, 6), formula_language(formula, ABC, 6))
    assert dfa == compile_formula(formula, ABC)


@pytest.mark.parametrize(
    "direction", ["forward", pytest.param("backward", marks=pytest.mark.slow)]
)
@settings(max_examples=150)
@given(formula=FAMILIES)
def test_both_constructions_are_exact(direction: str, formula: s.Formula) -> None:
    _construction_is_exact(direction, formula)


@settings(max_examples=25)
@given(formula=FAMILIES)
def test_the_backward_construction_is_exact_on_some_formulas(formula: s.Formula) -> None:
    """Fast representative of the slow ``backward`` case above."""
    _construction_is_exact("backward", formula)


class ExpandedStates:
    """Counts the register states the exploration expands: a measure of work that, unlike a
    clock, does not depend on the machine (wall times are in benchmarks/compile.py)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.states = 0
        evaluate = explore_module.evaluate

        def counted(prog, old, lane, ones):  # type: ignore[no-untyped-def]
            self.states += lane.bit_count()  # one bit per state of the packed layer
            return evaluate(prog, old, lane, ones)

        monkeypatch.setattr(explore_module, "evaluate", counted)


def test_future_heavy_formulas_are_read_backwards(monkeypatch: pytest.MonkeyPatch) -> None:
    # P(a ∧ X(b ∧ F(c ∧ X(a ∧ …)))): 30 nested future operators, 2^30 guesses going forward
    inner: s.Formula = s.TRUE
    for i in range(29, -1, -1):
        inner = (tl.Eventually if i % 2 == 0 else tl.Next)(s.And(s.Symbol("abc"[i % 3]), inner))
    with pytest.raises(StateExplosionError):  # forward, the guesses alone exceed the bound
        compile_with(tl.Past(inner), ABC, direction="forward")
    work = ExpandedStates(monkeypatch)
    dfa = compile_formula(tl.Past(inner), ABC)
    assert work.states < 1_000  # backward: one guess (the mirrored P), a small exploration
    assert dfa.n_states == 32
    # P(F(...)) needs one position before the pattern a b c a b c … (30 letters)
    assert ops.shortest_accepted(dfa) == ("a", *"abc" * 10)


_DEEP = formulas(ABC.symbols, TEMPORAL_OPERATORS, max_depth=4, max_height=6)


@settings(max_examples=100)
@given(st.one_of(_DEEP, _under_past(_DEEP)))
def test_deeper_mixed_formulas(formula: s.Formula) -> None:
    try:  # a few random formulas need many guesses in both directions: skip those
        dfa = compile_formula(formula, ABC, max_states=5_000)
    except StateExplosionError:
        assume(False)
    assert np.array_equal(dfa_language(dfa, 6), formula_language(formula, ABC, 6))


SMALL = st.one_of(
    *(
        st.tuples(st.just(sigma), formulas(sigma.symbols, TEMPORAL_OPERATORS, max_height=4))
        for sigma in (Alphabet(("a",)), AB)
    )
)


@settings(max_examples=100)
@given(SMALL)
def test_small_alphabets(case: tuple[Alphabet, s.Formula]) -> None:
    sigma, formula = case
    dfa = compile_formula(formula, sigma)
    assert np.array_equal(dfa_language(dfa, 7), formula_language(formula, sigma, 7))


@settings(max_examples=40)
@given(FAMILIES)
def test_dfa_agrees_with_naive_semantics(formula: s.Formula) -> None:
    dfa = compile_formula(formula, ABC)
    words = all_words(ABC, 6)
    assert dfa_language(dfa, 6).tolist() == [accepts(formula, w) for w in words]


@pytest.mark.slow
@settings(max_examples=500)
@given(FAMILIES)
def test_dfa_agrees_with_naive_semantics_500(formula: s.Formula) -> None:
    dfa = compile_formula(formula, ABC)
    words = all_words(ABC, 6)
    assert dfa_language(dfa, 6).tolist() == [accepts(formula, w) for w in words]


def rewrite(f: s.Formula) -> s.Formula:
    """An equivalent formula built from other operators (so its circuit differs)."""
    r = rewrite
    match f:
        case tl.Past(a):
            return tl.Since(s.TRUE, r(a))
        case tl.Historically(a):
            return s.Not(tl.Since(s.TRUE, s.Not(r(a))))
        case tl.Yesterday(a, k):
            return tl.Yesterday(r(a)) if k == 1 else tl.Yesterday(tl.Yesterday(r(a), k - 1))
        case tl.BoundedPast(a, k):
            return s.disj(*(tl.Yesterday(r(a), j) for j in range(1, k + 1)))
        case tl.Eventually(a):
            return tl.Until(s.TRUE, r(a))
        case tl.Globally(a):
            return s.Not(tl.Until(s.TRUE, s.Not(r(a))))
        case tl.Next(a):
            return s.Not(tl.WeakNext(s.Not(r(a))))
        case s.And(a, b):
            return s.Not(s.Or(s.Not(r(a)), s.Not(r(b))))
        case s.Implies(a, b):
            return s.Or(s.Not(r(a)), r(b))
        case s.Iff(a, b):
            return s.And(s.Implies(r(a), r(b)), s.Implies(r(b), r(a)))
        case s.Start():
            return tl.Historically(s.FALSE)
        case s.Not(a):
            return s.Not(r(a))
        case s.Or(a, b):
            return s.Or(r(a), r(b))
        case tl.Since(a, b):
            return tl.Since(r(a), r(b))
        case tl.Until(a, b):
            return tl.Until(r(a), r(b))
        case tl.WeakNext(a):
            return tl.WeakNext(r(a))
    return f


@settings(max_examples=150)
@given(FAMILIES)
def test_equivalent_formulas_compile_to_equal_dfas(formula: s.Formula) -> None:
    left, right = compile_formula(formula, ABC), compile_formula(rewrite(formula), ABC)
    assert left == right
    assert hash(left) == hash(right)


@settings(max_examples=60)
@given(FAMILIES, FAMILIES)
def test_boolean_operations_agree_with_the_connectives(f: s.Formula, g: s.Formula) -> None:
    df, dg = compile_formula(f, ABC), compile_formula(g, ABC)
    assert ops.intersection(df, dg) == compile_formula(s.And(f, g), ABC)
    assert ops.union(df, dg) == compile_formula(s.Or(f, g), ABC)
    assert ops.complement(df) == compile_formula(s.Not(f), ABC)
    assert ops.difference(df, dg) == compile_formula(s.And(f, s.Not(g)), ABC)
    assert ops.symmetric_difference(df, dg) == compile_formula(s.Not(s.Iff(f, g)), ABC)


# ------------------------------------------------------------------ bounds and errors


def test_state_explosion_is_quick_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    # the last 24 letters are "a-periodic" with period 12: the minimal DFA needs ~2^24 states
    blowup = s.conj(
        *(
            s.Iff(tl.Yesterday(s.Symbol("a"), k), tl.Yesterday(s.Symbol("a"), k + 12))
            for k in range(1, 13)
        )
    )
    # the work is bounded by the bound, not by the ~2^24 states: the exploration stops after
    # expanding at most max_states register states (its wall time: benchmarks/compile.py)
    for bound in (20_000, DEFAULT_MAX_STATES):
        work = ExpandedStates(monkeypatch)
        with pytest.raises(StateExplosionError) as err:
            compile_formula(blowup, ABC, max_states=bound)
        assert 0 < work.states <= bound
        assert str(bound) in str(err.value) and "Y^13 a" in str(err.value)


def test_state_explosion_with_future_operators(monkeypatch: pytest.MonkeyPatch) -> None:
    # "some a is followed, 14 positions later, by b": exponential in 14 in either direction
    far = s.Symbol("b")
    for _ in range(14):
        far = tl.Next(far)
    work = ExpandedStates(monkeypatch)
    with pytest.raises(StateExplosionError):
        compile_formula(tl.Past(s.And(s.Symbol("a"), far)), ABC, max_states=2_000)
    # the exploration gives up after expanding at most max_states register states
    assert 0 < work.states <= 2_000


def test_symbols_must_belong_to_the_alphabet() -> None:
    with pytest.raises(AlphabetError):
        compile_formula(parse("P d"), ABC)


def test_alphabet_given_as_text() -> None:
    assert compile_formula(parse("Y a"), "a,b,c") == compile_formula(parse("Y a"), ABC)


def test_deep_registers_are_exact() -> None:
    dfa = compile_formula(parse("Y^5 a"), AB)
    assert dfa.n_states == 2**5  # the minimal DFA remembers the last five letters
    assert dfa.accepts(tuple("abbbb")) and dfa.accepts(tuple("babbbb"))  # 5th from last
    assert not dfa.accepts(tuple("abbbbb")) and not dfa.accepts(tuple("aaaa"))


def test_nesting_deeper_than_the_recursion_limit() -> None:
    # 5,000 levels: the recursive builder gives way to its explicit stack, and what it had
    # built is kept (¬¬ folds away; at the EOS position the letter b is false)
    f: s.Formula = tl.Past(s.Symbol("a"))
    for i in range(2_500):
        f = s.Not(s.Not(f)) if i % 2 else s.Or(s.Symbol("b"), s.Or(f, s.FALSE))
    assert compile_formula(f, ABC) == compile_formula(tl.Past(s.Symbol("a")), ABC)
    g: s.Formula = s.Symbol("a")
    for _ in range(3_000):  # H ⊤ = ⊤ and φ ∧ ⊤ = φ fold at once, level by level
        g = s.And(g, tl.Historically(s.TRUE))
    assert compile_formula(tl.Past(g), ABC) == compile_formula(tl.Past(s.Symbol("a")), ABC)
