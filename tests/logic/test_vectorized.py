"""The vectorized evaluator agrees with the reference `holds` and scales to long words."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from expressivity.alphabet import Alphabet
from expressivity.logic import holds, parse, truth_table
from expressivity.logic.syntax import Formula
from expressivity.logic.vectorized import accepts_vectorized
from tests.logic.strategies import TEMPORAL_OPERATORS, formulas, words


@settings(max_examples=300)
@given(
    formulas(("a", "b", "c"), (*TEMPORAL_OPERATORS, "Y^4", "MOD"), max_height=5, max_k=4),
    words(),
)
def test_truth_table_equals_holds_everywhere(formula: Formula, word: tuple[str, ...]) -> None:
    table = truth_table(formula, word)
    assert table.dtype == bool and table.shape == (len(word) + 1,)
    assert list(table) == [holds(formula, word, n) for n in range(1, len(word) + 2)]


@settings(max_examples=100)
@given(formulas(("a", "b"), ("Y<=k", "Y^k", "S", "U"), max_depth=2, max_k=6), words(("a", "b"), 12))
def test_windows_and_since_until_on_longer_words(formula: Formula, word: tuple[str, ...]) -> None:
    assert list(truth_table(formula, word)) == [
        holds(formula, word, n) for n in range(1, len(word) + 2)
    ]


def test_shared_subformulas_and_symbols_outside_the_word() -> None:
    f = parse("P(d & Y a) | P(d & Y a) | Y^100 a | Y<=100 b")
    w = ("a", "b")
    assert list(truth_table(f, w)) == [holds(f, w, n) for n in (1, 2, 3)]


def test_integer_coded_words_need_their_alphabet() -> None:
    sigma = Alphabet.parse("a,b,c")
    codes = sigma.encode(("c", "a", "b"))
    f = parse("P(b & Y a)")
    assert list(truth_table(f, codes, sigma)) == list(truth_table(f, ("c", "a", "b")))
    assert accepts_vectorized(f, codes, sigma)
    with pytest.raises(TypeError):
        truth_table(f, codes)


def _closed_forms(w: np.ndarray) -> dict[str, np.ndarray]:
    """Truth arrays (positions 1..N+1) of some formulas, computed by plain Python loops."""
    n = len(w)
    a = np.append(w == "a", False)
    b = np.append(w == "b", False)
    c = np.append(w == "c", False)
    out: dict[str, list[bool]] = {k: [] for k in ("P a", "a S b", "Y<=5 c", "a U b", "G !c")}
    seen_a = False
    since = False
    for i in range(n + 1):
        out["P a"].append(seen_a)
        out["a S b"].append(since)
        out["Y<=5 c"].append(bool(c[max(0, i - 5) : i].any()))
        seen_a = seen_a or bool(a[i])
        since = bool(b[i]) or (bool(a[i]) and since)
    until = False
    glob = True
    rev_u, rev_g = [], []
    for i in range(n, -1, -1):
        rev_u.append(until)
        rev_g.append(glob)
        until = bool(b[i]) or (bool(a[i]) and until)
        glob = glob and not c[i]
    out["a U b"] = rev_u[::-1]
    out["G !c"] = rev_g[::-1]
    return {k: np.array(v) for k, v in out.items()}


def test_long_words_are_exact() -> None:
    rng = np.random.default_rng(7)
    for probs in ([0.5, 0.49, 0.01], [0.2, 0.01, 0.79]):
        w = rng.choice(np.array(["a", "b", "c"]), size=10_000, p=probs)
        for text, expected in _closed_forms(w).items():
            assert np.array_equal(truth_table(parse(text), tuple(w)), expected), text
    big = parse(
        "(a S b) U (P(b & Y a) | Y<=50 c) & H(a -> X b) | G F a <-> WX (Y^7 c S !P(a & Y b))"
    )
    w = tuple(rng.choice(np.array(["a", "b", "c"]), size=300))
    table = truth_table(big, w)
    assert table.shape == (301,)
    assert [bool(x) for x in table] == [holds(big, w, n) for n in range(1, 302)]
