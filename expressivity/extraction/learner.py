"""AALpy glue: the recognizer as a system under learning, and a toolkit-aware equivalence oracle.

The learning algorithm (L* or KV) is AALpy's; this module gives it

- `ModelSUL`: membership queries answered by a `MembershipOracle`. An AALpy query returns the
  verdict after every prefix; its DFA learners as run here (L* with single-output cells and
  KV, both with Rivest-Schapire counterexample processing) read only the last one, so by
  default only the word itself goes to the model and the earlier entries are None
  (``prefixes=True`` answers every prefix, in one batch, for other uses);
- `ToolkitEquivalence`: counterexamples searched, in this order, (1) exactly against the
  *target* DFA — the words of hypothesis △ target, shortest lengths first, of which those on
  which the model sides with the target (a word on which model and hypothesis agree but the
  target differs is the model's own error, not a counterexample); (2) in a fixed seeded set of
  uniform random words of every length up to the length bound; (3) in given extra words (the
  run's adversarial pairs and test words) no longer than the bound. Each search returns its
  shortest disagreement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from aalpy.base import SUL, Oracle
from aalpy.learning_algs.deterministic.CounterExampleProcessing import (
    counterexample_successfully_processed,
    rs_cex_processing,
)
from aalpy.learning_algs.deterministic.ObservationTable import ObservationTable
from aalpy.utils.HelperFunctions import extend_set

from expressivity.alphabet import Alphabet, Word
from expressivity.automata.counting import codes_of_length, count_words
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import is_empty, minimize, symmetric_difference
from expressivity.data.sampling import WordSampler
from expressivity.errors import ExpressivityError
from expressivity.extraction.oracle import MembershipOracle, pad_words

__all__ = ["HypothesisTooLarge", "ModelSUL", "ToolkitEquivalence", "batched_lstar", "to_dfa"]

#: Words of hypothesis △ target examined per length (all of them when there are fewer).
DIFFERENCE_PER_LENGTH = 256


class HypothesisTooLarge(ExpressivityError):
    """A hypothesis outgrew the ``max_states`` bound of the extraction."""


def to_dfa(hypothesis: Any, alphabet: Alphabet) -> DFA:
    """The canonical minimal `DFA` of an AALpy ``Dfa`` whose inputs are ``alphabet``'s symbols."""
    states = list(hypothesis.states)
    index = {id(s): i for i, s in enumerate(states)}
    table = [[index[id(s.transitions[a])] for a in alphabet.symbols] for s in states]
    accepting = [bool(s.is_accepting) for s in states]
    return minimize(DFA(alphabet, table, accepting, index[id(hypothesis.initial_state)]))


class ModelSUL(SUL):
    """A recognizer as AALpy's system under learning (queries only; `step` is never used)."""

    def __init__(self, oracle: MembershipOracle, alphabet: Alphabet, *,
                 prefixes: bool = False) -> None:
        super().__init__()
        self.oracle, self.alphabet, self.prefixes = oracle, alphabet, prefixes

    def query(self, word: tuple[Any, ...]) -> list[bool | None]:
        codes = tuple(self.alphabet.index(a) for a in word)
        self.num_queries += 1
        if not self.prefixes:
            last = bool(self.oracle.ask([codes], learner=True)[0])
            return [*([None] * (len(codes) - 1)), last]
        prefixes = [codes[:i] for i in range(1, len(codes) + 1)] if codes else [()]
        return [bool(x) for x in self.oracle.ask(prefixes, learner=True)]

    def pre(self) -> None:
        pass

    def post(self) -> None:
        pass

    def step(self, letter: Any) -> Any:  # pragma: no cover - query is overridden
        raise NotImplementedError("ModelSUL answers whole queries, not single steps")


class _BatchedTable(ObservationTable):
    """AALpy's observation table whose missing cells go to the model in one batch per fill."""

    def update_obs_table(self, s_set: list[Any] | None = None,
                         e_set: list[Any] | None = None) -> None:
        rows = s_set if s_set else list(self.S) + list(self.s_dot_a())
        columns = e_set if e_set else self.E
        sul: ModelSUL = self.sul
        words = [tuple(sul.alphabet.index(a) for a in s + e) for s in rows for e in columns
                 if len(self.T[s]) != len(self.E)]
        sul.oracle.ask(words, learner=True)  # prefill the cache; the cells then hit it
        super().update_obs_table(s_set, e_set)


def batched_lstar(sul: ModelSUL, eq: Oracle, symbols: list[str]) -> Any:
    """Angluin's L* with Rivest-Schapire counterexample processing, as AALpy's ``run_Lstar``
    (shortest-first closing, single-output cells), from AALpy's own observation table and
    counterexample processing, except that each table fill is one batched model pass."""
    table = _BatchedTable(symbols, sul, "dfa")
    table.update_obs_table()
    cex = None
    while True:
        rows = table.get_rows_to_close("shortest_first")
        while rows is not None:
            new = []
            for row in rows:
                table.S.append(row)
                new += [(*row, a) for a in symbols]
            table.update_obs_table(s_set=new)
            rows = table.get_rows_to_close("shortest_first")
        hypothesis = table.gen_hypothesis()
        if cex is None or counterexample_successfully_processed(sul, cex, hypothesis):
            cex = eq.find_cex(hypothesis)
            if cex is None:
                return hypothesis
            cex = tuple(cex)
        suffixes = rs_cex_processing(sul, cex, hypothesis, False, closedness="suffix")
        table.update_obs_table(e_set=extend_set(table.E, suffixes))


class ToolkitEquivalence(Oracle):
    """Equivalence queries against the target DFA, random words and extra (adversarial) words."""

    def __init__(
        self,
        sul: ModelSUL,
        target: DFA,
        *,
        length_bound: int,
        random_per_length: int,
        extra_words: Sequence[Sequence[int] | np.ndarray],
        seed: int,
        max_states: int,
    ) -> None:
        super().__init__(list(target.alphabet.symbols), sul)
        self.oracle, self.target = sul.oracle, target
        self.length_bound, self.max_states, self.seed = length_bound, max_states, seed
        rng = np.random.default_rng(seed)
        lengths = np.repeat(np.arange(length_bound + 1), random_per_length)
        codes = rng.integers(0, target.n_symbols, size=(len(lengths), max(length_bound, 1)))
        self.random = (codes, lengths)
        self.extra = pad_words([w for w in extra_words if len(w) <= length_bound])
        self.hypothesis: DFA | None = None  # the latest hypothesis within max_states
        self.sizes: list[int] = []  # states of every hypothesis, in order
        self.passed = False  # whether the latest hypothesis passed every search
        self.rounds = 0  # hypotheses submitted
        self.counterexamples: list[tuple[Word, str]] = []

    def find_cex(self, hypothesis: Any) -> tuple[str, ...] | None:
        dfa = to_dfa(hypothesis, self.target.alphabet)
        self.passed, self.rounds = False, self.rounds + 1
        self.sizes.append(dfa.n_states)
        if dfa.n_states > self.max_states:
            self.hypothesis = self.hypothesis or dfa  # keep the last one within the bound
            raise HypothesisTooLarge(f"hypothesis {self.rounds} has {dfa.n_states} states, more "
                                     f"than max_states={self.max_states}")
        self.hypothesis = dfa
        for source, found in (("target", self._against_target(dfa)),
                              ("random", self._disagreement(dfa, *self.random)),
                              ("adversarial", self._disagreement(dfa, *self.extra))):
            if found is not None:
                self.counterexamples.append((found, source))
                return found
        self.passed = True
        return None

    def _disagreement(self, dfa: DFA, codes: np.ndarray, lengths: np.ndarray) -> Word | None:
        """The shortest word of the set on which the model and ``dfa`` disagree."""
        if not len(lengths):
            return None
        bad = np.flatnonzero(self.oracle.ask_codes(codes, lengths)
                             != dfa.accepts_codes(codes, lengths))
        if not len(bad):
            return None
        i = bad[np.lexsort((np.arange(len(bad)), lengths[bad]))[0]]
        return dfa.alphabet.decode(codes[i, : lengths[i]])

    def _against_target(self, dfa: DFA) -> Word | None:
        """Shortest word of hypothesis △ target on which the model sides with the target.

        Lengths are searched in windows 0-7, 8-15, 16-31, ... so one batch covers many lengths
        and the search stops at the first window holding a counterexample.
        """
        diff = symmetric_difference(dfa, self.target)
        if is_empty(diff):
            return None
        rng = np.random.default_rng([self.seed, 1])
        sampler: WordSampler | None = None
        lo = 0
        while lo <= self.length_bound:
            hi = min(self.length_bound, max(7, 2 * lo - 1))
            words: list[np.ndarray] = []
            for n in range(lo, hi + 1):
                count = count_words(diff, n)
                if count == 0:
                    continue
                if count <= DIFFERENCE_PER_LENGTH:
                    words += list(codes_of_length(diff, n))
                else:
                    sampler = sampler or WordSampler.build(diff, self.length_bound)
                    words += list(sampler.sample(n, DIFFERENCE_PER_LENGTH, rng))
            if words:
                codes, lengths = pad_words(words)
                found = self._disagreement(dfa, codes, lengths)
                if found is not None:
                    return found
            lo = hi + 1
        return None
