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
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

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
from expressivity.extraction.oracle import (
    BudgetExhausted,
    MembershipOracle,
    QueryCounts,
    pad_words,
)
from expressivity.models.transformer import Recognizer

if TYPE_CHECKING:
    from expressivity.algebra.classification import Classification

__all__ = ["ALGORITHMS", "Extraction", "LengthAgreement", "extract"]

ALGORITHMS = ("lstar", "kv")
_CLASSIFY_MAX_SIZE = 50_000  # semigroup bound when classifying an extracted DFA
_PREFETCH_WORDS = 4096  # words of every length up to k are prefetched while this many or fewer


@dataclass(frozen=True)
class LengthAgreement:
    """Agreement of the model with the extracted DFA and with the target on fresh words of one
    length (half members, half non-members of the extracted DFA where both exist)."""

    length: int
    n: int
    with_extracted: int
    with_target: int

    @property
    def rate(self) -> float:
        """with_extracted / n."""
        return self.with_extracted / self.n if self.n else 1.0


@dataclass(frozen=True, eq=False)
class Extraction:
    """The DFA extracted from a recognizer and its comparison with the target."""

    dfa: DFA
    target: DFA
    complete: bool
    stop_reason: str  # "" when complete
    algorithm: str
    length_bound: int
    query_budget: int | None
    counts: QueryCounts
    rounds: int  # hypotheses submitted to the equivalence oracle
    hypothesis_sizes: tuple[int, ...]  # their numbers of states, in order
    counterexamples: tuple[tuple[Word, str], ...]  # (word, source) in the order found
    shortest_difference: Word | None  # shortest word in exactly one of dfa, target
    model_error: Word | None  # shortest word the model answered against the target
    answered: int  # words the model answered (all of length <= exhaustive_up_to among them)
    exhaustive_up_to: int
    difference_density: tuple[float, ...]  # |L △ target| / |Σ|^n for n = 0..length_bound
    agreement: tuple[LengthAgreement, ...]
    seconds: float
    classification: Classification | None = field(default=None, repr=False)
    classification_error: str = ""

    @property
    def equals_target(self) -> bool:
        """Whether the extracted DFA is exactly the target (equal canonical DFAs)."""
        return self.shortest_difference is None

    @property
    def layouts(self) -> dict[str, bool]:
        """Layouts proven to recognize the extracted language (`predicted_recognizers`)."""
        from expressivity.algebra.classification import predicted_recognizers

        return {} if self.classification is None else predicted_recognizers(self.classification)

    @property
    def classes(self) -> dict[str, bool]:
        """Class memberships (R-trivial, definite, ...) of the extracted language."""
        if self.classification is None:
            return {}
        return {cls: v is True for cls, v in self.classification.verdicts}

    def first_disagreement(self) -> int | None:
        """The shortest length at which the model disagrees with the extracted DFA on some
        fresh word (None when it agrees on all of them)."""
        return next((a.length for a in self.agreement if a.with_extracted < a.n), None)

    def summary(self) -> str:
        """A plain-text report of the extraction."""
        fmt = self.target.alphabet.format_word
        c = self.counts
        status = "complete" if self.complete else f"INCOMPLETE ({self.stop_reason})"
        lines = [
            f"extracted DFA: {self.dfa.n_states} states ({status}); target: "
            f"{self.target.n_states} states",
            f"learning: {self.algorithm}, {self.rounds} hypotheses "
            f"({' → '.join(map(str, self.hypothesis_sizes))} states), {len(self.counterexamples)} "
            f"counterexamples, length bound {self.length_bound}, budget "
            f"{self.query_budget if self.query_budget is not None else 'none'}",
            f"queries: {c.learner} learner queries ({c.learner_distinct} distinct), "
            f"{c.model_words} distinct words through the model in {c.batches} batches "
            f"({c.test_words} equivalence test words); "
            f"{self.seconds:.1f}s",
        ]
        if self.equals_target:
            lines.append("distance to target: none (the extracted DFA IS the target)")
        else:
            assert self.shortest_difference is not None
            dens = self.difference_density
            peak = int(np.argmax(dens)) if dens else 0
            lines.append(
                f"distance to target: shortest distinguishing word {fmt(self.shortest_difference)}"
                f" (length {len(self.shortest_difference)}); symmetric-difference density "
                f"{dens[-1]:.3g} at length {len(dens) - 1}, peak {dens[peak]:.3g} at {peak}"
            )
        if self.classification is not None:
            yes = [k for k, v in self.classes.items() if v]
            layouts = [k for k, v in self.layouts.items() if v]
            lines.append(f"class: {', '.join(yes) or 'none of the tested classes'}; "
                         f"predicted layouts: {', '.join(layouts) or 'none'}")
        elif self.classification_error:
            lines.append(f"class: not computed ({self.classification_error})")
        if self.model_error is None:
            lines.append(f"model vs target: no error on the {self.answered} words it answered "
                         f"(every word up to length {self.exhaustive_up_to} among them)")
        else:
            lines.append(f"model vs target: shortest error {fmt(self.model_error)} (length "
                         f"{len(self.model_error)}) among the {self.answered} words it answered "
                         f"(every word up to length {self.exhaustive_up_to} among them)")
        first = self.first_disagreement()
        n_agree = sum(a.with_extracted for a in self.agreement)
        n_all = sum(a.n for a in self.agreement)
        lines.append(
            f"model vs extracted DFA on {n_all} fresh words of lengths 0-{self.length_bound}: "
            f"{n_agree}/{n_all} agree; "
            + ("no disagreement" if first is None else f"first disagreement at length {first}")
        )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (the DFAs as transition tables)."""
        fmt = self.target.alphabet.format_word
        return {
            "states": self.dfa.n_states,
            "transitions": self.dfa.transitions.tolist(),
            "accepting": self.dfa.accepting.tolist(),
            "target_states": self.target.n_states,
            "complete": self.complete,
            "stop_reason": self.stop_reason,
            "equals_target": self.equals_target,
            "algorithm": self.algorithm,
            "length_bound": self.length_bound,
            "query_budget": self.query_budget,
            "queries": asdict(self.counts),
            "rounds": self.rounds,
            "hypothesis_sizes": list(self.hypothesis_sizes),
            "counterexamples": [[fmt(w), src] for w, src in self.counterexamples],
            "shortest_difference": (None if self.shortest_difference is None
                                    else fmt(self.shortest_difference)),
            "difference_density": list(self.difference_density),
            "model_error": None if self.model_error is None else fmt(self.model_error),
            "answered": self.answered,
            "exhaustive_up_to": self.exhaustive_up_to,
            "classes": self.classes,
            "layouts": self.layouts,
            "agreement": [asdict(a) for a in self.agreement],
            "seconds": self.seconds,
        }


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
