"""The whole flow in one place: text → formula → DFA → classes → data splits → model → metrics.

Each stage is a narrow typed function of the previous stage's value plus an explicit seed;
text is turned into a language only at the edge (`language`, the CLI and sweep spec loading),
and every stage below takes typed values::

    source = language("LT-2")                      # catalogue name, formula or regex → Source
    verdicts = classify(source.dfa)                # Classification (classes, attention types)
    splits = make_splits(source.dfa, SplitConfig(), seed=0, name=source.name)
    fitted = train(splits, ModelConfig(), TrainConfig(), seed=0, source=source)
    record = evaluate(fitted)                      # RunRecord: per-length metrics

`run` composes them for one `RunSpec` and gives the same record as `training.train(spec)`
(which is this flow plus checkpoints, resumption and failure records): both call the same
split builder and the same loop (`training.loop.fit`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from expressivity.algebra.classification import Classification
from expressivity.algebra.classify import classify as _classify
from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula
from expressivity.automata.dfa import DFA
from expressivity.config import from_mapping
from expressivity.data.splits import DatasetSplits, SplitConfig
from expressivity.data.splits import make_splits as _make_splits
from expressivity.errors import ConfigError
from expressivity.logic.parser import parse
from expressivity.logic.syntax import Formula
from expressivity.models.config import ModelConfig
from expressivity.resolve import Source, resolve
from expressivity.training.loop import Fitted, evaluate_fitted, fit
from expressivity.training.prepare import Prepared, check_spec, dataset_hash
from expressivity.training.profiles import get_profile
from expressivity.training.spec import RunRecord, RunSpec, TrainConfig
from expressivity.training.state import compute_threads

__all__ = [
    "Result", "classify", "compile", "evaluate", "language", "make_splits", "parse", "run",
    "train",
]


def language(
    text: str, alphabet: Alphabet | str | None = None, *, at: str | None = None,
    logic: str | None = None,
) -> Source:
    """The edge: a catalogue name, formula or regex as a `Source` (its DFA, formula, alphabet);
    ``logic="ltlf"`` reads a formula as LTLf (`expressivity.logic.ltlf`)."""
    return resolve(text, alphabet, at=at, logic=logic)


def compile(formula: Formula, alphabet: Alphabet | str) -> DFA:
    """The canonical minimal DFA of a formula (`automata.compile.compile_formula`)."""
    return compile_formula(formula, alphabet)


def classify(
    dfa: DFA, ks: tuple[int, ...] = (1, 2, 4), *, name: str | None = None
) -> Classification:
    """Algebraic classes, witnesses and predicted attention layouts of a DFA's language."""
    return _classify(dfa, ks, name=name)


def make_splits(dfa: DFA, config: SplitConfig, seed: int, *, name: str) -> DatasetSplits:
    """Train, validation, test and adversarial datasets of a language (seeded, exact)."""
    return _make_splits(dfa, config, seed, name=name)


def train(
    splits: DatasetSplits, model: ModelConfig, config: TrainConfig, seed: int, *,
    source: Source, spec: RunSpec | None = None, quiet: bool = True,
) -> Fitted:
    """Train a recognizer on ``splits`` (weights and batch order seeded from ``seed``).

    ``source`` names the language and its alphabet; ``spec`` is the run's identity in the
    record (by default a `RunSpec` of the language, ``model.layout``, ``seed`` and ``config``).
    """
    if spec is None:
        spec = RunSpec(source.text, model.layout, seed=seed, train=config)
    elif (spec.seed, spec.train) != (seed, config):
        raise ConfigError("train: spec.seed and spec.train must be the seed and config given")
    # the splits carry the config they were drawn with (their provenance)
    split_config = from_mapping(SplitConfig, json.loads(splits["train"].provenance.config), "data")
    run = Prepared(spec=spec, profile=get_profile(spec.profile), source=source,
                   model_config=model, split_config=split_config, splits=splits,
                   dataset_hash=dataset_hash(splits), data_seconds=0.0)
    with compute_threads():  # as `training.train`: reproducible on a CPU
        return fit(run, quiet=quiet)


def evaluate(fitted: Fitted) -> RunRecord:
    """Per-length test metrics, adversarial families and split accuracies of a trained model."""
    with compute_threads():
        return evaluate_fitted(fitted, time.perf_counter())


@dataclass(frozen=True)
class Result:
    """Everything one pass of the pipeline produced."""

    source: Source
    classification: Classification | None
    record: RunRecord


def run(spec: RunSpec, *, classes: bool = True) -> Result:
    """One run end to end: resolve, classify (unless ``classes=False``), split, train, evaluate."""
    _, model_config, split_config = check_spec(spec)
    source = language(spec.language, spec.alphabet)
    classification = classify(source.dfa, name=source.name) if classes else None
    splits = make_splits(source.dfa, split_config, spec.seed, name=source.name)
    fitted = train(splits, model_config, spec.train, spec.seed, source=source, spec=spec)
    return Result(source, classification, evaluate(fitted))
