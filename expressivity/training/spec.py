"""Run specifications and run records: the values passed between training and sweeps."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from expressivity.config import from_mapping, stable_hash, to_plain
from expressivity.errors import ConfigError
from expressivity.training.profiles import Profile, get_profile
from expressivity.training.train_config import MAX_STEPS, Schedule, TrainConfig

__all__ = [
    "MAX_SEED", "MAX_STEPS", "AdversarialMetric", "LengthMetric", "RunRecord", "RunSpec",
    "Schedule", "ShortWordMetric", "TrainConfig", "run_grid", "run_spec", "without_threads",
]

#: The largest run seed: a results store keeps seeds as SQLite INTEGERs (signed 64 bits).
MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines one training run; its hash is the run id.

    ``model`` and ``data`` hold overrides of the profile's `ModelConfig` and `SplitConfig`
    fields (validated when the run is resolved), so a spec stays a small plain value.
    """

    language: str  # catalogue name, formula or regex
    layout: str = "global"  # attention layout spelling (models.layouts)
    profile: str = "quick"  # defaults for model, data and training (training.profiles)
    seed: int = 0
    alphabet: str | None = None  # override of the language's alphabet ("a,b,c")
    #: Optimisation settings; left out (None), the profile's `TrainConfig` and first learning rate.
    train: TrainConfig = None  # type: ignore[assignment]
    model: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.language.strip():
            raise ConfigError("language: must not be empty")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed: must be a non-negative integer, got {self.seed!r}")
        if self.seed > MAX_SEED:
            raise ConfigError(
                f"seed: {self.seed} is above the largest seed a results store holds "
                f"(MAX_SEED = 2**63 - 1, SQLite's INTEGER); use a smaller seed"
            )
        if self.train is None:
            train = run_spec(self.language, profile=self.profile).train
            object.__setattr__(self, "train", train)

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "") -> RunSpec:
        """Validated construction from a plain mapping (JSON/TOML)."""
        return from_mapping(cls, data, where)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (round-trips through `from_dict`)."""
        out: dict[str, Any] = to_plain(self)
        return out

    def with_train(self, **changes: Any) -> RunSpec:
        """A copy with some `TrainConfig` fields changed."""
        return replace(self, train=replace(self.train, **changes))

    @functools.cached_property
    def run_id(self) -> str:
        """Stable id: hash of the resolved spec and the toolkit version.

        ``train.threads`` is left out: it is how a run is executed (set by the executor from
        ``--jobs``), not what is computed, so a run keeps its id and checkpoint across
        ``--jobs`` settings. The plateau rule's fields are left out while it is off
        (``plateau == 0``), so runs specified before the rule existed keep their ids and stores;
        so is ``plateau_rule`` while it is the original "gain". Likewise ``batching`` and
        ``bucket_width`` are left out under the ``uniform`` sampler (the only one before them):
        uniform runs keep their ids, bucketed runs (other batches, other weights) get new ones.
        ``step_penalty`` is left out while it is 0 (the only value before it existed), and
        ``step_penalty_cap`` and ``step_penalty_start`` likewise, and ``step_penalty_channels``
        while it is 1 (every channel pays, as before it existed), ``step_penalty_form`` while it
        is "step"; ``write_penalty``, ``write_penalty_start``, ``decay_start`` and
        ``patience_start`` while they are 0, ``write_penalty_form`` while it is "l1".
        """
        from expressivity._version import __version__

        spec = self.to_dict()
        del spec["train"]["threads"]
        if not spec["train"]["plateau"]:
            del spec["train"]["plateau"], spec["train"]["plateau_delta"]
        if spec["train"].get("plateau_rule") in ("gain", None) or "plateau" not in spec["train"]:
            spec["train"].pop("plateau_rule", None)
        if spec["train"]["batching"] == "uniform":
            del spec["train"]["batching"], spec["train"]["bucket_width"]
        for name in ("step_penalty", "step_penalty_cap", "step_penalty_start", "write_penalty",
                     "write_penalty_start", "decay_start", "patience_start"):
            if not spec["train"].get(name):
                spec["train"].pop(name, None)
        if spec["train"].get("step_penalty_channels", 1.0) == 1.0:
            spec["train"].pop("step_penalty_channels", None)
        if spec["train"].get("step_penalty_form", "step") == "step":
            spec["train"].pop("step_penalty_form", None)
        if spec["train"].get("write_penalty_form", "l1") == "l1":
            spec["train"].pop("write_penalty_form", None)
        return stable_hash({"spec": spec, "version": __version__})


def without_threads(spec: dict[str, Any]) -> dict[str, Any]:
    """A spec dict (`RunSpec.to_dict`) without ``train.threads``: how a run is executed, which
    a resume may change, as the run id leaves it out."""
    return {**spec, "train": {k: v for k, v in spec.get("train", {}).items() if k != "threads"}}


@dataclass(frozen=True)
class LengthMetric:
    """Accuracy of a run at one test length."""

    length: int
    n: int
    correct: int
    true_pos: int = 0
    true_neg: int = 0
    false_pos: int = 0
    false_neg: int = 0

    @property
    def accuracy(self) -> float:
        """correct / n (1.0 for an empty length)."""
        return self.correct / self.n if self.n else 1.0


@dataclass(frozen=True)
class AdversarialMetric:
    """Accuracy of a run on one family of adversarial examples (e.g. pairs fooling LTL[P])."""

    kind: str
    n: int
    correct: int

    @property
    def accuracy(self) -> float:
        """correct / n (1.0 when the family is empty)."""
        return self.correct / self.n if self.n else 1.0


@dataclass(frozen=True)
class ShortWordMetric:
    """A run on the short split (`data.short_words`): every word up to ``max_length`` (or a
    fixed sample of them), stored as ``extra["short_words"]``."""

    n: int
    correct: int
    max_length: int
    errors: tuple[str, ...] = ()  # the first few misjudged words ("" = the empty word)

    @property
    def perfect(self) -> bool:
        """Right on every short word (and there was at least one)."""
        return self.n > 0 and self.correct == self.n

    def to_dict(self) -> dict[str, Any]:
        """The JSON form kept in ``RunRecord.extra``."""
        return {"n": self.n, "correct": self.correct, "max_length": self.max_length,
                "errors": list(self.errors)}

    @classmethod
    def from_extra(cls, extra: Mapping[str, Any]) -> ShortWordMetric | None:
        """The metric a record's ``extra`` holds, or None for a run not tested on short words
        (records made before the split existed, or with "short" left out of data.splits)."""
        doc = extra.get("short_words") if isinstance(extra, Mapping) else None
        if not isinstance(doc, Mapping):
            return None
        try:
            return cls(int(doc["n"]), int(doc["correct"]), int(doc["max_length"]),
                       tuple(str(e) for e in doc.get("errors", ())))
        except (KeyError, TypeError, ValueError):
            return None


@dataclass(frozen=True)
class RunRecord:
    """The outcome of one run: status, per-length and adversarial metrics, summary numbers."""

    run_id: str
    spec: RunSpec
    status: Literal["completed", "failed"]
    error: str = ""
    lengths: tuple[LengthMetric, ...] = ()
    adversarial: tuple[AdversarialMetric, ...] = ()
    train_accuracy: float = float("nan")
    val_accuracy: float = float("nan")
    steps: int = 0
    wall_time: float = 0.0
    n_parameters: int = 0
    tokens_per_second: float = 0.0
    checkpoint: str = ""
    max_train_length: int = 40
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def test_accuracy(self) -> float:
        """Accuracy over all test lengths pooled."""
        n = sum(m.n for m in self.lengths)
        return sum(m.correct for m in self.lengths) / n if n else float("nan")

    @property
    def adversarial_accuracy(self) -> float:
        """Accuracy over all adversarial examples pooled (nan when there are none)."""
        n = sum(m.n for m in self.adversarial)
        return sum(m.correct for m in self.adversarial) / n if n else float("nan")

    @property
    def n_star(self) -> int:
        """Longest perfect length N*: the largest N with 100 % at every tested length ≤ N.

        Lengths up to the training maximum count as tested only if present; with no perfect
        prefix the value is the training maximum when the first tested length fails.
        """
        best = self.max_train_length
        for m in sorted(self.lengths, key=lambda m: m.length):
            if m.correct != m.n:
                break
            best = max(best, m.length)
        return best

    @property
    def short_words(self) -> ShortWordMetric | None:
        """The run on the short split, or None if it was not tested on short words."""
        return ShortWordMetric.from_extra(self.extra)

    @property
    def perfect_on_test(self) -> bool:
        """The papers' criterion for one run: 100 % on the random test set alone."""
        return self.status == "completed" and bool(self.lengths) and all(
            m.correct == m.n for m in self.lengths)

    @property
    def recognized(self) -> bool:
        """Our verdict for one run: 100 % on the test set, on the adversarial set and on the
        short split. A run not tested on short words (`short_words` is None) is not recognized."""
        short = self.short_words
        return self.perfect_on_test and all(m.correct == m.n for m in self.adversarial) and (
            short is not None and short.perfect)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the record (summary properties included)."""
        out: dict[str, Any] = to_plain(self)
        out.update(
            test_accuracy=self.test_accuracy,
            adversarial_accuracy=self.adversarial_accuracy,
            n_star=self.n_star,
            recognized=self.recognized,
        )
        return out


def run_spec(
    language: str, layout: str = "global", profile: str | Profile = "quick", *,
    seed: int | None = None, lr: float | None = None, alphabet: str | None = None,
    model: Mapping[str, Any] | None = None, data: Mapping[str, Any] | None = None,
    **train_changes: Any,
) -> RunSpec:
    """A `RunSpec` on ``profile`` (a name or a `Profile`): its `TrainConfig` with ``lr`` and
    ``train_changes`` applied (validated), the first seed and learning rate unless given."""
    prof = get_profile(profile) if isinstance(profile, str) else profile
    changes = {"lr": prof.learning_rates[0] if lr is None else lr, **train_changes}
    train = from_mapping(TrainConfig, {**to_plain(prof.train), **changes}, "train")
    return RunSpec(
        language=language, layout=layout, profile=prof.name,
        seed=prof.seeds[0] if seed is None else seed, alphabet=alphabet, train=train,
        model=dict(model or {}), data=dict(data or {}),
    )


def run_grid(
    language: str, layout: str = "global", profile: str | Profile = "quick", **kwargs: Any
) -> list[RunSpec]:
    """The papers' grid for one language and layout: every seed × learning rate of ``profile``."""
    prof = get_profile(profile) if isinstance(profile, str) else profile
    return [
        run_spec(language, layout, prof, seed=s, lr=lr, **kwargs)
        for lr in prof.learning_rates
        for s in prof.seeds
    ]
