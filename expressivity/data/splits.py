"""Length-generalization splits: train, short and long validation, long test, adversarial test.

`make_splits` is the one entry point training calls. Protocol (docs/theory.md §5, [FLaRe]): a
positive's length is drawn from the configured distribution (default: uniform over the
lengths that have members), then the word uniformly among members of that length; each
length gets as many negatives as positives where it has both (half uniform non-members, half
perturbed positives), all of one label where it has only one — reported in `notes` — and the
examples a one-label length owes go to lengths that have that label, so every split holds both
classes (else `make_splits` raises `SamplingError`). Train is
drawn first; validation and test exclude every train word (and are distinct within each
length and label by default). The adversarial split holds edit-distance-1 pairs and the
fragment-fooling pairs of `pairs` (built by `adversarial`). The short split holds every word
up to ``short_max_length`` (or a fixed sample of ``short_size`` words for larger alphabets,
`short_words`): a run is recognized only when it is right on those too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from expressivity._version import __version__
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import complement
from expressivity.data.adversarial import adversarial_set
from expressivity.data.dataset import Dataset, DatasetProvenance
from expressivity.data.heldout import SetBuilder, Sources, dfa_hash
from expressivity.data.sampling import LengthDistribution, WordSampler, sample_lengths, within_class
from expressivity.data.short_words import describe, short_words
from expressivity.data.split_config import SPLITS, SplitConfig
from expressivity.data.train_hard import hard_training_set
from expressivity.errors import ConfigError, SamplingError

__all__ = ["SPLITS", "DatasetSplits", "SplitConfig", "make_splits"]

_MARGIN = 32  # extra sampler length for perturbation sources (longer than the target)


@dataclass(frozen=True)
class DatasetSplits(Mapping[str, Dataset]):
    """The datasets of one `make_splits` call by split name, with per-split ``notes``."""

    datasets: Mapping[str, Dataset]
    notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Dataset:
        try:
            return self.datasets[name]
        except KeyError:
            raise ConfigError(f"no split {name!r}; have {', '.join(self.datasets)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.datasets)

    def __len__(self) -> int:
        return len(self.datasets)

    def save(self, directory: str | Path) -> Path:
        """Each split into ``directory/<split>/`` plus ``splits.json`` with the notes."""
        out = Path(directory)
        for name, ds in self.datasets.items():
            ds.save(out / name)
        doc = {"splits": list(self.datasets), "notes": {k: list(v) for k, v in self.notes.items()}}
        (out / "splits.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", "utf-8")
        return out

    @classmethod
    def load(cls, directory: str | Path) -> DatasetSplits:
        """Read splits written by `save`."""
        src = Path(directory)
        doc = json.loads((src / "splits.json").read_text("utf-8"))
        datasets = {name: Dataset.load(src / name) for name in doc["splits"]}
        return cls(datasets, {k: tuple(v) for k, v in doc["notes"].items()})


def _sized_plan(
    src: Sources,
    lengths: tuple[int, int],
    size: int,
    dist: LengthDistribution,
    rng: np.random.Generator,
    owed_rng: np.random.Generator,
) -> dict[int, tuple[int, int]]:
    """(members, non-members) per length of a sized set of ``size // 2`` pairs.

    The pairs are placed by the length distribution over the members' lengths; a pair whose
    length has no non-member (or no member) owes that example, and the owed ones are placed by
    the same distribution over the lengths that have that class [FLaRe], so a language where
    every length is all members or all non-members still gets both classes. ``"uniform"``
    places pairs at every length, one with no member too (so ε reaches train where ε is the
    only word of its length and a non-member); its owed examples go uniformly to the lengths
    that have their class (`within_class`).
    """
    span = list(range(lengths[0], lengths[1] + 1))
    pos, neg = src.positives, src.negatives
    pairs = sample_lengths(pos, span, size // 2, rng, dist) if size >= 2 else np.empty(0, np.int64)
    counts = np.bincount(pairs - lengths[0], minlength=len(span))
    plan: dict[int, list[int]] = {}
    owed = [0, 0]  # members, non-members
    for n, c in zip(span, counts.tolist(), strict=True):
        has = (pos.count(n) > 0, neg.count(n) > 0)
        if not c or not any(has):
            continue
        plan[n] = [c if has[0] else 0, c if has[1] else 0]
        owed[0] += 0 if has[0] else c
        owed[1] += 0 if has[1] else c
    for label, sampler in enumerate((pos, neg)):
        if owed[label] and any(sampler.count(n) for n in span):
            owed_at = sample_lengths(sampler, span, owed[label], owed_rng, within_class(dist))
            for n in owed_at.tolist():
                plan.setdefault(n, [0, 0])[label] += 1
    return {n: (p, q) for n, (p, q) in sorted(plan.items())}


def _check_classes(datasets: Mapping[str, Dataset], config: SplitConfig, src: Sources) -> None:
    """A `SamplingError` for a split of one class because the other has no word in its range.

    (A held-out split can still lack a class whose every word of its lengths is in train:
    its notes say so.)
    """
    for name, ds in datasets.items():
        if name in ("adversarial", "short") or not len(ds):
            continue
        lo, hi = getattr(config, f"{name}_lengths")
        for label, what, sampler in ((True, "member", src.positives),
                                     (False, "non-member", src.negatives)):
            if not (ds.labels == label).any() and not any(
                sampler.count(n) for n in range(lo, hi + 1)
            ):
                raise SamplingError(
                    f"split {name!r} would hold one class: the language has no {what} of "
                    f"length {lo}..{hi} (one class teaches or tests nothing); widen "
                    f"data.{name}_lengths or choose another language"
                )


def make_splits(
    dfa: DFA,
    config: SplitConfig | None = None,
    seed: int = 0,
    *,
    name: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> DatasetSplits:
    """Build the configured splits for a language.

    ``dfa`` is the language (text is resolved at the edge first: ``resolve(text).dfa``);
    ``name`` labels it in the provenance. Every split draws from its own
    ``SeedSequence(seed, spawn_key=(split, ...))`` stream, per length, so the same seed gives
    identical arrays (and byte-identical saved files). ``progress(split)`` is called as
    each split is started (train first).
    """
    config = config or SplitConfig()
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(dfa, DFA):
        raise ConfigError(
            f"make_splits takes a DFA, got {type(dfa).__name__}: resolve text first, e.g. "
            "make_splits(expressivity.resolve.resolve(text).dfa, config, seed, name=text)"
        )
    language = name or f"dfa:{dfa_hash(dfa)[:12]}"
    top = max(
        config.train_lengths[1],
        config.val_short_lengths[1],
        config.val_long_lengths[1],
        config.test_lengths[1],
        config.adversarial_lengths[1],
    )
    src = Sources(
        dfa, WordSampler.build(dfa, top + _MARGIN), WordSampler.build(complement(dfa), top)
    )
    digest = dfa_hash(dfa)

    def provenance(split: str) -> DatasetProvenance:
        return DatasetProvenance(language, digest, seed, config.to_json(), __version__, split)

    def rng(*key: int) -> np.random.Generator:
        return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))

    datasets: dict[str, Dataset] = {}
    notes: dict[str, tuple[str, ...]] = {}
    report = progress or (lambda split: None)
    report("train")
    train_builder = SetBuilder(src, config, "train", provenance("train"), exclude=None)
    plan: Mapping[int, int | tuple[int, int]] = _sized_plan(
        src, config.train_lengths, config.train_size, config.length_distribution,
        rng(0, 0), rng(0, 2),
    )
    train = train_builder.build(plan, lambda n: rng(0, 1, n))
    train_keys = train_builder.keys
    train_notes = train_builder.notes()
    if config.train_hard_pairs or config.train_adversarial_pairs:
        hard, hard_notes = hard_training_set(src, config, provenance("train"), train_keys,
                                             rng(6, 0))
        train, train_notes = Dataset.concat([train, hard]), train_notes + hard_notes
    if "train" in config.splits:
        datasets["train"], notes["train"] = train, train_notes
    for index, split in enumerate(SPLITS[1:4], start=1):
        if split not in config.splits:
            continue
        report(split)
        builder = SetBuilder(src, config, split, provenance(split), exclude=train_keys)
        if split == "test":
            lo, hi = config.test_lengths
            plan = {n: config.test_per_length for n in range(lo, hi + 1)}
        else:
            size = getattr(config, f"{split}_size")
            span = getattr(config, f"{split}_lengths")
            plan = _sized_plan(
                src, span, size, config.length_distribution, rng(index, 0), rng(index, 2)
            )
        datasets[split] = builder.build(plan, lambda n, i=index: rng(i, 1, n))  # type: ignore[misc]
        notes[split] = builder.notes()
    if "adversarial" in config.splits:
        report("adversarial")
        datasets["adversarial"], notes["adversarial"] = adversarial_set(
            src, config, provenance("adversarial"), train_keys, rng(4, 0)
        )
    if "short" in config.splits:
        report("short")
        datasets["short"] = short_words(dfa, config.short_max_length, config.short_size,
                                        provenance("short"))
        notes["short"] = (describe(datasets["short"], config.short_max_length),)
    _check_classes(datasets, config, src)
    return DatasetSplits(datasets, notes)
