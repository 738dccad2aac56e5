"""`SplitConfig`: every knob of the length-generalization splits (`data.splits.make_splits`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from expressivity.config import to_plain
from expressivity.data.sampling import LengthDistribution, Shortfall
from expressivity.errors import ConfigError

__all__ = ["MAX_LENGTH", "MAX_SHORT_LENGTH", "MAX_SHORT_SIZE", "SPLITS", "SplitConfig"]

SPLITS = ("train", "val_short", "val_long", "test", "adversarial", "short")
#: Longest word ``short_max_length`` may ask for (the split enumerates words up to it).
MAX_SHORT_LENGTH = 16
#: Most words ``short_size`` may ask for.
MAX_SHORT_SIZE = 100_000
DistanceFor = Literal["none", "perturbed", "negatives"]
#: Longest word any split may ask for.
MAX_LENGTH = 10_000


@dataclass(frozen=True)
class SplitConfig:
    """Every knob of `make_splits`; the defaults are the paper protocol (docs/theory.md §5)."""

    splits: tuple[str, ...] = SPLITS  # which splits to return (train is always drawn)
    train_lengths: tuple[int, int] = (0, 40)  # inclusive length range
    train_size: int = 10_000  # examples (drawn as balanced pairs per length)
    val_short_lengths: tuple[int, int] = (0, 40)
    val_short_size: int = 1_000
    val_long_lengths: tuple[int, int] = (0, 80)
    val_long_size: int = 1_000
    length_distribution: LengthDistribution = "flare"  # "flare" | "uniform" | "members"
    test_lengths: tuple[int, int] = (41, 500)
    test_per_length: int = 512  # examples per length, half positive where possible
    distinct_heldout: bool = True  # no repeated word within a (split, length, label)
    shortfall: Shortfall = (
        "repeat"  # too few distinct unseen words: "repeat" | "truncate" | "error"
    )
    perturbed_fraction: float = 0.5  # share of negatives made by perturbing positives
    perturb_p: float = 0.5  # number of edits ~ Geometric(perturb_p) on 1, 2, ...
    perturb_budget: int = 16  # candidates per perturbed negative before falling back to uniform
    distance_for: DistanceFor = "perturbed"  # which negatives get their exact edit distance
    adversarial_lengths: tuple[int, int] = (41, 500)
    hard_pairs: int = 256  # edit-distance-1 (member, non-member) pairs
    hard_edits: tuple[str, ...] = ("insert", "replace", "delete")
    adversarial_per_family: int = 32  # LC25 pairs, and LC26 pairs per window
    lc26_windows: tuple[int, ...] = (1, 2, 4)
    type_fragments: tuple[str, ...] = ("Y", "Y<=2", "P", "P,Y", "P,Y<=2")
    type_depth: int = 2
    type_max_len: int = 10  # equal-type search: longest word tried
    type_max_nodes: int = 20_000  # equal-type search: (type state, DFA state) pairs visited
    #: the short split (`short_words`): every word of length 0..short_max_length when they
    #: number at most short_size (2 letters: 2^9 - 1 = 511), else a fixed sample of that size
    short_max_length: int = 8
    short_size: int = 511
    #: training levers (`train_hard`, off by default): edit-distance-1 pairs and [LC25]/[LC26]
    #: pairs (per family) at train lengths, added to train before any held-out split is drawn
    train_hard_pairs: int = 0
    train_adversarial_pairs: int = 0

    def __post_init__(self) -> None:
        for name in self.splits:
            if name not in SPLITS:
                raise ConfigError(
                    f"splits: unknown split {name!r}; choose from {', '.join(SPLITS)}"
                )
        for name in ("train", "val_short", "val_long", "test", "adversarial"):
            key = f"{name}_lengths"
            lo, hi = getattr(self, key)
            if not 0 <= lo <= hi:
                raise ConfigError(f"{key}: need 0 <= min <= max, got {(lo, hi)}")
            if hi > MAX_LENGTH:
                raise ConfigError(
                    f"{key}: lengths up to {MAX_LENGTH:,} (limit MAX_LENGTH in "
                    f"expressivity/data/split_config.py), got {hi:,}: exact samplers keep a count "
                    "table per length; the paper protocol tests lengths up to 500"
                )
        for key in (
            "train_size",
            "val_short_size",
            "val_long_size",
            "test_per_length",
            "hard_pairs",
            "train_hard_pairs",
            "train_adversarial_pairs",
        ):
            if getattr(self, key) < 0:
                raise ConfigError(f"{key}: must be >= 0, got {getattr(self, key)}")
        if not 0.0 <= self.perturbed_fraction <= 1.0:
            raise ConfigError(
                f"perturbed_fraction: must be in [0, 1], got {self.perturbed_fraction}"
            )
        if not 0.0 < self.perturb_p <= 1.0:
            raise ConfigError(f"perturb_p: must be in (0, 1], got {self.perturb_p}")
        bad = set(self.hard_edits) - {"insert", "replace", "delete"}
        if bad or not self.hard_edits:
            raise ConfigError(f"hard_edits: use insert, replace, delete; got {self.hard_edits}")
        if not 0 <= self.short_max_length <= MAX_SHORT_LENGTH:
            raise ConfigError(
                f"short_max_length: must be in 0..{MAX_SHORT_LENGTH} (limit MAX_SHORT_LENGTH in "
                f"expressivity/data/split_config.py), got {self.short_max_length}"
            )
        if not 1 <= self.short_size <= MAX_SHORT_SIZE:
            raise ConfigError(
                f"short_size: must be in 1..{MAX_SHORT_SIZE:,} (limit MAX_SHORT_SIZE in "
                f"expressivity/data/split_config.py), got {self.short_size}; leave \"short\" out "
                "of data.splits to skip the split"
            )
        if any(k < 1 for k in self.lc26_windows) or self.type_depth < 0:
            raise ConfigError("lc26_windows must be >= 1 and type_depth >= 0")

    @classmethod
    def quick(cls, **overrides: Any) -> SplitConfig:
        """A scaled-down profile for a laptop CPU (same protocol, fewer and shorter strings)."""
        base: dict[str, Any] = dict(
            train_size=2_000,
            val_short_size=256,
            val_long_size=256,
            val_long_lengths=(0, 60),
            test_lengths=(41, 100),
            test_per_length=32,
            adversarial_lengths=(41, 100),
            hard_pairs=64,
            adversarial_per_family=8,
        )
        return cls(**{**base, **overrides})

    def to_json(self) -> str:
        """Canonical JSON of every field (stored in provenance)."""
        return json.dumps(to_plain(self), sort_keys=True, separators=(",", ":"))
