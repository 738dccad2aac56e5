"""Why a cell was missed: the furthest check of our criterion that any of its runs passed.

Our criterion asks a run to be right on every random test word (lengths beyond training), every
adversarial pair and every short word (`analysis.recall`). A run that is not recognized fails
one of those checks first, in that order; the runs' stored numbers say which, and a failure on
the test words splits by whether the run had fit its own training words. Each unrecognized run
is thus at one of four **stages**, from farthest to closest to recognition:

- ``not fitted``: wrong on some test word and on some of its own training words: the optimizer
  did not fit the data within the budget (a training failure; its steps and the stopping rule
  that ended it are named);
- ``length``: right on every training word (lengths up to the training maximum), wrong on some
  longer test word: a length-generalization failure (N*, the longest length up to which every
  test length was right, and the accuracy at the longest test lengths are named);
- ``pairs``: right on every random test word, wrong on adversarial pairs at the test lengths:
  random words do not probe the inputs the pairs do (the pair family it fails most is named;
  whether a run learned a shortcut or lost an exact rule at length, the stored numbers do not
  tell apart: `experiments/table-hard.toml` asks);
- ``short words``: right on every test word and pair, wrong on some word of length 0..8.

A missed cell's **mechanism** is the stage of its run that got furthest (ties: the higher test
accuracy, then adversarial accuracy, then the lower seed). Nothing here is a verdict on the
theory: a proven-yes cell that is missed is a training or protocol outcome, never evidence
against its proof (evidence against a prediction is a run that beats a certified "no",
`analysis.certificate_probe`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from expressivity.analysis.export import format_number
from expressivity.analysis.recall import FAMILIES, cell_family
from expressivity.analysis.schema import FAILED_WITHIN, conform

__all__ = ["DIAGNOSIS_COLUMNS", "MECHANISMS", "by_cell", "cell_key", "diagnose", "failure_table",
           "run_stage"]

#: The stages of an unrecognized run, farthest from recognition first, with what each means.
MECHANISMS: dict[str, str] = {
    "not fitted": "training failure: no run fit its own training words",
    "length": "length generalization: a run fit every training word, erred on a longer one",
    "pairs": "adversarial pairs: a run was right on every random test word, wrong on pairs",
    "short words": "short words: a run passed every test word and pair, erred on a word ≤ 8",
}

#: One row per cell none of whose completed runs is recognized (`diagnose`).
DIAGNOSIS_COLUMNS: dict[str, str] = {
    "language": "string",
    "alphabet": "string",
    "layout": "string",
    "mechanism": "string",  # one of MECHANISMS: the stage of the furthest run
    "seed": "Int64",  # that run's
    "train_accuracy": "float64",
    "test_accuracy": "float64",
    "n_star": "Int64",
    "long_accuracy": "float64",  # its accuracy over the longest quarter of the test lengths
    "adversarial_accuracy": "float64",
    "note": "string",
}

_KEY = ["language", "alphabet", "layout"]


def _extra(row: Mapping[str, Any]) -> dict[str, Any]:
    try:
        extra = json.loads(str(row.get("extra") or "{}"))
    except ValueError:
        return {}
    return extra if isinstance(extra, dict) else {}


def _perfect(value: object) -> bool:
    """A stored accuracy of 1 (a missing one, such as no adversarial pair, counts as passed)."""
    return value is None or value != value or float(value) >= 1.0  # type: ignore[arg-type]


def run_stage(row: Mapping[str, Any]) -> str | None:
    """The stage (`MECHANISMS`) of a completed, unrecognized run (a `ResultsStore.runs` row);
    None for a recognized or failed run."""
    if row.get("status") != "completed" or bool(row.get("recognized")):
        return None
    if not _perfect(row.get("test_accuracy")):
        return "length" if _perfect(row.get("train_accuracy")) else "not fitted"
    if not _perfect(row.get("adversarial_accuracy")):
        return "pairs"
    return "short words"


def _long_accuracy(lengths: pd.DataFrame) -> dict[str, float]:
    """run_id → accuracy over the longest quarter of its tested lengths."""
    if lengths.empty:
        return {}
    by_run = lengths.groupby("run_id")["length"]
    lo, hi = by_run.transform("min"), by_run.transform("max")
    tail = lengths[lengths["length"] >= hi - (hi - lo) // 4]
    sums = tail.groupby("run_id")[["correct", "n"]].sum()
    return {str(r): float(c / max(1, n)) for r, c, n in
            zip(sums.index, sums["correct"], sums["n"], strict=True)}


def _worst_pairs(adversarial: pd.DataFrame) -> dict[str, tuple[str, int, int]]:
    """run_id → (pair family, correct, n) of its least accurate adversarial family (ties: the
    family first in name order)."""
    if adversarial.empty:
        return {}
    ranked = adversarial.assign(acc=adversarial["correct"] / adversarial["n"].clip(lower=1))
    worst = ranked.sort_values(["run_id", "acc", "kind"]).drop_duplicates("run_id")
    return {str(r): (str(k), int(c), int(n)) for r, k, c, n in
            zip(worst["run_id"], worst["kind"], worst["correct"], worst["n"], strict=True)}


def _stopped(row: Mapping[str, Any], extra: dict[str, Any]) -> str:
    spec = json.loads(str(row.get("spec") or "{}"))
    budget = (spec.get("train") or {}).get("steps")
    steps = row.get("steps")
    of = f" of {budget:,}" if isinstance(budget, int) else ""
    if extra.get("plateaued"):
        return f"stopped by the plateau rule at step {steps}{of}"
    if extra.get("stopped_early"):
        return f"stopped at step {steps}{of} after perfect validations"
    if isinstance(budget, int) and steps == budget:
        return f"trained the whole budget of {budget:,} steps"
    return f"stopped at step {steps}{of}"


def _note(stage: str, row: Mapping[str, Any], long_acc: float | None,
          pairs: tuple[str, int, int] | None) -> str:
    extra = _extra(row)
    seed, num = row.get("seed"), format_number
    if stage == "not fitted":
        return (f"training failure: no run fit its own training words; the closest (seed {seed}) "
                f"reached train accuracy {num(float(row['train_accuracy']), 3)} and test "
                f"accuracy {num(float(row['test_accuracy']), 3)}, {_stopped(row, extra)}")
    if stage == "length":
        tail = f", {num(long_acc, 3)} over the longest quarter of the test lengths" if (
            long_acc is not None) else ""
        return (f"length generalization: seed {seed} fit every training word (lengths ≤ "
                f"{row.get('max_train_length')}) and was right at every test length up to "
                f"N* = {row.get('n_star')}, not beyond (test accuracy "
                f"{num(float(row['test_accuracy']), 3)}{tail})")
    if stage == "pairs":
        worst = (f"; worst pair family {pairs[0]!r}: {pairs[1]}/{pairs[2]}" if pairs else "")
        return (f"adversarial pairs: seed {seed} was right on every random test word but "
                f"wrong on adversarial pairs at the test lengths (accuracy "
                f"{num(float(row['adversarial_accuracy']), 3)}{worst}): random words do not "
                "probe the inputs the pairs do")
    short = extra.get("short_words") or {}
    errors = list(short.get("errors") or [])
    shown = ", ".join(repr(w) if w else "ε" for w in errors[:3])
    count = (f" ({int(short['n']) - int(short['correct'])} of {short['n']} wrong"
             f"{': ' + shown if shown else ''})" if "n" in short and "correct" in short else "")
    return (f"short words: seed {seed} passed every test word and adversarial pair but erred "
            f"on words of length ≤ {short.get('max_length', 8)}{count}")


def diagnose(runs: pd.DataFrame, lengths: pd.DataFrame | None = None,
             adversarial: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per cell (language, alphabet, layout) of ``runs`` (a `ResultsStore.runs` frame,
    relabelled by `sweeps.cells.with_cells` like ``lengths`` and ``adversarial``) whose
    completed runs include none recognized: its mechanism, the furthest run's numbers and a
    note that states them (`DIAGNOSIS_COLUMNS`)."""
    long_acc = _long_accuracy(lengths if lengths is not None else pd.DataFrame())
    worst = _worst_pairs(adversarial if adversarial is not None else pd.DataFrame())
    order = list(MECHANISMS)
    frame = runs.assign(alphabet=runs["alphabet"].fillna("").astype("string"))
    rows = []
    for key, part in frame.groupby(_KEY, sort=False):
        records = part.to_dict("records")
        if any(r.get("status") == "completed" and bool(r.get("recognized")) for r in records):
            continue
        staged = [(s, r) for r in records if (s := run_stage(r)) is not None]
        if not staged:
            continue
        stage, best = max(staged, key=lambda sr: (
            order.index(sr[0]), float(sr[1]["test_accuracy"]),
            -1.0 if sr[1]["adversarial_accuracy"] != sr[1]["adversarial_accuracy"]
            else float(sr[1]["adversarial_accuracy"]), -int(sr[1]["seed"])))
        run_id = str(best["run_id"])
        rows.append({
            **dict(zip(_KEY, key, strict=True)), "mechanism": stage, "seed": best["seed"],
            "train_accuracy": best["train_accuracy"], "test_accuracy": best["test_accuracy"],
            "n_star": best["n_star"], "long_accuracy": long_acc.get(run_id),
            "adversarial_accuracy": best["adversarial_accuracy"],
            "note": _note(stage, best, long_acc.get(run_id), worst.get(run_id)),
        })
    return conform(pd.DataFrame(rows, columns=list(DIAGNOSIS_COLUMNS)), DIAGNOSIS_COLUMNS)


#: Columns of `failure_table`.
FAILURE_COLUMNS: dict[str, str] = {
    "depth": "string", "family": "string", "missed": "Int64",
    **{m: "Int64" for m in MECHANISMS},
}


def cell_key(language: object, alphabet: object, layout: object) -> tuple[str, str, str]:
    """A cell's (language, alphabet, layout) key; a missing alphabet (the language's own) is
    "" whether the frame holds NA, None or ""."""
    missing = alphabet is None or (not isinstance(alphabet, str) and bool(pd.isna(alphabet)))
    return str(language), "" if missing else str(alphabet), str(layout)


def by_cell(diagnoses: pd.DataFrame) -> dict[tuple[str, str, str], tuple[str, str]]:
    """Each diagnosed cell's (mechanism, note) by its `cell_key`: the one lookup the
    disagreements table (`comparison.disagreements`) and `failure_table` read."""
    return {cell_key(a, b, c): (str(m), str(n)) for a, b, c, m, n in zip(
        diagnoses["language"], diagnoses["alphabet"], diagnoses["layout"],
        diagnoses["mechanism"], diagnoses["note"], strict=True)}


def failure_table(comparison: pd.DataFrame, diagnoses: pd.DataFrame) -> pd.DataFrame:
    """The proven-yes cells missed ("failed within" the prediction), unbounded and at each
    model's own depth, per architecture family and over all: how many, and how many by each
    mechanism (`FAILURE_COLUMNS`)."""
    found_by_cell = by_cell(diagnoses)
    rows = []
    for depth, column in (("unbounded", "verdict"), ("at depth", "verdict_at_depth")):
        if column not in comparison.columns:
            continue
        missed = comparison[comparison[column] == FAILED_WITHIN]
        found = [(cell_family(str(x)), found_by_cell.get(cell_key(a, b, x), (None, ""))[0])
                 for a, b, x in zip(missed["language"], missed["alphabet"], missed["layout"],
                                    strict=True)]
        for family in [*FAMILIES, "other", "all"]:
            mine = [m for f, m in found if family in (f, "all")]
            if mine or family == "all":
                rows.append({"depth": depth, "family": family, "missed": len(mine),
                             **{m: mine.count(m) for m in MECHANISMS}})
    return conform(pd.DataFrame(rows, columns=list(FAILURE_COLUMNS)), FAILURE_COLUMNS)
