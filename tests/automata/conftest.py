"""Fixtures and hypothesis strategies for the automata tests: random DFAs and regexes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA

ABC = Alphabet(("a", "b", "c"))
AB = Alphabet(("a", "b"))


@pytest.fixture
def abc() -> Alphabet:
    return ABC


@st.composite
def dfas(draw: st.DrawFn, alphabet: Alphabet = AB, max_states: int = 7) -> DFA:
    """A random complete DFA (not necessarily minimal or trim) over ``alphabet``."""
    n = draw(st.integers(1, max_states))
    k = len(alphabet)
    table = draw(st.lists(st.integers(0, n - 1), min_size=n * k, max_size=n * k))
    accepting = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    initial = draw(st.integers(0, n - 1))
    return DFA(alphabet, np.array(table).reshape(n, k), accepting, initial)


def permuted(dfa: DFA, seed: int) -> DFA:
    """The same automaton with its states renamed by a seeded random permutation."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(dfa.n_states)  # old state q becomes perm[q]
    inv = np.argsort(perm)
    return DFA(dfa.alphabet, perm[dfa.transitions[inv]], dfa.accepting[inv], int(perm[dfa.initial]))


# ------------------------------------------------------------------ regexes
# A regex is drawn as a pair (our syntax, Python `re` syntax) over the one-character symbols
# a, b, c; Python's `re.fullmatch` is then the reference.


def _leaf() -> st.SearchStrategy[tuple[str, str]]:
    symbol = st.sampled_from("abc").map(lambda x: (x, x))
    return st.one_of(
        symbol,
        st.just(("ε", "")),
        st.just(("eps", "")),
        st.sampled_from([(".", "[abc]"), ("Σ", "[abc]")]),
        st.lists(st.sampled_from("abc"), min_size=1, max_size=3, unique=True).map(
            lambda xs: (f"[{' '.join(xs)}]", f"[{''.join(xs)}]")
        ),
        st.lists(st.sampled_from("abc"), min_size=1, max_size=2, unique=True).map(
            lambda xs: (f"[^{''.join(xs)}]", f"[{''.join(sorted(set('abc') - set(xs)))}]")
        ),
    )


def _extend(inner: st.SearchStrategy[tuple[str, str]]) -> st.SearchStrategy[tuple[str, str]]:
    pair = st.tuples(inner, inner)
    bounds = st.tuples(st.integers(0, 2), st.integers(0, 2)).map(sorted)
    return st.one_of(
        pair.map(lambda p: (f"({p[0][0]}|{p[1][0]})", f"(?:{p[0][1]}|{p[1][1]})")),
        pair.map(lambda p: (f"({p[0][0]} {p[1][0]})", f"(?:{p[0][1]}{p[1][1]})")),
        st.tuples(inner, st.sampled_from("*+?")).map(
            lambda p: (f"({p[0][0]}){p[1]}", f"(?:{p[0][1]}){p[1]}")
        ),
        st.tuples(inner, bounds).map(
            lambda p: (
                f"({p[0][0]}){{{p[1][0]},{p[1][1]}}}",
                f"(?:{p[0][1]}){{{p[1][0]},{p[1][1]}}}",
            )
        ),
        st.tuples(inner, st.integers(0, 2)).map(
            lambda p: (f"({p[0][0]}){{{p[1]}}}", f"(?:{p[0][1]}){{{p[1]}}}")
        ),
        st.tuples(inner, st.integers(0, 2)).map(
            lambda p: (f"({p[0][0]}){{{p[1]},}}", f"(?:{p[0][1]}){{{p[1]},}}")
        ),
    )


def regexes() -> st.SearchStrategy[tuple[str, str]]:
    """Pairs (our regex, the equivalent Python regex) over the alphabet {a, b, c}."""
    return st.recursive(_leaf(), _extend, max_leaves=8)
