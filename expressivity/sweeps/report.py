"""The recognition table: runs of a results store summarized per language × layout.

Per cell, following the papers' protocol (docs/theory.md §5): the number of runs (and failed
runs), mean and max test accuracy over completed runs, N* (the best run's longest perfect
length), mean adversarial accuracy, and two criteria side by side: ``perfect_on_test`` (the
papers': some run at 100 % on the random test set, [LC25, LC26]) and ``recognized`` (ours:
some run at 100 % on the test set, on every adversarial pair and on the short split,
`data.short_words`). A run recorded before the short split existed is *not tested on short
words* (`short_word_status`) and never counts as recognized; ``untested_short`` marks a cell
where such a run was perfect on the test and adversarial sets. Every accuracy the toolkit
prints goes through `format_number` (here and in `analysis`), so one value reads the same in
`expressivity results` and in the figure tables.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from numbers import Integral, Real

import pandas as pd

from expressivity.sweeps.cell_labels import cell_order
from expressivity.training.spec import ShortWordMetric

__all__ = [
    "STATISTICS", "SUMMARY_COLUMNS", "cell_statistics", "format_cell", "format_number",
    "format_table", "recognition_matrix", "short_word_status", "summarize", "to_csv",
    "to_markdown", "with_index_column",
]

#: `short_word_status` values.
SHORT_PASSED, SHORT_FAILED, SHORT_UNTESTED = "passed", "failed", "not tested on short words"


def short_word_status(extra: object) -> str:
    """A stored run's short-word outcome from its ``extra`` JSON: `SHORT_PASSED`,
    `SHORT_FAILED`, or `SHORT_UNTESTED` (no evaluation recorded, or unreadable)."""
    try:
        doc = json.loads(str(extra)) if not isinstance(extra, dict) else extra
    except (TypeError, ValueError):
        return SHORT_UNTESTED
    metric = ShortWordMetric.from_extra(doc) if isinstance(doc, dict) else None
    if metric is None:
        return SHORT_UNTESTED
    return SHORT_PASSED if metric.perfect else SHORT_FAILED

#: Columns of `summarize` and their dtypes.
SUMMARY_COLUMNS: dict[str, str] = {
    "language": "string",
    "layout": "string",
    "runs": "Int64",
    "failed": "Int64",
    "mean_accuracy": "float64",
    "max_accuracy": "float64",
    "n_star": "Int64",
    "adversarial_accuracy": "float64",
    "perfect_on_test": "boolean",  # the papers' criterion: some run at 100 % on the test set
    "untested_short": "boolean",  # a run perfect on test and adversarial sets, no short words
    "recognized": "boolean",  # ours: test, adversarial and short words (`cell_statistics`)
}


#: Per-cell statistics of `cell_statistics`, after its grouping columns.
STATISTICS = ("runs", "completed", "failed", "mean_accuracy", "max_accuracy", "std_accuracy",
              "n_star", "adversarial_accuracy", "perfect_on_test", "perfect_runs", "short_tested",
              "recognized_runs", "untested_short", "recognized")


def cell_statistics(runs: pd.DataFrame, by: Sequence[str] = ("language", "layout")
                    ) -> pd.DataFrame:
    """One row per group ``by`` of a `ResultsStore.runs` frame: ``by`` then `STATISTICS`.

    The one aggregation of runs into cells: `summarize` (the CLI tables) and
    `analysis.tables.summarize` (the figures, keyed by alphabet too) both read it.
    """
    rows = []
    for key, cell in runs.groupby(list(by), sort=False):
        ok = cell[cell["status"] == "completed"]
        accuracy = ok["test_accuracy"].astype("float64")
        extras = ok["extra"] if "extra" in ok.columns else pd.Series([None] * len(ok))
        short = [short_word_status(x) for x in extras]
        stored = [bool(r) for r in ok["recognized"].fillna(False)]
        ours = [r and s == SHORT_PASSED for r, s in zip(stored, short, strict=True)]
        rows.append({
            **dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
            "runs": len(cell),
            "completed": len(ok),
            "failed": int((cell["status"] == "failed").sum()),
            "mean_accuracy": accuracy.mean(),
            "max_accuracy": accuracy.max(),
            "std_accuracy": accuracy.std(ddof=1),
            "n_star": ok["n_star"].max() if ok["n_star"].notna().any() else pd.NA,
            "adversarial_accuracy": ok["adversarial_accuracy"].astype("float64").mean(),
            "perfect_on_test": bool((accuracy == 1.0).any()),
            "perfect_runs": int((accuracy == 1.0).sum()),
            "short_tested": sum(s != SHORT_UNTESTED for s in short),
            "recognized_runs": sum(ours),
            "untested_short": not any(ours) and any(
                r and s == SHORT_UNTESTED for r, s in zip(stored, short, strict=True)),
            "recognized": any(ours),
        })
    return pd.DataFrame(rows, columns=[*by, *STATISTICS])


def summarize(
    runs: pd.DataFrame,
    languages: Sequence[str] | None = None,
    layouts: Sequence[str] | None = None,
) -> pd.DataFrame:
    """One row per (language, layout) of a `ResultsStore.runs` frame (`SUMMARY_COLUMNS`).

    Rows follow ``languages`` and ``layouts`` order where given (others after, sorted); cells
    of one layout with other positional encodings (`sweeps.cells`) follow their layout.
    """
    table = cell_statistics(runs)[list(SUMMARY_COLUMNS)].astype(SUMMARY_COLUMNS)
    lang_rank = _rank(table["language"], languages)
    layout_rank = _rank(table["layout"], cell_order(table["layout"].astype(str), layouts))
    order = sorted(range(len(table)), key=lambda i: (lang_rank[i], layout_rank[i]))
    return table.iloc[order].reset_index(drop=True)


def _rank(column: pd.Series, preferred: Sequence[str] | None) -> list[tuple[int, str]]:
    first = {v: i for i, v in enumerate(preferred or ())}
    return [(first.get(v, len(first)), str(v)) for v in column]


def spec_axis_order(sweeps: pd.DataFrame, name: str | None = None) -> tuple[list[str], list[str]]:
    """Language and layout order of the store's sweep specs (``name``'s, else every one
    registered, in order), where their text still parses; tables and figures keep it."""
    from expressivity.errors import ExpressivityError
    from expressivity.sweeps.spec import parse_sweep

    chosen = sweeps[sweeps["name"] == name] if name else sweeps
    languages: list[str] = []
    layouts: list[str] = []
    for source, path in zip(chosen["source"], chosen["path"], strict=True):
        try:
            axes = dict(parse_sweep(str(source), str(path)).axes)
        except ExpressivityError:  # the catalogue or profiles changed since: keep sorted order
            continue
        languages += [x for x in axes.get("language", ()) if x not in languages]
        layouts += [x for x in axes.get("layout", ()) if x not in layouts]
    return languages, layouts


def recognition_matrix(summary: pd.DataFrame) -> pd.DataFrame:
    """Language rows × layout columns; cells "✓ 1.000" (recognized), "✗ 0.873" (max accuracy),
    or "? 1.000" (perfect on test and adversarial sets but not tested on short words)."""
    cells = summary.assign(
        cell=[
            ("✓ " if rec else "✗ ") + (format_number(acc) if pd.notna(acc) else "failed")
            for rec, acc in zip(summary["recognized"], summary["max_accuracy"], strict=True)
        ]
    )
    if "untested_short" in summary.columns:
        untested = summary["untested_short"].fillna(False).astype(bool)
        cells.loc[untested.to_numpy(), "cell"] = [
            "? " + c[2:] for c in cells.loc[untested.to_numpy(), "cell"]]
    matrix = cells.pivot(index="language", columns="layout", values="cell")
    matrix = matrix.reindex(
        index=list(dict.fromkeys(summary["language"])),
        columns=list(dict.fromkeys(summary["layout"])),
    )
    matrix.columns.name = None
    return matrix.fillna("—")


def format_table(table: pd.DataFrame, fmt: str = "text", *, index: bool = False) -> str:
    """``table`` as aligned text, GitHub Markdown (`to_markdown`) or CSV (`to_csv`)."""
    frame = table.reset_index() if index else table
    if fmt == "csv":
        return to_csv(frame)
    if fmt == "markdown":
        return to_markdown(frame).rstrip("\n")
    shown = frame.astype(object).map(format_cell)
    return _aligned(shown, numeric=[pd.api.types.is_numeric_dtype(t) for t in frame.dtypes])


def to_markdown(table: pd.DataFrame, *, digits: int = 3) -> str:
    """A GitHub Markdown table (``|`` in cells escaped); numeric columns right-aligned; a named
    index becomes the first column. The one Markdown writer (CLI tables and figure tables)."""
    frame = with_index_column(table)
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(
        frame[c]) for c in frame.columns]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    head = [str(c) for c in frame.columns]
    body = [[format_cell(v, digits) for v in row]
            for row in frame.astype(object).itertuples(index=False)]
    rule = "|" + "|".join("---:" if num else "---" for num in numeric) + "|"
    return "\n".join([line(head), rule, *(line(r) for r in body)]) + "\n"


def to_csv(table: pd.DataFrame) -> str:
    """CSV text with full precision; missing values empty; a named index becomes a column."""
    return str(with_index_column(table).to_csv(index=False, lineterminator="\n"))


def with_index_column(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with a named index (such as a language × layout matrix) as its first column."""
    return table.reset_index() if table.index.name is not None else table


def _aligned(shown: pd.DataFrame, numeric: list[bool]) -> str:
    """Plain text columns two spaces apart: text left-aligned, numbers right-aligned."""
    rows = [list(map(str, shown.columns)), *(list(r) for r in shown.itertuples(index=False))]
    widths = [max(len(row[i]) for row in rows) for i in range(len(shown.columns))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(w) if num else cell.ljust(w)
            for cell, w, num in zip(row, widths, numeric, strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def format_cell(value: object, digits: int = 3) -> str:
    """One table cell: missing → "—", booleans yes/no, integers as they are, other numbers by
    `format_number` (every table of the toolkit, text, Markdown and LaTeX, reads cells so)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        return format_number(float(value), digits)
    return str(value)


def format_number(value: float, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals, never rounded onto a whole number it is not.

    0.9996 shows as 0.999, not 1.000, so that only a perfect score reads as perfect.
    """
    text = f"{value:.{digits}f}"
    shown, scale = float(text), 10**digits
    if shown != value and shown.is_integer():
        edge = math.floor(value * scale) if value < shown else math.ceil(value * scale)
        text = f"{edge / scale:.{digits}f}"
    return text
