"""Building one labelled split: per-length balanced members and non-members, disjoint from train."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from expressivity.automata.dfa import DFA
from expressivity.automata.ops import canonical
from expressivity.data.dataset import Dataset, DatasetProvenance
from expressivity.data.negatives import edit_distance_to_language, perturbed_negatives
from expressivity.data.sampling import WordSampler, code_dtype, sample_distinct

if TYPE_CHECKING:
    from expressivity.data.split_config import SplitConfig

__all__ = ["Keys", "SetBuilder", "Sources", "dfa_hash", "seen", "spans"]

Keys = dict[tuple[int, bool], set[bytes]]


def dfa_hash(dfa: DFA) -> str:
    """SHA-256 of the canonical minimal DFA: equal for every DFA of the same language."""
    c = canonical(dfa)
    h = hashlib.sha256()
    h.update(",".join(c.alphabet.symbols).encode())
    h.update(np.int64(c.initial).tobytes())
    h.update(np.asarray(c.transitions.shape, dtype=np.int64).tobytes())
    h.update(c.transitions.astype("<i8").tobytes())
    h.update(c.accepting.astype(np.uint8).tobytes())
    return h.hexdigest()


@dataclass(frozen=True)
class Sources:
    """The language's DFA with exact samplers of its members and of its non-members."""

    dfa: DFA
    positives: WordSampler
    negatives: WordSampler  # samples the complement


class Columns:
    """Accumulates examples block by block, then becomes a `Dataset`."""

    def __init__(self) -> None:
        self.words: list[np.ndarray] = []
        self.cols: dict[str, list[Any]] = {
            k: []
            for k in (
                "labels",
                "kind",
                "edits",
                "distance",
                "pair_id",
                "family",
                "fragment",
                "depth",
            )
        }

    def add(self, words: Collection[np.ndarray], label: bool, kind: str, **cols: Any) -> None:
        n = len(words)
        self.words.extend(words)
        defaults = {
            "edits": 0,
            "distance": 0 if label else -1,
            "pair_id": -1,
            "family": "",
            "fragment": "",
            "depth": -1,
        }
        self.cols["labels"].extend([label] * n)
        self.cols["kind"].extend([kind] * n)
        for key, default in defaults.items():
            value = cols.get(key, default)
            self.cols[key].extend(np.broadcast_to(np.asarray(value), (n,)).tolist())

    def dataset(self, alphabet: Any, split: str, provenance: DatasetProvenance) -> Dataset:
        n = len(self.words)
        cols = {k: v for k, v in self.cols.items() if k != "labels"}
        return Dataset.from_words(
            alphabet, self.words, self.cols["labels"], provenance, split=[split] * n, **cols
        )


class SetBuilder:
    """Draws one split from a length plan ``{length: examples}``; collects word keys and notes."""

    def __init__(
        self,
        src: Sources,
        config: SplitConfig,
        split: str,
        provenance: DatasetProvenance,
        exclude: Keys | None,
    ) -> None:
        self.src, self.config, self.split, self.provenance = src, config, split, provenance
        self.exclude: Keys = exclude or {}
        self.distinct = exclude is not None and config.distinct_heldout
        self.keys: Keys = {}
        self._events: dict[str, list[tuple[int, int, int]]] = {}  # what -> (length, got, wanted)
        self._cols = Columns()

    def _event(self, what: str, n: int, got: int = 0, wanted: int = 0) -> None:
        self._events.setdefault(what, []).append((n, got, wanted))

    def notes(self) -> tuple[str, ...]:
        """Human-readable reports, one per kind of event, with the lengths it happened at."""
        out = []
        for what, events in self._events.items():
            got, wanted = sum(e[1] for e in events), sum(e[2] for e in events)
            counts = f" ({got} of {wanted})" if wanted else ""
            out.append(f"{what}{counts} at lengths {spans([e[0] for e in events])}")
        return tuple(out)

    def build(
        self,
        plan: Mapping[int, int | tuple[int, int]],
        rng_for: Callable[[int], np.random.Generator],
    ) -> Dataset:
        """Every length of ``plan`` in increasing order, each from its own generator.

        A plan entry is a total (half members where the length has both) or a pair
        (members, non-members); a length with only one label left gets the whole entry in it.
        """
        for n in sorted(plan):
            self._length(n, plan[n], rng_for(n))
        return self._cols.dataset(self.src.dfa.alphabet, self.split, self.provenance)

    def _record(self, n: int, label: bool, words: np.ndarray) -> None:
        self.keys.setdefault((n, label), set()).update(w.tobytes() for w in words)

    def _draw(
        self,
        sampler: WordSampler,
        n: int,
        k: int,
        label: bool,
        extra: set[bytes],
        rng: np.random.Generator,
    ) -> np.ndarray:
        exclude = self.exclude.get((n, label), set()) | extra
        avail = sampler.count(n) - len(exclude)
        if k == 0 or avail <= 0:
            if k:
                self._event(f"no unseen {'member' if label else 'non-member'} left", n, 0, k)
            return np.empty((0, n), dtype=code_dtype(sampler.dfa.n_symbols))
        if self.distinct:
            if avail < k:
                which = "members" if label else "non-members"
                policy = self.config.shortfall
                self._event(f"too few distinct unseen {which} ({policy})", n, avail, k)
            return sample_distinct(sampler, n, k, rng, exclude, self.config.shortfall)
        if not exclude:
            return sampler.sample(n, k, rng)
        if 4 * avail < sampler.count(n):  # mostly excluded: draw from the enumerated rest
            pool = sample_distinct(sampler, n, avail, rng, exclude, "truncate")
            return pool[rng.integers(0, pool.shape[0], size=k)]
        out: list[np.ndarray] = []
        while len(out) < k:
            out.extend(
                w
                for w in sampler.sample(n, 2 * (k - len(out)) + 8, rng)
                if w.tobytes() not in exclude
            )
        return np.stack(out[:k])

    def _length(self, n: int, want: int | tuple[int, int], rng: np.random.Generator) -> None:
        cfg, pos, neg = self.config, self.src.positives, self.src.negatives
        avail_pos = pos.count(n) - len(self.exclude.get((n, True), ()))
        avail_neg = neg.count(n) - len(self.exclude.get((n, False), ()))
        total = want if isinstance(want, int) else sum(want)
        if avail_pos > 0 and avail_neg > 0:
            n_pos = total // 2 if isinstance(want, int) else want[0]
        elif avail_pos > 0 or avail_neg > 0:
            n_pos = total if avail_pos > 0 else 0
            if isinstance(want, int) or want[int(avail_pos > 0)]:  # a wanted label is missing
                self._event(f"only {'members' if n_pos else 'non-members'} (unbalanced)", n)
        else:
            self._event("no unseen word (skipped)", n)
            return
        n_neg = total - n_pos
        positives = self._draw(pos, n, n_pos, True, set(), rng)
        self._cols.add(list(positives), True, "positive")
        self._record(n, True, positives)
        n_pert = (
            round(n_neg * cfg.perturbed_fraction)
            if not self.distinct or avail_neg > 2 * n_neg
            else 0
        )
        pert, edits = perturbed_negatives(
            pos,
            n,
            n_pert,
            rng,
            p=cfg.perturb_p,
            exclude=self.exclude.get((n, False), set()),
            distinct=self.distinct,
            budget=cfg.perturb_budget,
        )
        if pert.shape[0] < n_pert:
            self._event(
                "perturbed negatives found within budget, rest uniform", n, pert.shape[0], n_pert
            )
        uniform = self._draw(
            neg,
            n,
            n_neg - pert.shape[0],
            False,
            {w.tobytes() for w in pert} if self.distinct else set(),
            rng,
        )
        if pert.shape[0]:
            dist = (
                edit_distance_to_language(self.src.dfa, pert) if cfg.distance_for != "none" else -1
            )
            self._cols.add(list(pert), False, "perturbed", edits=edits, distance=dist)
        if uniform.shape[0]:
            dist = (
                edit_distance_to_language(self.src.dfa, uniform)
                if cfg.distance_for == "negatives"
                else -1
            )
            self._cols.add(list(uniform), False, "negative", distance=dist)
        self._record(n, False, pert)
        self._record(n, False, uniform)


def spans(values: list[int]) -> str:
    """Compact sorted integers: ``41-45, 47, 49-99 step 2``."""
    vals = sorted(set(values))
    parts, i = [], 0
    while i < len(vals):
        j = i + 1
        step = vals[j] - vals[i] if j < len(vals) else 1
        while j < len(vals) and vals[j] - vals[j - 1] == step:
            j += 1
        if j - i >= 3:
            parts.append(f"{vals[i]}-{vals[j - 1]}" + (f" step {step}" if step > 1 else ""))
            i = j
        else:
            parts.append(str(vals[i]))
            i += 1
    return ", ".join(parts)


def seen(keys: Keys, word: np.ndarray, label: bool, dtype: type[np.signedinteger]) -> bool:
    """Whether ``word`` (any integer dtype) is among ``keys`` under ``label``."""
    return word.astype(dtype).tobytes() in keys.get((word.size, label), ())
