"""Extraction returns exactly the target from exact recognizers, and reports what it cannot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula
from expressivity.automata.ops import distinguishing_word, minimize
from expressivity.catalogue import Language
from expressivity.errors import ConfigError
from expressivity.extraction import MembershipOracle, extract
from expressivity.logic.parser import parse
from expressivity.models.construct import construct, construct_language
from tests.models.test_construct import LR, _built

FAST = ("LT-2", "SUFFIX-a")


@pytest.mark.parametrize("name", FAST)
def test_constructed_model_gives_exactly_the_target(name: str) -> None:
    cm, source = construct_language(name)
    result = extract(cm.model, source.dfa, length_bound=24, classify_result=False)
    assert result.complete and result.stop_reason == ""
    assert result.dfa == minimize(source.dfa)  # canonical DFAs: structural equality
    assert result.equals_target and result.shortest_difference is None
    assert all(d == 0.0 for d in result.difference_density)
    assert result.model_error is None and result.exhaustive_up_to >= 5
    assert all(a.with_extracted == a.n == a.with_target for a in result.agreement)
    assert result.counts.learner > 0 and result.counts.model_words >= result.counts.batches > 0


@pytest.mark.parametrize("lang", LR, ids=lambda lang: lang.name)
def test_every_ltl_p_y_catalogue_language_is_extracted_exactly(lang: Language) -> None:
    cm = _built(lang)
    result = extract(cm.model, lang.dfa(), length_bound=24, classify_result=False)
    assert result.complete, result.summary()
    assert result.dfa == minimize(lang.dfa()), result.summary()


def test_model_of_another_language_gives_its_own_language_not_the_target() -> None:
    """The target only steers the search: a hypothesis word on which the model and the
    hypothesis agree against the target is the model's error, not a counterexample."""
    cm, last = construct_language("LAST")  # Σ*b over {a,b,c}
    target = compile_formula(parse("P(b & Y a)", last.alphabet), last.alphabet)  # LT-2
    result = extract(cm.model, target, length_bound=16)
    assert result.complete
    assert result.dfa == minimize(last.dfa)
    assert result.shortest_difference == distinguishing_word(target, last.dfa)
    assert result.shortest_difference is not None
    assert result.difference_density[0] == 0.0 and result.difference_density[1] == 1 / 3
    assert result.model_error == result.shortest_difference  # the model is LAST exactly
    assert result.layouts["local-1"] and not result.layouts["global"]
    assert all(a.with_extracted == a.n for a in result.agreement)
    assert any(a.with_target < a.n for a in result.agreement)
    assert "b" in result.summary() and "local-1" in result.summary()


def test_a_budget_that_runs_out_returns_the_last_hypothesis_marked_incomplete() -> None:
    cm, source = construct_language("LT-2")
    result = extract(cm.model, source.dfa, length_bound=12, query_budget=3,
                     classify_result=False)
    assert not result.complete and "budget" in result.stop_reason
    assert result.query_budget == 3 and "INCOMPLETE" in result.summary()
    assert result.dfa.n_states >= 1


def test_a_model_that_is_no_dfa_at_long_lengths_shows_it() -> None:
    """With a blunt attention sharpness the global head of PT-2's construction misreads long
    words: the extraction must not pass it off as a clean DFA."""
    source = construct_language("PT-2")[1]
    cm = construct(source.formula, source.alphabet, sharpness=1.0)  # type: ignore[arg-type]
    result = extract(cm.model, source.dfa, length_bound=40, query_budget=20_000, max_states=12,
                     random_per_length=16, agreement_per_length=32, classify_result=False)
    shows = (not result.complete or not result.equals_target
             or result.first_disagreement() is not None)
    assert shows, result.summary()


def test_bad_arguments_are_config_errors() -> None:
    cm, source = construct_language("LT-2")
    sigma = Alphabet.parse("ab")
    with pytest.raises(ConfigError, match="alphabet"):
        extract(cm.model, compile_formula(parse("Y a", sigma), sigma))
    with pytest.raises(ConfigError, match="algorithm"):
        extract(cm.model, source.dfa, algorithm="rpni")


def test_kv_agrees_with_lstar() -> None:
    cm, source = construct_language("LT-2")
    kv = extract(cm.model, source.dfa, length_bound=16, algorithm="kv", classify_result=False)
    assert kv.complete and kv.dfa == minimize(source.dfa)


def test_the_oracle_caches_and_counts() -> None:
    cm, source = construct_language("SUFFIX-a")
    oracle = MembershipOracle(cm.model, budget=5)
    words = [source.alphabet.encode(list(w)) for w in ("ba", "ab", "ba")]
    got = oracle.ask(words, learner=True)
    assert got.tolist() == [True, False, True]
    assert oracle.counts().model_words == 2 and oracle.counts().learner == 3
    oracle.ask(words, learner=True)
    assert oracle.counts().model_words == 2 and oracle.counts().batches == 1
    from expressivity.extraction.oracle import BudgetExhausted

    with pytest.raises(BudgetExhausted):
        oracle.ask([np.array([0, 1, 0, 1]), np.array([1, 1, 1]), np.array([0]),
                    np.array([1])], learner=True)


def test_the_sul_answers_the_last_verdict_or_every_prefix() -> None:
    from expressivity.extraction.learner import ModelSUL

    cm, source = construct_language("SUFFIX-a")
    oracle = MembershipOracle(cm.model)
    assert ModelSUL(oracle, source.alphabet).query(("a", "b", "a")) == [None, None, True]
    every = ModelSUL(oracle, source.alphabet, prefixes=True)
    assert every.query(("a", "b", "a")) == [True, False, True] and every.query(()) == [False]


def test_a_trained_model_that_recognizes_its_language_gives_the_target(tmp_path: Path) -> None:
    """SUFFIX-a = Σ*a with 1-local attention on the tiny profile: recognized after 20 steps."""
    from expressivity.extraction.runs import StoredRun
    from expressivity.training.loop import train
    from expressivity.training.spec import run_spec

    spec = run_spec("SUFFIX-a", "local-1", "tiny")
    record = train(spec, out_dir=tmp_path, quiet=True)
    assert record.recognized, record.error
    run = StoredRun(spec.run_id, spec, Path(record.checkpoint))
    result = extract(run.model, run.source.dfa, length_bound=run.max_test_length,
                     extra_words=run.adversarial_words(), classify_result=False)
    assert result.complete and result.equals_target, result.summary()
    assert all(a.with_extracted == a.n for a in result.agreement)
