"""Evaluation metrics on hand-made predictions: confusion counts, N*, families, aggregation."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch

from expressivity.models import ModelConfig, Recognizer, encode_batch
from expressivity.training.evaluate import (
    adversarial_metrics,
    aggregate,
    length_metrics,
    length_table,
    longest_perfect_length,
    mean_length_accuracy,
    predict,
    summary_line,
)
from expressivity.training.spec import (
    AdversarialMetric,
    LengthMetric,
    RunRecord,
    RunSpec,
    ShortWordMetric,
)


def test_length_metrics_count_every_cell_of_the_confusion_matrix() -> None:
    lengths = [41, 41, 41, 41, 42, 42, 43]
    labels = [1, 1, 0, 0, 1, 0, 1]
    preds = [1, 0, 1, 0, 1, 0, 1]
    m41, m42, m43 = length_metrics(lengths, labels, preds)
    assert m41 == LengthMetric(41, n=4, correct=2, true_pos=1, true_neg=1, false_pos=1, false_neg=1)
    assert m42 == LengthMetric(42, n=2, correct=2, true_pos=1, true_neg=1)
    assert m43 == LengthMetric(43, n=1, correct=1, true_pos=1)
    assert m41.accuracy == 0.5


def test_length_metrics_reject_mismatched_sizes() -> None:
    with pytest.raises(ValueError, match="differ in size"):
        length_metrics([1, 2], [True], [True, False])


def _m(length: int, n: int, correct: int) -> LengthMetric:
    return LengthMetric(length, n, correct)


@pytest.mark.parametrize(
    ("metrics", "expected"),
    [
        ([_m(41, 4, 4), _m(42, 4, 4), _m(43, 4, 3), _m(44, 4, 4)], 42),  # stops at the first error
        ([_m(41, 4, 3), _m(42, 4, 4)], 40),  # first tested length fails: the training maximum
        ([_m(41, 4, 4), _m(42, 4, 4)], 42),  # all perfect: the longest tested length
        ([_m(43, 4, 4), _m(41, 4, 4)], 43),  # order of the input does not matter
        ([], 40),
    ],
)
def test_n_star_is_the_longest_perfect_prefix(metrics: list[LengthMetric], expected: int) -> None:
    assert longest_perfect_length(metrics, 40) == expected
    record = RunRecord("r", RunSpec("SUFFIX-a"), "completed", lengths=tuple(metrics))
    assert record.n_star == expected


def test_mean_length_accuracy_weights_lengths_equally() -> None:
    assert mean_length_accuracy([_m(41, 2, 1), _m(42, 8, 8)]) == 0.75
    assert math.isnan(mean_length_accuracy([]))


def test_adversarial_metrics_group_by_family() -> None:
    kinds = ["hard", "hard", "lc25:LTL[P]", "lc25:LTL[P]", "hard"]
    labels = [True, False, True, False, True]
    preds = [True, True, True, False, False]
    assert adversarial_metrics(kinds, labels, preds) == (
        AdversarialMetric("hard", n=3, correct=1),
        AdversarialMetric("lc25:LTL[P]", n=2, correct=2),
    )


def _record(
    seed: int, lr: float, correct: tuple[int, int], adv: int = 2, *, layout: str = "global",
    status: str = "completed",
) -> RunRecord:
    spec = RunSpec("SUFFIX-a", layout=layout, seed=seed).with_train(lr=lr)
    lengths = (_m(41, 10, correct[0]), _m(42, 10, correct[1]))
    return RunRecord(
        run_id=f"{layout}-{seed}-{lr}", spec=spec, status=status,  # type: ignore[arg-type]
        lengths=lengths if status == "completed" else (),
        adversarial=(AdversarialMetric("hard", 2, adv),) if status == "completed" else (),
        extra={"short_words": ShortWordMetric(511, 511, 8).to_dict()},
    )


def test_a_run_is_recognized_only_when_right_on_the_short_words_too() -> None:
    perfect = _record(0, 1e-4, (10, 10))
    assert perfect.recognized and perfect.perfect_on_test
    wrong = ShortWordMetric(511, 509, 8, ("", "a")).to_dict()
    for extra in ({}, {"short_words": wrong}, {"short_words": {"n": "?"}}):
        record = dataclasses.replace(perfect, extra=extra)
        assert record.perfect_on_test and not record.recognized  # untested is never passing
    assert ShortWordMetric.from_extra({"short_words": wrong}) == ShortWordMetric(
        511, 509, 8, ("", "a"))
    assert "short words 509/511 (wrong: '', 'a')" in summary_line(
        dataclasses.replace(perfect, extra={"short_words": wrong}))
    assert "short words not tested" in summary_line(dataclasses.replace(perfect, extra={}))


def test_aggregate_over_seeds_and_learning_rates_is_exact() -> None:
    records = [
        _record(0, 1e-4, (10, 10)),  # perfect: accuracy 1.0, N* 42, recognized
        _record(1, 1e-4, (10, 5)),  # 0.75, N* 41
        _record(0, 3e-4, (5, 5), adv=1),  # 0.5, N* 40
        _record(1, 3e-4, (0, 0), status="failed"),
        _record(0, 1e-4, (10, 9), adv=1, layout="local-1"),  # 0.95 but not perfect
    ]
    table = aggregate(records).set_index(["language", "layout"])
    g = table.loc[("SUFFIX-a", "global")]
    assert (g.n_runs, g.n_failed, g.n_recognized) == (4, 1, 1)
    assert g.max_accuracy == 1.0
    assert g.mean_accuracy == pytest.approx(0.75)
    assert g.std_accuracy == pytest.approx(np.std([1.0, 0.75, 0.5]))
    assert g.max_adversarial_accuracy == 1.0
    assert g.mean_adversarial_accuracy == pytest.approx((1.0 + 1.0 + 0.5) / 3)
    assert g.max_n_star == 42
    assert bool(g.recognized) is True
    assert g.best_run_id == "global-0-0.0001"
    loc = table.loc[("SUFFIX-a", "local-1")]
    assert (loc.n_runs, loc.max_accuracy, loc.max_n_star) == (1, 0.95, 41)
    assert not loc.recognized


def test_aggregate_of_only_failed_runs_is_nan_and_not_recognized() -> None:
    table = aggregate([_record(0, 1e-4, (0, 0), status="failed")])
    row = table.iloc[0]
    assert row.n_failed == 1 and math.isnan(row.max_accuracy) and not row.recognized
    assert row.best_run_id == ""


def test_aggregate_by_other_fields() -> None:
    records = [_record(0, 1e-4, (10, 10)), _record(1, 1e-4, (10, 0))]
    table = aggregate(records, by=("seed",))
    assert list(table.seed) == [0, 1] and list(table.max_accuracy) == [1.0, 0.5]
    by_lr = aggregate([*records, _record(0, 3e-4, (0, 10))], by=("train.lr",))
    assert list(by_lr["train.lr"]) == [1e-4, 3e-4] and list(by_lr.n_runs) == [2, 1]


def test_length_table_shows_lengths_families_and_verdict() -> None:
    text = length_table(_record(0, 1e-4, (10, 9)))
    assert "41" in text and "90.0%" in text and "adversarial hard: 2/2" in text
    assert "N*=41" in text and "not recognized" in text
    failed = length_table(RunRecord("r", RunSpec("SUFFIX-a"), "failed", error="boom"))
    assert "FAILED" in failed and "boom" in failed


@pytest.mark.parametrize("layout", ["hybrid-1", "longformer-2-1", "bigbird-2-1-1", "block-4",
                                    "dilated-2-2", "global"])
def test_the_fast_evaluation_path_keeps_every_per_length_count(layout: str) -> None:
    """Batches of 64 and the linear-memory kernels from 256 tokens (the CPU profiles' default)
    give the per-length counts of dense kernels in batches of 256 (the former path)."""
    rng = np.random.default_rng(0)
    words = [rng.integers(0, 2, size=n) for n in range(41, 301) for _ in range(2)]
    labels = rng.random(len(words)) < 0.5
    lengths = np.array([len(w) for w in words])
    config = ModelConfig.preset("cpu", layout=layout, n_layers=2, d_model=32, n_heads=4,
                                d_ff=64, init_std=0.5)
    assert config.banded_min_len <= 300  # the long strings take the linear-memory kernels
    fast = Recognizer(config, 2, seed=3)
    old = Recognizer(dataclasses.replace(config, kernel="dense"), 2, seed=3)
    with torch.no_grad():  # centre the decisions: about half the strings accepted
        logits = torch.cat([fast(*encode_batch(words[i : i + 64], 2))
                            for i in range(0, len(words), 64)])
        for m in (fast, old):
            m.classifier.bias -= logits.median() - 1e-3
    new = predict(fast, words, 2, batch_size=64)
    before = predict(old, words, 2, batch_size=256)
    assert 0.2 < new.mean() < 0.8
    assert length_metrics(lengths, labels, new) == length_metrics(lengths, labels, before)
