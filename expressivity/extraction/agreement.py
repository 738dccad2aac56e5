"""Check a recognizer against a DFA: short words, long random words, agreement length per dtype.

Works for any `Recognizer` (constructed or trained). Words are padded code arrays
``(B, W)`` with ``lengths`` (B,), decided in batches by length by `extraction.decisions`
(`decide`, `logits`, `in_dtype`, `DTYPES`, re-exported here).

`agreement_length` is the empirical counterpart of the theory's maximum attention span: on a
fixed seeded test set (every word up to a short length, then per length half members and half
non-members drawn exactly uniformly), the largest N such that the model agrees with the DFA
on every test word of length ≤ N.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import complement
from expressivity.errors import ConfigError
from expressivity.extraction.decisions import DTYPES, decide, in_dtype, logits
from expressivity.models.transformer import Recognizer

__all__ = [
    "DTYPES",
    "Agreement",
    "TestSet",
    "agreement_length",
    "all_words",
    "balanced_words",
    "boundary_words",
    "check_agreement",
    "compare",
    "decide",
    "in_dtype",
    "logits",
    "precision_report",
    "precision_set",
]

#: The most words `all_words` enumerates (every word up to a length, over an alphabet).
MAX_ALL_WORDS = 2_000_000


def word_count(n_symbols: int, max_len: int) -> int:
    """The number of words of length 0..max_len over ``n_symbols`` symbols."""
    return sum(n_symbols**n for n in range(max_len + 1))


def longest_enumerable(n_symbols: int, cap: int = 8) -> int:
    """The largest length ≤ ``cap`` whose words up to it number at most `MAX_ALL_WORDS`."""
    length = 0
    while length < cap and word_count(n_symbols, length + 1) <= MAX_ALL_WORDS:
        length += 1
    return length


@lru_cache(maxsize=16)
def all_words(n_symbols: int, max_len: int) -> tuple[np.ndarray, np.ndarray]:
    """Every word of length 0..max_len, shortest first: codes ``(B, max_len)`` and lengths
    (cached, read-only arrays). More than `MAX_ALL_WORDS` words are a `ConfigError`, raised
    before anything is allocated."""
    if max_len < 0:
        raise ConfigError(f"check up to length {max_len}: must be >= 0")
    if max_len > 64 or word_count(n_symbols, max_len) > MAX_ALL_WORDS:
        raise ConfigError(
            f"every word up to length {max_len} over {n_symbols} symbols is more than "
            f"MAX_ALL_WORDS = {MAX_ALL_WORDS:,} words; check up to length "
            f"{longest_enumerable(n_symbols, max(0, min(max_len, 64)))} at most (--check-up-to)")
    rows, lengths = [], []
    for n in range(max_len + 1):
        block = np.indices((n_symbols,) * n).reshape(n, -1).T if n else np.zeros((1, 0), int)
        rows.append(np.pad(block, ((0, 0), (0, max_len - n))))
        lengths.append(np.full(block.shape[0], n))
    codes, sizes = np.concatenate(rows).astype(np.int64), np.concatenate(lengths).astype(np.int64)
    codes.setflags(write=False)
    sizes.setflags(write=False)
    return codes, sizes


@dataclass(frozen=True)
class Agreement:
    """How a model compares with a DFA on a set of words."""

    checked: int
    disagreements: int
    first: Word | None  # the shortest word on which they disagree
    dtype: str

    @property
    def agrees(self) -> bool:
        return self.disagreements == 0


def compare(model: Recognizer, dfa: DFA, codes: np.ndarray, lengths: np.ndarray,
            dtype: str = "float32") -> Agreement:
    """How ``model`` compares with ``dfa`` on padded words ``codes`` (B, W) of ``lengths``."""
    got = decide(model, codes, lengths, dtype=dtype)
    want = dfa.accepts_codes(codes, lengths) if len(lengths) else np.zeros(0, bool)
    bad = np.flatnonzero(got != want)
    first = None
    if len(bad):
        i = bad[np.argmin(lengths[bad])]
        first = dfa.alphabet.decode(codes[i, : lengths[i]])
    return Agreement(len(lengths), len(bad), first, dtype)


def check_agreement(
    model: Recognizer,
    dfa: DFA,
    *,
    up_to: int = 8,
    n_random: int = 8,
    max_length: int = 500,
    seed: int = 0,
    dtype: str = "float32",
) -> Agreement:
    """Compare with ``dfa`` on every word of length ≤ ``up_to`` and on ``n_random`` uniform
    random words (from ``seed``) with lengths spread evenly over ``up_to+1..max_length``
    (the longest is ``max_length``; fixed lengths let repeated checks reuse attention masks)."""
    s = dfa.n_symbols
    short, short_len = all_words(s, up_to)
    rng = np.random.default_rng(seed)
    long_len = np.linspace(max_length, up_to + 1, n_random).round().astype(np.int64) \
        if max_length > up_to else np.zeros(0, np.int64)
    width = max(up_to, int(long_len.max()) if len(long_len) else 0)
    codes = np.zeros((len(short_len) + len(long_len), width), dtype=np.int64)
    codes[: len(short_len), :up_to] = short
    codes[len(short_len) :] = rng.integers(0, s, size=(len(long_len), width))
    return compare(model, dfa, codes, np.concatenate([short_len, long_len]), dtype)


@dataclass(frozen=True, eq=False)
class TestSet:
    """A fixed, seeded word set for agreement lengths: codes (B, W), lengths (B,), DFA labels."""

    codes: np.ndarray
    lengths: np.ndarray
    labels: np.ndarray
    max_length: int


def precision_set(
    dfa: DFA, *, max_length: int = 500, per_length: int = 8, exhaustive: int = 8,
    seed: int = 0, max_exhaustive_words: int = 20000,
) -> TestSet:
    """All words up to ``exhaustive`` letters (fewer if that exceeds ``max_exhaustive_words``),
    then `balanced_words` with ``per_length`` words for each longer length, plus their
    `boundary_words` (one substitution that flips membership)."""
    s = dfa.n_symbols
    while exhaustive > 0 and sum(s**n for n in range(exhaustive + 1)) > max_exhaustive_words:
        exhaustive -= 1
    short, short_len = all_words(s, exhaustive)
    rng = np.random.default_rng(seed)
    codes, lengths = balanced_words(dfa, np.arange(exhaustive + 1, max_length + 1), per_length,
                                    rng)
    flipped = boundary_words(dfa, codes, lengths, rng)
    codes, lengths = np.concatenate([codes, flipped]), np.concatenate([lengths, lengths])
    keep = np.concatenate([np.ones(len(flipped), bool), (flipped != codes[: len(flipped)]).any(1)])
    codes, lengths = codes[keep], lengths[keep]
    width = max(codes.shape[1], exhaustive)
    codes = np.concatenate([np.pad(short, ((0, 0), (0, width - exhaustive))),
                            np.pad(codes, ((0, 0), (0, width - codes.shape[1])))])
    lengths = np.concatenate([short_len, lengths])
    return TestSet(codes, lengths, dfa.accepts_codes(codes, lengths), max_length)


def boundary_words(
    dfa: DFA, codes: np.ndarray, lengths: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Each word with one random letter substituted where that flips membership, else itself:
    near-boundary words such as b…bab…b ∈ Σ*aΣ* that uniform sampling rarely draws."""
    out = codes.copy()
    live = np.flatnonzero(lengths > 0)
    pos = (rng.random(len(live)) * lengths[live]).astype(np.int64)
    out[live, pos] = rng.integers(0, dfa.n_symbols, size=len(live))
    same = dfa.accepts_codes(out, lengths) == dfa.accepts_codes(codes, lengths)
    out[same] = codes[same]
    return out


def balanced_words(
    dfa: DFA, lengths: np.ndarray, per_length: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``per_length`` words of each length: half members, half non-members, each drawn exactly
    uniformly (one side fills in when the other has no word of that length)."""
    from expressivity.data.sampling import WordSampler

    lens = np.asarray(lengths, dtype=np.int64)
    top = int(lens.max()) if len(lens) else 0
    samplers = [WordSampler.build(d, top) for d in (dfa, complement(dfa))]
    have = [np.array([sm.count(int(n)) > 0 for n in lens], dtype=bool) for sm in samplers]
    half = per_length // 2
    want = [np.where(have[1], half, per_length) * have[0],
            np.where(have[0], per_length - half, per_length) * have[1]]
    parts, part_len = [np.zeros((0, top), np.int64)], [np.zeros(0, np.int64)]
    for sampler, k in zip(samplers, want, strict=True):
        sizes = np.repeat(lens, k)
        if len(sizes):
            drawn = sampler.sample_mixed(sizes, rng).astype(np.int64)
            parts.append(np.pad(drawn, ((0, 0), (0, top - drawn.shape[1]))))
            part_len.append(sizes)
    return np.concatenate(parts), np.concatenate(part_len)


def agreement_length(model: Recognizer, test: TestSet, dtype: str | torch.dtype = "float32") -> int:
    """Largest N ≤ ``test.max_length`` with agreement on every test word of length ≤ N (−1 if
    the model already errs on the empty word)."""
    got = decide(model, test.codes, test.lengths, dtype=dtype)
    bad = test.lengths[got != test.labels]
    return int(bad.min()) - 1 if len(bad) else test.max_length


def precision_report(
    model: Recognizer,
    dfa: DFA,
    *,
    dtypes: tuple[str, ...] = tuple(DTYPES),
    max_length: int = 500,
    per_length: int = 8,
    seed: int = 0,
) -> dict[str, int]:
    """Agreement length per dtype name on one `precision_set` (shared by all dtypes)."""
    test = precision_set(dfa, max_length=max_length, per_length=per_length, seed=seed)
    return {name: agreement_length(model, test, name) for name in dtypes}
