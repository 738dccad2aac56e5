"""The tidy tables of the analysis layer: every column and dtype declared once, with orderings.

Each ``*_COLUMNS`` mapping is the schema of one table builder (`expressivity.analysis.tables`,
`expressivity.analysis.class_membership`, `expressivity.analysis.prediction_table`); `conform`
casts a frame to it. A language is identified by its name *and* the alphabet of its runs
(``alphabet`` = "" means the catalogue's own), since class membership depends on the alphabet
(docs/theory.md §2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from expressivity.layouts import parse_preset
from expressivity.sweeps.cell_labels import Cell, cell_order, encoding_rank

__all__ = [
    "ADVERSARIAL_KIND_COLUMNS",
    "CLASS_COLUMNS",
    "CLASS_SUMMARY_COLUMNS",
    "COMPARISON_COLUMNS",
    "CURVE_COLUMNS",
    "DISAGREEMENT_COLUMNS",
    "GROUPS",
    "PREDICTION_COLUMNS",
    "SUMMARY_COLUMNS",
    "UNTESTED",
    "VERDICTS",
    "conform",
    "language_label",
    "language_labels",
    "layout_order",
    "slug",
]

#: Class groups of docs/theory.md §3 in report order: the smallest group a language belongs to.
GROUPS: tuple[str, ...] = (
    "LTL[Y]-only",
    "LTL[P]-only",
    "LTL[P] ∩ LTL[Y]",
    "LTL[P,Y]-only",
    "star-free outside LTL[P,Y]",
    "not star-free",
    "not regular",
    "unknown",
)

#: Cells of the predicted-vs-observed table (`tables.predicted_vs_observed`).
AGREE = "agree"
BEYOND = "learned beyond the prediction"
FAILED_WITHIN = "failed within it"
UNKNOWN = "unknown prediction"
NO_RUNS = "no completed runs"
#: A proven cell whose best runs were perfect on the test and adversarial sets but were
#: recorded before the short split existed: neither learned nor held under our criterion.
UNTESTED = "not tested on short words"
VERDICTS: tuple[str, ...] = (AGREE, BEYOND, FAILED_WITHIN, UNTESTED, UNKNOWN, NO_RUNS)

#: One row per language (and alphabet): its class memberships and smallest group.
CLASS_COLUMNS: dict[str, str] = {
    "language": "string",
    "alphabet": "string",  # the runs' alphabet override ("" = the catalogue's)
    "sigma": "string",  # the alphabet actually classified, e.g. "a,b,c"
    "regular": "boolean",
    "group": "string",  # one of GROUPS
    "smallest": "string",  # smallest classes of the inclusion diagram, joined by " ∩ "
    "n_states": "Int64",
    "definite": "boolean",
    "r_trivial": "boolean",
    "locally_testable": "boolean",
    "locally_r_trivial": "boolean",
    "da": "boolean",
    "aperiodic": "boolean",
}

#: One row per language and layout: what the theory predicts (`prediction_table.predictions`).
PREDICTION_COLUMNS: dict[str, str] = {
    "language": "string",
    "alphabet": "string",
    "layout": "string",
    "predicted": "string",  # "yes" (proven), "no" (proven) or "unknown"
    "reason": "string",
    # at the model's own depth (docs/theory.md §8; NA when no depth is known):
    "n_layers": "Int64",  # the cell's number of attention layers
    "min_depth": "string",  # d*: "3", "∞" (no depth), "2..4" or "≥2" (bounds), "?"
    "predicted_at_depth": "string",  # "yes" / "no" / "unknown" at exactly n_layers layers
    "reason_at_depth": "string",
}

#: One row per language and layout of a results store (`tables.summarize`).
SUMMARY_COLUMNS: dict[str, str] = {
    "language": "string",
    "alphabet": "string",
    "layout": "string",
    "runs": "Int64",
    "completed": "Int64",
    "failed": "Int64",
    "mean_accuracy": "float64",  # test accuracy over completed runs
    "max_accuracy": "float64",
    "std_accuracy": "float64",  # sample standard deviation (NaN for a single run)
    "n_star": "Int64",  # the best run's longest perfect length N*
    "adversarial_accuracy": "float64",  # mean over completed runs
    "perfect_on_test": "boolean",  # the papers' criterion: some run at 100 % on the test set
    "perfect_runs": "Int64",  # runs at 100 % on the test set (the papers' criterion)
    "short_tested": "Int64",  # completed runs evaluated on the short split
    "recognized_runs": "Int64",  # runs recognized under our criterion
    "untested_short": "boolean",  # some run perfect on test + adversarial, not on short words
    "recognized": "boolean",  # ours: some run at 100 % on test, adversarial and short words
}

#: One row per language and layout: prediction joined with observation
#: (`tables.predicted_vs_observed`); ``verdict`` is one of `VERDICTS`.
COMPARISON_COLUMNS: dict[str, str] = {
    "language": "string",
    "alphabet": "string",
    "group": "string",
    "layout": "string",
    "predicted": "string",  # "yes" / "no" / "unknown"
    "observed": "boolean",  # ours: some run perfect on test, adversarial and short words
    "papers_observed": "boolean",  # the papers' criterion: some run at 100 % test accuracy
    "untested_short": "boolean",  # perfect on test + adversarial, but not tested on short words
    "completed": "Int64",  # completed runs behind the observation
    "verdict": "string",
    "reason": "string",  # why the theory predicts what it does
    # the same judgement against the prediction at the model's own depth (docs/theory.md §8)
    "n_layers": "Int64",
    "min_depth": "string",
    "predicted_at_depth": "string",
    "verdict_at_depth": "string",  # one of VERDICTS, "unknown prediction" without a depth
    "reason_at_depth": "string",  # why the theory predicts what it does at that depth
}

#: One row per cell where theory and experiment disagree (`comparison.disagreements`).
DISAGREEMENT_COLUMNS: dict[str, str] = {
    "language": "string",
    "alphabet": "string",
    "group": "string",
    "layout": "string",
    "verdict": "string",
    "max_accuracy": "float64",
    "n_star": "Int64",
    "adversarial_accuracy": "float64",
    "perfect_on_test": "boolean",
    "theory": "string",  # the prediction's reason
    "mechanism": "string",  # a missed cell's stage (`analysis.diagnosis.MECHANISMS`), else NA
    "note": "string",  # the explanation, from the numbers
}

#: One row per class group and layout (`tables.summarize_by_class`).
CLASS_SUMMARY_COLUMNS: dict[str, str] = {
    "group": "string",
    "layout": "string",
    "languages": "Int64",
    "recognized": "Int64",
    "fraction_recognized": "float64",
    "mean_accuracy": "float64",  # mean over languages of their mean accuracy
    "max_accuracy": "float64",
    "mean_n_star": "float64",
}

#: One row per language, layout and test length (`tables.length_curves`).
CURVE_COLUMNS: dict[str, str] = {
    "language": "string",
    "alphabet": "string",
    "layout": "string",
    "length": "Int64",
    "runs": "Int64",
    "mean_accuracy": "float64",
    "min_accuracy": "float64",
    "max_accuracy": "float64",
}

#: One row per language, layout and adversarial family (`tables.adversarial_by_kind`).
ADVERSARIAL_KIND_COLUMNS: dict[str, str] = {
    "language": "string",
    "alphabet": "string",
    "layout": "string",
    "kind": "string",
    "runs": "Int64",
    "examples": "Int64",
    "mean_accuracy": "float64",
    "min_accuracy": "float64",
}


def conform(
    rows: pd.DataFrame | Iterable[Mapping[str, object]], schema: Mapping[str, str]
) -> pd.DataFrame:
    """A frame with exactly ``schema``'s columns, in order, cast to its dtypes."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    for name in schema:
        if name not in frame.columns:
            frame = frame.assign(**{name: pd.NA})
    frame = frame.loc[:, list(schema)]
    floats = {name: "Float64" for name, dtype in schema.items() if dtype == "float64"}
    return frame.astype(floats).astype(dict(schema)).reset_index(drop=True)  # NA → NaN


def language_label(language: str, alphabet: str = "") -> str:
    """The display name of a language: its name, plus ``over {a,b}`` for an alphabet override."""
    return language if not alphabet else f"{language} over {{{alphabet}}}"


def language_labels(frame: pd.DataFrame) -> list[str]:
    """`language_label` of every row of a frame with ``language`` and ``alphabet`` columns."""
    return [
        language_label(str(name), "" if pd.isna(sigma) else str(sigma))
        for name, sigma in zip(frame["language"], frame["alphabet"], strict=True)
    ]


def _layout_key(label: str) -> tuple[int, int, str, tuple[int, str]]:
    layout = Cell.parse(label).layout  # a cell: the layout, then its positional encoding
    preset, rank = parse_preset(layout), encoding_rank(label)
    if preset is not None and preset.family == "global":
        return (0, 0, layout, rank)
    if preset is not None and preset.window is not None and preset.global_heads is None:
        return (1 if preset.family == "local" else 2, preset.window, layout, rank)
    return (3, 0, layout, rank)


def layout_order(layouts: Iterable[str], first: Sequence[str] | None = None) -> list[str]:
    """Distinct layouts in report order: those of ``first`` (a sweep spec's layout axis) in its
    order, then global, local-k (k ascending), hybrid-k, then others; the cells of one layout
    with positional encodings (`sweeps.cells`) after it, NoPE first."""
    distinct = list(dict.fromkeys(layouts))
    if not first:
        return sorted(distinct, key=_layout_key)
    return cell_order(sorted(distinct, key=_layout_key), list(first))


def slug(text: str) -> str:
    """A file-name-safe lower-case form: ``DYCK-(1,1)`` → ``dyck-1-1``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"
