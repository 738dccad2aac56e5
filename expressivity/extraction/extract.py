"""`extract`: the DFA a recognizer computes (up to a length bound) and its distance to the target.

Active automata learning (L* from AALpy's observation table and Rivest-Schapire counterexample
processing, each table fill one batched model pass; or AALpy's KV) with the model as membership
oracle and `learner.ToolkitEquivalence` as equivalence oracle. The result, an `Extraction`,
holds the canonical minimal DFA, its classification and predicted layouts, its exact distance
from the target (shortest distinguishing word, density of the symmetric difference per length)
and the model's agreement with it per length on fresh words. A complete extraction means the
model agreed with the DFA on every word the equivalence oracle tried — evidence up to the
length bound, not a proof; an incomplete one (budget or state bound hit) is the last
hypothesis within the state bound and says why it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from expressivity.alphabet import Word
from expressivity.automata.counting import density
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import distinguishing_word, minimize, symmetric_difference
from expressivity.errors import ConfigError, ExpressivityError
from expressivity.extraction.agreement import balanced_words
from expressivity.extraction.learner import (
    HypothesisTooLarge,
    ModelSUL,
    ToolkitEquivalence,
    batched_lstar,
)
from expressivity.extraction.oracle import BudgetExhausted, MembershipOracle, pad_words
from expressivity.extraction.result import Extraction, LengthAgreement
from expressivity.models.transformer import Recognizer

if TYPE_CHECKING:
    from expressivity.algebra.classification import Classification

__all__ = ["ALGORITHMS", "Extraction", "LengthAgreement", "extract"]

ALGORITHMS = ("lstar", "kv")
_CLASSIFY_MAX_SIZE = 50_000  # semigroup bound when classifying an extracted DFA
_PREFETCH_WORDS = 4096  # words of every length up to k are prefetched while this many or fewer


#: The longest word length `extract` checks a model on (its work grows as its square).
MAX_LENGTH_BOUND = 1_000


def extract(
    model: Recognizer,
    target: DFA,
    *,
    length_bound: int = 100,
    query_budget: int | None = 200_000,
    extra_words: Sequence[Sequence[int] | np.ndarray] = (),
    random_per_length: int = 32,
    agreement_per_length: int = 64,
    max_states: int = 64,
    algorithm: str = "lstar",
    seed: int = 0,
    classify_result: bool = True,
) -> Extraction:
    """Extract the DFA that ``model`` computes on words up to ``length_bound`` letters.

    ``query_budget`` bounds the distinct words the learner asks (None: no bound);
    ``extra_words`` (symbol codes; those longer than ``length_bound`` are left out) and
    ``random_per_length`` random words per length are tried by the equivalence oracle after
    the target comparison; ``max_states`` stops at a hypothesis that outgrows it (the result is
    then the last hypothesis within it). Agreement is measured on ``agreement_per_length`` fresh
    words per length (seed ``seed + 1``). Reproducible: same model, target and seed, same result.
    """
    from aalpy.learning_algs import run_KV

    if model.alphabet_size != target.n_symbols:
        raise ConfigError(f"model alphabet size {model.alphabet_size} differs from the "
                          f"target's {target.n_symbols} symbols {target.alphabet}")
    if algorithm not in ALGORITHMS:
        raise ConfigError(f"algorithm: {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if length_bound < 0 or (query_budget is not None and query_budget < 1):
        raise ConfigError("length_bound must be >= 0 and query_budget >= 1")
    if length_bound > MAX_LENGTH_BOUND:
        raise ConfigError(
            f"length bound {length_bound}: at most MAX_LENGTH_BOUND = {MAX_LENGTH_BOUND} (the "
            "oracle runs random and agreement words of every length up to it through the model, "
            "so its work grows with the square of the bound); pass a smaller --length-bound")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed: must be a non-negative integer, got {seed!r}")
    started = time.perf_counter()
    s = target.n_symbols
    prefetch = max((k for k in range(1, 64) if sum(s**i for i in range(k + 1)) <= _PREFETCH_WORDS),
                   default=0) if s > 1 else min(length_bound, 64)
    oracle = MembershipOracle(model, budget=query_budget, prefetch=min(prefetch, length_bound))
    sul = ModelSUL(oracle, target.alphabet)
    eq = ToolkitEquivalence(sul, target, length_bound=length_bound,
                            random_per_length=random_per_length, extra_words=extra_words,
                            seed=seed, max_states=max_states)
    symbols = list(target.alphabet.symbols)
    stop = ""
    try:
        if algorithm == "lstar":
            batched_lstar(sul, eq, symbols)
        else:
            run_KV(symbols, sul, eq, "dfa", cache_and_non_det_check=False, print_level=0,
                   cex_processing="rs")
    except (BudgetExhausted, HypothesisTooLarge) as err:
        stop = str(err)
    dfa = eq.hypothesis
    if dfa is None:  # the budget ran out before a first hypothesis: ε's verdict everywhere
        eps = bool(oracle.ask([()])[0])
        dfa = minimize(DFA(target.alphabet, np.zeros((1, s), np.int64), [eps]))
        stop = stop or "no hypothesis"
    complete = eq.passed and not stop
    agreement = _agreement(oracle, dfa, target, length_bound, agreement_per_length, seed + 1)
    classification, error = _classify(dfa) if classify_result else (None, "not requested")
    return Extraction(
        dfa=dfa, target=target, complete=complete, stop_reason=stop, algorithm=algorithm,
        length_bound=length_bound, query_budget=query_budget, counts=oracle.counts(),
        rounds=eq.rounds, hypothesis_sizes=tuple(eq.sizes),
        counterexamples=tuple(eq.counterexamples),
        shortest_difference=distinguishing_word(target, dfa),
        model_error=_model_error(oracle, target), answered=oracle.counts().model_words,
        exhaustive_up_to=oracle.prefetched,
        difference_density=difference_density(dfa, target, length_bound),
        agreement=agreement, seconds=time.perf_counter() - started,
        classification=classification, classification_error=error,
    )


def difference_density(left: DFA, right: DFA, max_len: int) -> tuple[float, ...]:
    """Exact density |L1 △ L2 ∩ Σ^n| / |Σ|^n for n = 0..max_len (from exact counting)."""
    diff = symmetric_difference(left, right)
    return tuple(density(diff, n) for n in range(max_len + 1))


def _model_error(oracle: MembershipOracle, target: DFA) -> Word | None:
    """The shortest (then shortlex-first) answered word on which the model and target differ."""
    words, values = oracle.answered()
    codes, lengths = pad_words(words)
    bad = np.flatnonzero((values > 0) != target.accepts_codes(codes, lengths))
    if not len(bad):
        return None
    best = min(bad.tolist(), key=lambda i: (len(words[i]), words[i]))
    return target.alphabet.decode(words[best])


def _agreement(oracle: MembershipOracle, dfa: DFA, target: DFA, max_len: int,
               per_length: int, seed: int) -> tuple[LengthAgreement, ...]:
    codes, lengths = balanced_words(dfa, np.arange(max_len + 1), per_length,
                                    np.random.default_rng(seed))
    said = oracle.ask_codes(codes, lengths)
    ok_dfa = said == dfa.accepts_codes(codes, lengths)
    ok_target = said == target.accepts_codes(codes, lengths)
    return tuple(
        LengthAgreement(n, int(sel.sum()), int(ok_dfa[sel].sum()), int(ok_target[sel].sum()))
        for n in range(max_len + 1) if (sel := lengths == n).any()
    )


def _classify(dfa: DFA) -> tuple[Classification | None, str]:
    from expressivity.algebra.classify import classify

    try:
        return classify(dfa, name="extracted", max_size=_CLASSIFY_MAX_SIZE), ""
    except ExpressivityError as err:
        return None, str(err)
