"""Theory against experiment: predictions joined with observed recognition, and agreement.

A cell (language × layout) is judged only when the theory proves a verdict ("yes" or "no",
`classes.predictions`) and at least one run completed. Verdicts (`schema.VERDICTS`): "agree";
"learned beyond the prediction" (predicted no, yet some run was perfect on every test,
adversarial and short word); "failed within it" (predicted yes, no run recognized it); "not
tested on short words" (the best runs were perfect on the test and adversarial sets but were
recorded before the short split existed: judged neither way); "unknown prediction"; "no
completed runs". ``observed`` is our criterion, ``papers_observed`` the papers' (some run at
100 % test accuracy), kept beside it. ``verdict_at_depth`` is the same judgement against the
prediction for the model's own number of layers (docs/theory.md §8): a cell whose language
needs more layers than the model has is "no" there, so not recognizing it agrees.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from expressivity.analysis.diagnosis import by_cell, cell_key
from expressivity.analysis.encoder_predictions import ANY_PRECISION, ONLY_A
from expressivity.analysis.export import format_number
from expressivity.analysis.schema import (
    AGREE,
    BEYOND,
    COMPARISON_COLUMNS,
    DISAGREEMENT_COLUMNS,
    FAILED_WITHIN,
    NO_RUNS,
    PREDICTION_COLUMNS,
    UNKNOWN,
    UNTESTED,
    VERDICTS,
    conform,
)
from expressivity.analysis.tables import groups_of

__all__ = ["TheoryAgreement", "agreement", "covers", "disagreements", "predicted_vs_observed",
           "read_predictions"]

_KEY = ["language", "alphabet", "layout"]
_DEPTH = ["n_layers", "min_depth", "predicted_at_depth", "reason_at_depth"]


def _verdict(predicted: str, observed: bool, completed: int, untested: bool = False) -> str:
    if predicted not in ("yes", "no"):
        return UNKNOWN
    if completed == 0:
        return NO_RUNS
    if untested and not observed:
        return UNTESTED
    if (predicted == "yes") == observed:
        return AGREE
    return BEYOND if observed else FAILED_WITHIN


def predicted_vs_observed(
    summary: pd.DataFrame, predictions: pd.DataFrame, classes: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Join predictions with observed recognition, one row per summary cell (`COMPARISON_COLUMNS`).

    Verdicts: "agree"; "learned beyond the prediction" (predicted no, recognized);
    "failed within it" (predicted yes, not recognized); "unknown prediction"; and
    "no completed runs" (every run failed, so nothing was observed).
    """
    summary = summary.assign(**{c: summary[c] if c in summary.columns else False
                                for c in ("perfect_on_test", "untested_short")})
    depth_cols = [c for c in _DEPTH if c in predictions.columns]
    joined = summary[[*_KEY, "completed", "recognized", "perfect_on_test",
                      "untested_short"]].merge(
        predictions[[*_KEY, "predicted", "reason", *depth_cols]], on=_KEY, how="left"
    )
    joined["predicted"] = joined["predicted"].fillna("unknown")
    joined["reason"] = joined["reason"].fillna("not classified")
    joined["observed"] = joined["recognized"].fillna(False).astype(bool)
    joined["papers_observed"] = joined["perfect_on_test"].fillna(False).astype(bool)
    joined["untested_short"] = joined["untested_short"].fillna(False).astype(bool)
    cells = zip(joined["predicted"], joined["observed"], joined["completed"],
                joined["untested_short"], strict=True)
    joined["verdict"] = [_verdict(str(p), bool(o), int(c), bool(u)) for p, o, c, u in cells]
    at_depth = (joined["predicted_at_depth"].fillna("unknown") if "predicted_at_depth" in joined
                else pd.Series("unknown", index=joined.index))
    cells = zip(at_depth, joined["observed"], joined["completed"], joined["untested_short"],
                strict=True)
    joined["verdict_at_depth"] = [_verdict(str(p), bool(o), int(c), bool(u))
                                  for p, o, c, u in cells]
    joined["group"] = (
        groups_of(joined, classes) if classes is not None else pd.Series("unknown", joined.index)
    )
    return conform(joined, COMPARISON_COLUMNS)


@dataclass(frozen=True)
class TheoryAgreement:
    """How often observation agrees with a proven prediction (cells with completed runs)."""

    counts: tuple[tuple[str, int], ...]  # verdict → cells, in `VERDICTS` order

    @property
    def agree(self) -> int:
        return dict(self.counts)[AGREE]

    @property
    def judged(self) -> int:
        """Cells with a proven prediction and at least one completed run."""
        c = dict(self.counts)
        return c[AGREE] + c[BEYOND] + c[FAILED_WITHIN]

    @property
    def fraction(self) -> float:
        """agree / judged (NaN when nothing could be judged)."""
        return self.agree / self.judged if self.judged else float("nan")

    def __str__(self) -> str:
        c = dict(self.counts)
        head = (
            f"{self.agree} of {self.judged} cells agree ({100 * self.fraction:.1f} %)"
            if self.judged else "no cell could be judged"
        )
        rest = [f"{c[v]} {v}" for v in VERDICTS[1:] if c[v]]
        return head + ("; " + ", ".join(rest) if rest else "")

    def to_frame(self) -> pd.DataFrame:
        """Columns verdict, cells, fraction (of the judged cells; NA for the unjudged kinds)."""
        rows = [
            (v, n, n / self.judged if v in (AGREE, BEYOND, FAILED_WITHIN) and self.judged else None)
            for v, n in self.counts
        ]
        frame = pd.DataFrame(rows, columns=["verdict", "cells", "fraction"])
        return frame.astype({"verdict": "string", "cells": "Int64", "fraction": "Float64"})


def agreement(comparison: pd.DataFrame, *, at_depth: bool = False) -> TheoryAgreement:
    """Verdict counts of a `predicted_vs_observed` table: against the unbounded prediction,
    or with ``at_depth`` against the prediction at each model's own depth."""
    counts = comparison["verdict_at_depth" if at_depth else "verdict"].value_counts()
    return TheoryAgreement(tuple((v, int(counts.get(v, 0))) for v in VERDICTS))


def _depth_note(row: dict[str, object]) -> str:
    """The note of a cell learned beyond a "no at this depth": what the depth certificate binds
    (docs/theory.md §8, §15) and so what the run's success says."""
    passed = (f"some run passed our criterion (every tested length up to N* = {row['n_star']}, "
              "every adversarial example, the short words); ")
    theory = str(row.get("theory") or "")
    if ANY_PRECISION in theory:
        return passed + (
            "the 'no' at this depth holds at any precision (its pair agrees even when rows "
            "read multiplicities, docs/theory.md §15), so an exact network with this many "
            "layers errs on one word of the pair or of its pumped family: the certificate's "
            "words show where")
    if ONLY_A in theory:
        return passed + (
            f"the 'no' at this depth is certified {ONLY_A} (a head reads the set of values at "
            "its keys): its pair separates once rows read multiplicities (docs/theory.md §15), "
            "and a float32 soft-attention network reads them, e.g. through BOS's weight 1/n "
            "near the start (§8, 'A cell learned below d*'). The run reads what A discards: no "
            "evidence against a proof")
    return passed + (
        "the 'no' at this depth is certified under reading model A (a head reads the set of "
        "values at its keys, docs/theory.md §8), which a float32 soft-attention network need "
        "not obey on short words (§8, 'A cell learned below d*'); where its pair differs far "
        "from the start the bound is conjectured to bind, so finite tests cannot show "
        "recognition")


def _note(row: dict[str, object]) -> str:
    acc = row["max_accuracy"]
    acc_text = format_number(float(acc), 3) if isinstance(acc, float) and acc == acc else "—"
    if row["verdict"] == BEYOND:
        return (
            f"every tested length up to N* = {row['n_star']} and every adversarial example "
            "right in some run; the theory rules out an exact recognizer for all lengths, so "
            "it must err on some input the tests do not cover (longer, or shorter than the "
            "test lengths; the certificate's words show where): finite tests cannot show "
            "recognition"
        )
    if str(row["verdict"]).startswith(BEYOND):
        return _depth_note(row)
    if row["perfect_on_test"] is True:
        return (
            "some run was perfect on random test strings but fooled by adversarial examples: "
            "it learned a shortcut, not the exact solution the theory guarantees"
        )
    if isinstance(acc, float) and acc >= 0.99:
        return (
            f"near-perfect (max accuracy {acc_text}, N* = {row['n_star']}) but no run perfect "
            "at every tested length: more steps or seeds may close the gap"
        )
    if isinstance(acc, float) and acc >= 0.75:
        return (
            f"partly learned (max accuracy {acc_text}, N* = {row['n_star']}): an exact "
            "transformer exists, but training did not reach it within this budget"
        )
    return (
        f"no run came close (max accuracy {acc_text}): an exact transformer exists, but "
        "training did not find it within this budget"
    )


def _at_depth(comparison: pd.DataFrame) -> pd.DataFrame:
    """The cells learned beyond the prediction at the model's own depth only: the theory
    certifies that no model with this many layers recognizes the language (docs/theory.md §8),
    and some run passed every test all the same. (A cell "yes at depth d" is "yes" unbounded,
    so a failure there is already a failure within the unbounded prediction.)"""
    if "verdict_at_depth" not in comparison.columns:
        return comparison.iloc[0:0]
    cells = comparison[(comparison["verdict_at_depth"] == BEYOND)
                       & (comparison["verdict"] != BEYOND)]
    return cells.assign(
        verdict=[f"{BEYOND} at {n} layers" for n in cells["n_layers"]],
        reason=[f"no {why} (d* = {d}); unbounded: {p}, {r}" for why, d, p, r in
                zip(cells["reason_at_depth"].fillna("at this depth"), cells["min_depth"],
                    cells["predicted"], cells["reason"], strict=True)],
    )


def disagreements(comparison: pd.DataFrame, summary: pd.DataFrame,
                  diagnoses: pd.DataFrame | None = None) -> pd.DataFrame:
    """The cells learned beyond or failed within the prediction, with the numbers that explain
    them and a note on the reason (`DISAGREEMENT_COLUMNS`); the cells learned beyond the
    prediction at the model's own depth (and not beyond the unbounded one) follow, their
    verdict naming the depth. A cell failed within with a row in ``diagnoses``
    (`analysis.diagnosis.diagnose`) takes its mechanism and note, which name the furthest
    run's numbers; without one the note reads the cell's summary numbers."""
    cells = pd.concat([comparison[comparison["verdict"].isin([BEYOND, FAILED_WITHIN])],
                       _at_depth(comparison)], ignore_index=True)
    joined = cells.merge(
        summary[[*_KEY, "max_accuracy", "n_star", "adversarial_accuracy", "perfect_on_test"]],
        on=_KEY, how="left",
    ).rename(columns={"reason": "theory"})
    rows = joined.astype(object).where(joined.notna(), None).to_dict("records")
    joined["note"] = [_note(r) for r in rows]
    joined["mechanism"] = pd.NA
    if diagnoses is not None and len(diagnoses) and len(joined):
        found = by_cell(diagnoses)
        for i, r in enumerate(rows):
            hit = found.get(cell_key(r["language"], r["alphabet"], r["layout"]))
            if hit is not None and r["verdict"] == FAILED_WITHIN:
                joined.loc[joined.index[i], ["mechanism", "note"]] = hit
    return conform(joined, DISAGREEMENT_COLUMNS)


def read_predictions(path: str | Path) -> pd.DataFrame | None:
    """The predictions (`schema.PREDICTION_COLUMNS`) a results page recorded in its
    ``tables/predicted_vs_observed.csv`` (`expressivity figures` writes it from
    `predicted_vs_observed`), read back exactly (an empty field is a missing value); None if
    the file is missing or lacks a prediction column."""
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError):
        return None
    if not set(PREDICTION_COLUMNS) <= set(frame.columns):
        return None
    frame = frame.loc[:, list(PREDICTION_COLUMNS)].replace("", pd.NA)
    return conform(frame, PREDICTION_COLUMNS)


def covers(predicted: pd.DataFrame, cells: pd.DataFrame) -> bool:
    """Whether ``predicted`` has a row for every (language, alphabet, layout, n_layers) of
    ``cells`` (a missing alphabet and an empty one are the same)."""
    def keys(frame: pd.DataFrame) -> set[tuple[str, str, str, object]]:
        return {(*cell_key(a, b, c), None if pd.isna(d) else int(d))
                for a, b, c, d in zip(frame["language"], frame["alphabet"], frame["layout"],
                                      frame["n_layers"], strict=True)}
    return keys(cells) <= keys(predicted)
