"""Summary tables of a results store: language × layout, by class group, per length and family.

Inputs are the tidy frames of `expressivity.sweeps.store.ResultsStore` (``runs``, ``lengths``,
``adversarial``) and of `expressivity.analysis.class_membership`; outputs follow the schemas of
`expressivity.analysis.schema`. Protocol (docs/theory.md §5, [LC25, LC26]): per cell, mean, max and
standard deviation of test accuracy over completed runs, the best run's N*, mean adversarial
accuracy, and **recognized** = some completed run is perfect on the test set *and* on the
adversarial set (the store's per-run verdict). ``perfect_on_test`` is the papers' literal
criterion (100 % on random test strings only), kept beside it to show where adversarial
pairs change the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from expressivity.analysis.class_membership import LanguageKey
from expressivity.analysis.schema import (
    ADVERSARIAL_KIND_COLUMNS,
    CLASS_SUMMARY_COLUMNS,
    CURVE_COLUMNS,
    GROUPS,
    SUMMARY_COLUMNS,
    conform,
    language_labels,
    layout_order,
)
from expressivity.sweeps.report import cell_statistics

__all__ = [
    "adversarial_by_kind",
    "groups_of",
    "language_keys",
    "length_curves",
    "matrix",
    "summarize",
    "summarize_by_class",
]

_KEY = ["language", "alphabet", "layout"]


def _keyed(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the alphabet override as a plain string ("" = the catalogue's)."""
    return frame.assign(alphabet=frame["alphabet"].fillna("").astype("string"))


def _with_alphabet(metrics: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    alphabets = _keyed(runs)[["run_id", "alphabet"]]
    return metrics.drop(columns=["alphabet"], errors="ignore").merge(alphabets, on="run_id")


def _ordered(
    table: pd.DataFrame, languages: Sequence[LanguageKey] | None,
    layouts: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Rows by ``languages`` (then first appearance) and by `layout_order` (``layouts`` first)."""
    present = zip(table["language"], table["alphabet"], strict=True)
    keys = list(dict.fromkeys([*(languages or ()), *present]))
    rank = {key: i for i, key in enumerate(keys)}
    columns = {name: i for i, name in enumerate(layout_order(table["layout"], layouts))}
    keys_of = [(rank[key], columns[layout]) for key, layout in zip(
        zip(table["language"], table["alphabet"], strict=True), table["layout"], strict=True)]
    order = sorted(range(len(table)), key=keys_of.__getitem__)
    return table.iloc[order].reset_index(drop=True)


def language_keys(frame: pd.DataFrame) -> list[LanguageKey]:
    """Distinct (language, alphabet override) pairs of a frame, in order of appearance."""
    keyed = _keyed(frame)
    return list(dict.fromkeys(zip(keyed["language"], keyed["alphabet"], strict=True)))


def summarize(
    runs: pd.DataFrame, languages: Sequence[LanguageKey] | None = None,
    layouts: Sequence[str] | None = None,
) -> pd.DataFrame:
    """One row per language × layout of a ``ResultsStore.runs`` frame (`SUMMARY_COLUMNS`),
    by `sweeps.report.cell_statistics` (the CLI's aggregation) keyed by alphabet too; layouts
    in ``layouts`` order (a sweep spec's axis) first."""
    stats = cell_statistics(_keyed(runs), by=_KEY)
    table = conform(stats[list(SUMMARY_COLUMNS)], SUMMARY_COLUMNS)
    return _ordered(table, languages, layouts)


def groups_of(frame: pd.DataFrame, classes: pd.DataFrame) -> pd.Series:
    """The class group of each row (by language and alphabet); "unknown" where unclassified."""
    groups = frame[["language", "alphabet"]].merge(
        classes[["language", "alphabet", "group"]], on=["language", "alphabet"], how="left"
    )["group"]
    return groups.fillna("unknown").astype("string").set_axis(frame.index)


def summarize_by_class(
    summary: pd.DataFrame, classes: pd.DataFrame, layouts: Sequence[str] | None = None
) -> pd.DataFrame:
    """One row per class group × layout (`CLASS_SUMMARY_COLUMNS`), groups in `GROUPS` order,
    layouts in ``layouts`` order first."""
    frame = summary.assign(group=groups_of(summary, classes))
    rows = []
    for (group, layout), cell in frame.groupby(["group", "layout"], sort=False):
        recognized = int(cell["recognized"].fillna(False).astype(bool).sum())
        rows.append(
            {
                "group": group,
                "layout": layout,
                "languages": len(cell),
                "recognized": recognized,
                "fraction_recognized": recognized / len(cell),
                "mean_accuracy": cell["mean_accuracy"].mean(),
                "max_accuracy": cell["max_accuracy"].max(),
                "mean_n_star": cell["n_star"].astype("Float64").mean(),
            }
        )
    table = conform(pd.DataFrame(rows, columns=list(CLASS_SUMMARY_COLUMNS)), CLASS_SUMMARY_COLUMNS)
    columns = {name: i for i, name in enumerate(layout_order(table["layout"], layouts))}
    key = [
        (GROUPS.index(str(g)), columns[str(x)])
        for g, x in zip(table["group"], table["layout"], strict=True)
    ]
    order = sorted(range(len(table)), key=key.__getitem__)
    return table.iloc[order].reset_index(drop=True)


def length_curves(
    lengths: pd.DataFrame, runs: pd.DataFrame, languages: Sequence[LanguageKey] | None = None
) -> pd.DataFrame:
    """Accuracy per language × layout × test length over runs (`CURVE_COLUMNS`)."""
    frame = _with_alphabet(lengths, runs)
    table = (
        frame.groupby([*_KEY, "length"], sort=False)["accuracy"]
        .agg(runs="count", mean_accuracy="mean", min_accuracy="min", max_accuracy="max")
        .reset_index()
    )
    table = conform(table, CURVE_COLUMNS).sort_values("length", kind="stable")
    return _ordered(table.reset_index(drop=True), languages)


def adversarial_by_kind(
    adversarial: pd.DataFrame, runs: pd.DataFrame, languages: Sequence[LanguageKey] | None = None
) -> pd.DataFrame:
    """Accuracy per language × layout × adversarial family (`ADVERSARIAL_KIND_COLUMNS`)."""
    frame = _with_alphabet(adversarial, runs)
    table = (
        frame.groupby([*_KEY, "kind"], sort=False)
        .agg(
            runs=("run_id", "count"),
            examples=("n", "sum"),
            mean_accuracy=("accuracy", "mean"),
            min_accuracy=("accuracy", "min"),
        )
        .reset_index()
    )
    return _ordered(conform(table, ADVERSARIAL_KIND_COLUMNS), languages)


def matrix(frame: pd.DataFrame, value: str, layouts: Sequence[str] | None = None) -> pd.DataFrame:
    """Wide view of a per-cell table: language labels × layouts (in report order, ``layouts``
    first) of ``value``.

    Rows keep the frame's language order; missing cells are NA. The index is named
    "language" and holds `language_label` texts.
    """
    labels = language_labels(frame)
    wide = frame.assign(label=labels).pivot(index="label", columns="layout", values=value)
    columns = layout_order(frame["layout"], layouts)
    wide = wide.reindex(index=list(dict.fromkeys(labels)), columns=columns)
    wide.index.name, wide.columns.name = "language", None
    return wide
