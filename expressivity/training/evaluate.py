"""Judging recognizers: per-length and adversarial accuracy, N*, and aggregation over runs."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import torch

from expressivity.training.spec import AdversarialMetric, LengthMetric, RunRecord, ShortWordMetric

if TYPE_CHECKING:
    from expressivity.data.dataset import Dataset
    from expressivity.models.transformer import Recognizer

__all__ = [
    "adversarial_family",
    "adversarial_metrics",
    "aggregate",
    "length_metrics",
    "length_table",
    "longest_perfect_length",
    "mean_length_accuracy",
    "predict",
    "short_word_metric",
]

#: Misjudged short words a `ShortWordMetric` lists.
SHORT_ERRORS_SHOWN = 5


@torch.no_grad()
def predict(
    model: Recognizer,
    words: Sequence[np.ndarray],
    alphabet_size: int,
    *,
    batch_size: int = 256,
    device: torch.device | str = "cpu",
) -> np.ndarray:
    """Accept/reject decisions (logit > 0) of ``model`` on encoded words, as a bool array.

    Words are batched in order of length so that padding stays small; the model is put in
    eval mode for the call and its previous mode restored. The result is in input order.
    """
    from expressivity.models.tokens import encode_batch

    was_training = model.training
    model.eval()
    try:
        sizes = np.array([len(w) for w in words], dtype=np.int64)
        order = np.argsort(sizes, kind="stable")
        out = np.zeros(len(words), dtype=bool)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            tokens, lengths = encode_batch([words[i] for i in idx], alphabet_size)
            logits = model(tokens.to(device), lengths.to(device))
            out[idx] = (logits > 0).cpu().numpy()
        return out
    finally:
        model.train(was_training)


def length_metrics(
    lengths: Sequence[int] | np.ndarray,
    labels: Sequence[bool] | np.ndarray,
    predictions: Sequence[bool] | np.ndarray,
) -> tuple[LengthMetric, ...]:
    """Accuracy and confusion counts at every length present, sorted by length."""
    n_arr, y, p = _arrays(lengths, labels, predictions)
    out = []
    for length in np.unique(n_arr):
        sel = n_arr == length
        ys, ps = y[sel], p[sel]
        out.append(
            LengthMetric(
                length=int(length),
                n=int(sel.sum()),
                correct=int((ys == ps).sum()),
                true_pos=int((ys & ps).sum()),
                true_neg=int((~ys & ~ps).sum()),
                false_pos=int((~ys & ps).sum()),
                false_neg=int((ys & ~ps).sum()),
            )
        )
    return tuple(out)


def adversarial_metrics(
    kinds: Sequence[str] | np.ndarray,
    labels: Sequence[bool] | np.ndarray,
    predictions: Sequence[bool] | np.ndarray,
) -> tuple[AdversarialMetric, ...]:
    """Accuracy per adversarial family (the ``kind`` column of the adversarial split), sorted."""
    k = np.asarray(kinds, dtype=object)
    _, y, p = _arrays(np.zeros(len(k), dtype=np.int64), labels, predictions)
    right = y == p
    return tuple(
        AdversarialMetric(kind=kind, n=int((k == kind).sum()), correct=int(right[k == kind].sum()))
        for kind in sorted({str(x) for x in k})
    )


def short_word_metric(dataset: Dataset, labels: np.ndarray, predictions: np.ndarray,
                      max_length: int) -> ShortWordMetric:
    """The run on the short split: words right, and the first `SHORT_ERRORS_SHOWN` wrong ones
    (shortest first, spelled with the alphabet's symbols; "" is the empty word)."""
    _, y, p = _arrays(np.zeros(len(labels), dtype=np.int64), labels, predictions)
    wrong = np.flatnonzero(y != p)[:SHORT_ERRORS_SHOWN]
    errors = tuple(" ".join(dataset.symbols(int(i))) for i in wrong)
    return ShortWordMetric(len(y), int((y == p).sum()), max_length, errors)


def adversarial_family(dataset: Dataset) -> np.ndarray:
    """The family of each adversarial example: ``hard`` for edit-distance-1 pairs, else
    ``<family>:<fragment>`` such as ``lc25:LTL[P]`` (the fragment the pair fools)."""
    family, fragment = dataset.meta["family"], dataset.meta["fragment"]
    named = np.char.add(np.char.add(family.astype(str), ":"), fragment.astype(str))
    return np.where(family == "", "hard", named)


def longest_perfect_length(metrics: Iterable[LengthMetric], max_train_length: int) -> int:
    """N*: the largest N with 100 % accuracy at every tested length ≤ N ([LC25], [LC26]).

    The training maximum counts as perfect (lengths inside the training range need not be
    tested); if the first tested length already has an error, N* is the training maximum.
    Equal to `RunRecord.n_star`.
    """
    best = max_train_length
    for m in sorted(metrics, key=lambda m: m.length):
        if m.correct != m.n:
            break
        best = max(best, m.length)
    return best


def mean_length_accuracy(metrics: Iterable[LengthMetric]) -> float:
    """Unweighted mean over lengths of the per-length accuracy (nan when there are none)."""
    accs = [m.accuracy for m in metrics]
    return float(np.mean(accs)) if accs else float("nan")


def _arrays(
    lengths: Sequence[int] | np.ndarray,
    labels: Sequence[bool] | np.ndarray,
    predictions: Sequence[bool] | np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_arr = np.asarray(lengths, dtype=np.int64).reshape(-1)
    y = np.asarray(labels, dtype=bool).reshape(-1)
    p = np.asarray(predictions, dtype=bool).reshape(-1)
    if not (len(n_arr) == len(y) == len(p)):
        raise ValueError(
            f"lengths, labels and predictions differ in size: {len(n_arr)}, {len(y)}, {len(p)}"
        )
    return n_arr, y, p


#: Columns of `aggregate`'s table, in order.
AGGREGATE_COLUMNS = (
    "n_runs",
    "n_failed",
    "max_accuracy",
    "mean_accuracy",
    "std_accuracy",
    "max_adversarial_accuracy",
    "mean_adversarial_accuracy",
    "max_n_star",
    "n_recognized",
    "recognized",
    "best_run_id",
)


def aggregate(
    records: Iterable[RunRecord], by: Sequence[str] = ("language", "layout")
) -> pd.DataFrame:
    """Summarise runs as the papers do: one row per group (default: language × layout).

    Over the completed runs of a group (typically seeds × learning rates): ``max``, ``mean``
    and population ``std`` (ddof = 0) of the pooled test accuracy, the same of the adversarial
    accuracy, the largest N*, and ``recognized`` = at least one run is perfect on the test and
    adversarial sets. Failed runs are counted in ``n_failed`` and excluded from the statistics
    (a group with only failed runs has nan accuracies and is not recognized). ``by`` names
    `RunSpec` fields, dotted for nested ones (``train.lr``). ``best_run_id`` is the run with
    the highest (recognized, accuracy, adversarial accuracy, N*), ties broken by run id.
    """
    groups: dict[tuple[Any, ...], list[RunRecord]] = {}
    for rec in records:
        key = tuple(_field(rec.spec, name) for name in by)
        groups.setdefault(key, []).append(rec)
    rows = []
    for key, recs in sorted(groups.items(), key=lambda kv: tuple(map(_order, kv[0]))):
        done = [r for r in recs if r.status == "completed"]
        acc = np.array([r.test_accuracy for r in done], dtype=float)
        adv = np.array([r.adversarial_accuracy for r in done], dtype=float)
        best = max(
            done,
            key=lambda r: (r.recognized, _num(r.test_accuracy), _num(r.adversarial_accuracy),
                           r.n_star, r.run_id),
            default=None,
        )
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "n_runs": len(recs),
                "n_failed": len(recs) - len(done),
                "max_accuracy": _stat(acc, np.max),
                "mean_accuracy": _stat(acc, np.mean),
                "std_accuracy": _stat(acc, np.std),
                "max_adversarial_accuracy": _stat(adv, np.max),
                "mean_adversarial_accuracy": _stat(adv, np.mean),
                "max_n_star": max((r.n_star for r in done), default=0),
                "n_recognized": sum(r.recognized for r in done),
                "recognized": any(r.recognized for r in done),
                "best_run_id": best.run_id if best is not None else "",
            }
        )
    return pd.DataFrame(rows, columns=[*by, *AGGREGATE_COLUMNS])


def _order(value: Any) -> tuple[int, Any]:
    """Sort numbers numerically, everything else by its text."""
    is_num = isinstance(value, (int, float)) and not isinstance(value, bool)
    return (0, value) if is_num else (1, str(value))


def _field(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _num(x: float) -> float:
    return -1.0 if math.isnan(x) else x


def _stat(values: np.ndarray, fn: Any) -> float:
    finite = values[~np.isnan(values)]
    return float(fn(finite)) if finite.size else float("nan")


def length_table(record: RunRecord, *, every: int = 1) -> str:
    """A plain-text table of per-length accuracy and confusion counts, with the verdict.

    ``every`` > 1 prints every ``every``-th length, plus the first imperfect one and the last.
    """
    lines = [f"{'length':>6} {'n':>5} {'acc':>7} {'TP':>5} {'TN':>5} {'FP':>5} {'FN':>5}"]
    ms = sorted(record.lengths, key=lambda m: m.length)
    first_error = next((i for i, m in enumerate(ms) if m.correct < m.n), None)
    for i, m in enumerate(ms):
        if every > 1 and i % every and i not in (first_error, len(ms) - 1):
            continue
        lines.append(
            f"{m.length:>6} {m.n:>5} {100 * m.accuracy:>6.1f}% {m.true_pos:>5} {m.true_neg:>5} "
            f"{m.false_pos:>5} {m.false_neg:>5}"
        )
    for a in record.adversarial:
        lines.append(f"adversarial {a.kind}: {a.correct}/{a.n} = {100 * a.accuracy:.1f}%")
    lines.append(summary_line(record))
    return "\n".join(lines)


def summary_line(record: RunRecord) -> str:
    """One line: status, test and adversarial accuracy, N*, steps, time and the verdict."""
    if record.status != "completed":
        return f"FAILED after {record.steps} steps: {record.error}"
    adv = record.adversarial_accuracy
    adv_text = "n/a" if math.isnan(adv) else f"{100 * adv:.1f}%"
    verdict = "RECOGNIZED" if record.recognized else "not recognized"
    short = record.short_words
    short_text = ("not tested" if short is None else f"{short.correct}/{short.n}"
                  + (f" (wrong: {', '.join(repr(e) for e in short.errors)})"
                     if short.errors else ""))
    return (
        f"test {100 * record.test_accuracy:.2f}%  adversarial {adv_text}  short words "
        f"{short_text}  N*={record.n_star}  steps={record.steps}  {record.wall_time:.1f}s  "
        f"→ {verdict}"
    )
