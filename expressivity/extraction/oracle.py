"""The membership oracle: a `Recognizer` answering word queries in large, cached batches."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from expressivity.errors import ExpressivityError
from expressivity.extraction.agreement import all_words, logits
from expressivity.models.transformer import Recognizer

__all__ = ["BudgetExhausted", "MembershipOracle", "QueryCounts", "pad_words"]

Codes = tuple[int, ...]
Words = Iterable[Sequence[int] | np.ndarray]


class BudgetExhausted(ExpressivityError):
    """The learner asked for more membership queries than the budget allows."""


@dataclass(frozen=True)
class QueryCounts:
    """How much a `MembershipOracle` was asked: learner queries (words the learning algorithm
    asked, repeats included) and the distinct ones among them (what the budget bounds), model
    words (distinct words run through the model, prefetch and tests included), forward
    batches, and the words run for the equivalence oracle's test sets."""

    learner: int
    learner_distinct: int
    model_words: int
    batches: int
    test_words: int


def pad_words(words: Sequence[Sequence[int] | np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Symbol-code words as a right-padded ``(B, W)`` int64 array and their lengths ``(B,)``."""
    lengths = np.array([len(w) for w in words], dtype=np.int64)
    codes = np.zeros((len(words), int(lengths.max()) if len(words) else 0), dtype=np.int64)
    for i, w in enumerate(words):
        codes[i, : len(w)] = w
    return codes, lengths


class MembershipOracle:
    """Membership of symbol-code words in the language a recognizer computes (logit > 0).

    Every word's logit is computed once and cached. `ask` answers a whole list in one batched
    pass over the uncached words (`extraction.agreement.logits`: chunks by length, the banded kernel
    for long inputs when the model's config says so); ``budget`` bounds the distinct words the
    *learner* may ask (`BudgetExhausted` past it), cached or not. ``prefetch`` runs every word
    up to that length through the model at once, so short learner queries hit the cache.
    """

    def __init__(self, model: Recognizer, *, budget: int | None = None, prefetch: int = 0) -> None:
        self.model = model.eval()
        self.n_symbols = model.alphabet_size
        self.budget, self.prefetched = budget, max(prefetch, 0)
        self._cache: dict[Codes, float] = {}
        self._learner = self._model_words = self._batches = self._test_words = 0
        self._asked: set[Codes] = set()  # distinct words the learner asked (the budget)
        if prefetch > 0:
            codes, lengths = all_words(self.n_symbols, prefetch)
            self._run([tuple(int(c) for c in row[:n]) for row, n in zip(codes, lengths,
                                                                         strict=True)])

    def counts(self) -> QueryCounts:
        """The query counts so far."""
        return QueryCounts(self._learner, len(self._asked), self._model_words, self._batches,
                           self._test_words)

    def _run(self, words: list[Codes]) -> None:
        fresh = list(dict.fromkeys(w for w in words if w not in self._cache))
        if not fresh:
            return
        codes, lengths = pad_words(fresh)
        values = logits(self.model, codes, lengths)
        self._cache.update(zip(fresh, values.tolist(), strict=True))
        self._model_words += len(fresh)
        self._batches += 1

    def logits(self, words: Words, *, learner: bool = False) -> np.ndarray:
        """The model's accept logits of ``words`` (one batched pass over the uncached ones).

        ``learner=True`` counts the words as membership queries of the learning algorithm
        (against the budget); otherwise they are equivalence-oracle test words.
        """
        keys = [tuple(int(c) for c in w) for w in words]
        if learner:
            self._learner += len(keys)
            new = {k for k in keys if k not in self._asked}
            if self.budget is not None and len(self._asked) + len(new) > self.budget:
                raise BudgetExhausted(f"membership query budget of {self.budget} words spent")
            self._asked |= new
        else:
            self._test_words += len({k for k in keys if k not in self._cache})
        self._run(keys)
        return np.array([self._cache[k] for k in keys], dtype=np.float64)

    def ask(self, words: Words, *, learner: bool = False) -> np.ndarray:
        """Accept decisions (logit > 0) of ``words`` as a bool array (see `logits`)."""
        return self.logits(words, learner=learner) > 0

    def answered(self) -> tuple[list[Codes], np.ndarray]:
        """Every word the model has answered so far and its logit (insertion order)."""
        return list(self._cache), np.fromiter(self._cache.values(), np.float64, len(self._cache))

    def ask_codes(self, codes: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """`ask` on padded words ``(B, W)`` with ``lengths`` (test words)."""
        return self.ask([row[:n] for row, n in zip(codes, lengths, strict=True)])
