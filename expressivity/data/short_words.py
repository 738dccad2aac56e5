"""The short-word split: every word up to a short length (or a fixed sample of that size).

The test lengths of the papers' protocol start at 41, so a model that errs on the empty word
or on words of length 1 and 2 can still be perfect on every test length (issue 34: the two
``block-4`` "learned beyond" cells). The short split closes that blind spot: a run counts as
recognized only when it is right on every word of this split too (`RunRecord.recognized`).

Definition (``max_length`` L, ``size`` S, alphabet of k letters):

- if the words of length ≤ L number at most S (Σ_{n≤L} kⁿ ≤ S; with the defaults L = 8 and
  S = 511 exactly the 2-letter case), the split holds **every** word of length 0..L, in
  length-lexicographic order (``exhaustive``);
- otherwise it holds every word of length 0..m, m the largest length whose words number at
  most S in all, and fills the remaining S − Σ_{n≤m} kⁿ places with distinct words of lengths
  m+1..L drawn from a **fixed** stream (``SeedSequence(SHORT_SEED)``; independent of the run's
  seed, so every run of a language is judged on the same words): a length uniform in
  m+1..L, then a word uniform among the kⁿ of that length, repeats rejected (at most
  ``size · 64`` draws, `MAX_DRAWS_FACTOR`).

Labels come from the DFA. Short words may also occur in training: this split tests, it does
not hold out.
"""

from __future__ import annotations

import itertools

import numpy as np

from expressivity.automata.dfa import DFA
from expressivity.data.dataset import Dataset, DatasetProvenance
from expressivity.data.sampling import code_dtype

__all__ = ["MAX_DRAWS_FACTOR", "SHORT_SEED", "describe", "exhaustive_length", "is_exhaustive",
           "short_words"]

#: The seed of the sample for alphabets too large for an exhaustive split (fixed on purpose).
SHORT_SEED = 34
#: Bound on the sampler's draws: ``size * MAX_DRAWS_FACTOR`` (repeats are rejected).
MAX_DRAWS_FACTOR = 64


def exhaustive_length(k: int, max_length: int, size: int) -> int:
    """The largest m ≤ ``max_length`` with Σ_{n≤m} kⁿ ≤ ``size`` (−1 if not even the empty
    word fits)."""
    total, m = 0, -1
    for n in range(max_length + 1):
        total += k**n
        if total > size:
            break
        m = n
    return m


def is_exhaustive(k: int, max_length: int, size: int) -> bool:
    """Whether the split holds every word of length ≤ ``max_length`` over k letters."""
    return exhaustive_length(k, max_length, size) == max_length


def describe(dataset: Dataset, max_length: int) -> str:
    """What a short split holds, in words (its note in `DatasetSplits.notes`)."""
    k, n = len(dataset.alphabet), len(dataset)
    m = exhaustive_length(k, max_length, n)
    if m == max_length:
        return f"every word of length 0..{max_length} ({n} words)"
    rest = n - sum(k**i for i in range(m + 1))
    return (f"every word of length 0..{m} and a fixed sample of {rest} words of length "
            f"{m + 1}..{max_length} ({n} words; seed {SHORT_SEED})")


def _all_words(k: int, length: int, dtype: np.dtype) -> list[np.ndarray]:
    return [np.asarray(w, dtype=dtype) for w in itertools.product(range(k), repeat=length)]


def _sample(k: int, lengths: range, count: int, dtype: np.dtype) -> list[np.ndarray]:
    """``count`` distinct words of ``lengths`` (length uniform, then word uniform), fixed seed."""
    rng = np.random.default_rng(np.random.SeedSequence(SHORT_SEED))
    seen: set[tuple[int, bytes]] = set()
    out: list[np.ndarray] = []
    capacity = sum(k**n for n in lengths)
    count = min(count, capacity)
    for _ in range(count * MAX_DRAWS_FACTOR):
        if len(out) == count:
            break
        n = int(rng.integers(lengths.start, lengths.stop))
        word = rng.integers(0, k, size=n).astype(dtype)
        key = (n, word.tobytes())
        if key not in seen:
            seen.add(key)
            out.append(word)
    out.sort(key=lambda w: (len(w), w.tolist()))
    return out


def short_words(dfa: DFA, max_length: int, size: int, provenance: DatasetProvenance) -> Dataset:
    """The short split of ``dfa``'s language (see the module docstring), labelled by the DFA."""
    k, dtype = dfa.n_symbols, np.dtype(code_dtype(dfa.n_symbols))
    m = exhaustive_length(k, max_length, size)
    words = [w for n in range(m + 1) for w in _all_words(k, n, dtype)]
    if m < max_length and size > len(words):
        words += _sample(k, range(m + 1, max_length + 1), size - len(words), dtype)
    lengths = np.array([len(w) for w in words], dtype=np.int64)
    padded = np.zeros((len(words), max(max_length, 1)), dtype=np.int64)
    for i, w in enumerate(words):
        padded[i, : len(w)] = w
    labels = np.asarray(dfa.accepts_codes(padded, lengths), dtype=bool)
    kinds = np.where(labels, "positive", "negative")
    return Dataset.from_words(dfa.alphabet, words, labels, provenance, split=["short"] * len(words),
                              kind=kinds, distance=np.where(labels, 0, -1))
