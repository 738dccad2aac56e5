"""Cell pages: one Markdown page per language × cell of a results store, for the site.

A cell page holds what a results table's cell summarizes, all read from the store when the
page is generated (`cell_pages`; the site's hook ``docs/hooks/results.py`` calls it at build
time): the theory's prediction with the classification behind it, as ``expressivity
classify`` prints it (`analysis.class_membership.cell_classification`, cached, the one the
table's prediction was decided by), the observed verdict, every run (seed, lr, accuracies, N*,
steps), each run's accuracy per test length (in bins), its adversarial accuracy per family,
and for a cell where theory and experiment disagree the validation curves of its runs (a PNG
drawn by `stability.plot_learning_curves`). Nothing on a page is typed by hand.
"""

from __future__ import annotations

import io
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pandas as pd

from expressivity.algebra.classification import Classification
from expressivity.analysis.class_membership import cell_classification
from expressivity.analysis.encoder_predictions import encoder_command, is_encoder_cell
from expressivity.analysis.export import format_number, to_markdown
from expressivity.analysis.layout_theory import theory_layout
from expressivity.analysis.provenance import runs_digest
from expressivity.analysis.report import Report
from expressivity.analysis.schema import language_label, slug
from expressivity.analysis.stability import plot_learning_curves
from expressivity.analysis.store_report import build_report
from expressivity.sweeps.cells import Cell as CellLabel
from expressivity.sweeps.cells import with_cells
from expressivity.sweeps.store import ResultsStore

__all__ = ["LENGTH_BINS", "CellPage", "cell_name", "cell_page", "cell_pages", "cells_index",
           "classify_command", "length_bins"]

#: Columns of a cell page's per-length table: the test lengths cut into this many bins.
LENGTH_BINS = 8
#: A cell: (language, alphabet override or "", cell label as `sweeps.cells` writes it).
Cell = tuple[str, str, str]


@dataclass(frozen=True)
class CellPage:
    """One generated page: its file name under ``cells/``, its Markdown and its figures."""

    cell: Cell
    name: str  # e.g. "lt-1--global.md"
    markdown: str
    figures: tuple[tuple[str, bytes], ...] = ()  # (file name under cells/, PNG bytes)


def cell_name(language: str, alphabet: str, cell: str) -> str:
    """The page's file name: ``DYCK-(1,1)`` × ``global+rope`` → ``dyck-1-1--global-rope.md``."""
    return f"{slug(language_label(language, alphabet))}--{slug(cell)}.md"


def classify_command(c: Classification, language: str, alphabet: str) -> str:
    """The ``expressivity classify`` command that prints ``c`` (plus synthesized formulas)."""
    parts = ["expressivity", "classify", shlex.quote(language)]
    if alphabet:
        parts += ["--alphabet", shlex.quote(alphabet)]
    parts += ["--ks", ",".join(map(str, c.ks))]
    if c.layouts:
        parts += ["--layouts", shlex.quote(" ".join(c.layouts))]
    return " ".join(parts)


def length_bins(lengths: Sequence[int], bins: int = LENGTH_BINS) -> list[tuple[int, int]]:
    """The sorted distinct ``lengths`` cut into at most ``bins`` contiguous (first, last)
    ranges of near-equal size."""
    values = sorted(set(int(n) for n in lengths))
    if not values:
        return []
    count = min(bins, len(values))
    cuts = [round(i * len(values) / count) for i in range(count + 1)]
    return [(values[a], values[b - 1]) for a, b in pairwise(cuts) if b > a]


def _fmt(value: Any) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format_number(value)
    return str(value)


def _prediction(row: Mapping[str, Any], c: Classification | str, cell: Cell) -> list[str]:
    language, alphabet, label = cell
    lines = ["## Prediction", "",
             f"**{row['predicted']}**: {row['reason']}", ""]
    if not pd.isna(row.get("n_layers")):
        lines += [f"At {int(row['n_layers'])} layers: **{_fmt(row.get('predicted_at_depth'))}** "
                  f"(d* = {_fmt(row.get('min_depth'))}; docs/theory.md §8).", ""]
    if not isinstance(c, Classification):
        return [*lines, f"No classification: {c}.", ""]
    parsed = CellLabel.parse(label)
    if is_encoder_cell(parsed):
        layers = None if pd.isna(row.get("n_layers")) else int(row["n_layers"])
        lines += ["This cell is predicted by the encoder theory of docs/theory.md §13, as "
                  f"`{encoder_command(language, alphabet, parsed, layers)}` answers it (the "
                  "layout laid over the runs' own layers and heads, `classify` lays it over 8 "
                  "heads; every \"no\" names two words whose readout types agree on the "
                  "model's own masks). The language's classes, as "
                  f"`{classify_command(c, language, alphabet)}` prints them:", "",
                  "```text", c.to_table(), "```", ""]
        return lines
    theory = theory_layout(label)
    read = [r for r in c.recognizers if r.layout == theory]
    table = c.to_table()
    if read:
        r = read[0]
        printed = [x for x in table.split("\n") if x.startswith(f"{r.layout:<22} {r.logic} ")]
        lines += [f"This cell is predicted by the row `{r.layout}` ({r.logic}) of the "
                  "classification:", "", "```text", *printed[-1:], "```", ""]
    else:
        lines += [f"No row of the classification predicts `{label}` "
                  "(its theory is not written); the language's classes:", ""]
    lines += [f"The classification, as `{classify_command(c, language, alphabet)}` prints it "
              "(without the synthesized formulas):", "", "```text", table, "```", ""]
    return lines


def _observed(row: Mapping[str, Any], summary: Mapping[str, Any]) -> list[str]:
    table = pd.DataFrame([{
        "predicted": row["predicted"], "observed": row["observed"],
        "papers' criterion": row.get("papers_observed"), "verdict": row["verdict"],
        "layers": row.get("n_layers"), "predicted at these layers": row.get("predicted_at_depth"),
        "verdict at these layers": row.get("verdict_at_depth"),
        "runs": summary.get("runs"), "completed": summary.get("completed"),
        "max accuracy": summary.get("max_accuracy"), "mean accuracy": summary.get("mean_accuracy"),
        "N*": summary.get("n_star"), "adversarial": summary.get("adversarial_accuracy"),
        "recognized": summary.get("recognized"),
    }])
    return ["## Theory vs experiment", "", to_markdown(table).rstrip(), ""]


def _runs(runs: pd.DataFrame) -> list[str]:
    columns = {"seed": "seed", "lr": "lr", "status": "status", "test_accuracy": "test accuracy",
               "adversarial_accuracy": "adversarial", "train_accuracy": "train accuracy",
               "n_star": "N*", "recognized": "recognized", "steps": "steps",
               "wall_time": "wall time (s)", "run_id": "run id"}
    shown = runs.sort_values(["seed", "lr"])[list(columns)].rename(columns=columns)
    shown = shown.assign(**{"run id": [f"`{r}`" for r in shown["run id"]]})
    lines = ["## Runs", "", to_markdown(shown.reset_index(drop=True)).rstrip(), ""]
    errors = runs[runs["error"].fillna("").astype(str) != ""]
    lines += [f"- seed {s}, lr {lr:g}: {e}" for s, lr, e in
              zip(errors["seed"], errors["lr"], errors["error"], strict=True)]
    return [*lines, ""] if len(errors) else lines


def _run_label(seed: Any, lr: Any) -> str:
    return f"seed {seed}, lr {float(lr):g}"


def _per_length(lengths: pd.DataFrame, runs: pd.DataFrame) -> list[str]:
    if lengths.empty:
        return []
    bins = length_bins(lengths["length"].tolist())
    by_run = dict(tuple(lengths.groupby("run_id", sort=False)))
    rows = []
    for run in runs.sort_values(["seed", "lr"]).to_dict("records"):
        mine = by_run.get(run["run_id"], lengths.iloc[:0])
        at, n, correct = (mine[c].to_numpy() for c in ("length", "n", "correct"))
        row: dict[str, Any] = {"run": _run_label(run["seed"], run["lr"])}
        for first, last in bins:
            inside = (at >= first) & (at <= last)
            total = int(n[inside].sum())
            row[f"{first}–{last}"] = float(correct[inside].sum()) / total if total else None
        rows.append(row)
    return ["## Accuracy per test length", "",
            f"Each run's accuracy over the test strings of each range of lengths "
            f"({len(set(lengths['length']))} lengths in {len(bins)} bins):", "",
            to_markdown(pd.DataFrame(rows)).rstrip(), ""]


def _adversarial(adversarial: pd.DataFrame, runs: pd.DataFrame) -> list[str]:
    if adversarial.empty:
        return []
    keyed = adversarial.merge(runs[["run_id", "seed", "lr"]], on="run_id", suffixes=("_", ""))
    keyed = keyed.sort_values(["seed", "lr"], kind="stable")
    keyed = keyed.assign(run=[_run_label(s, lr) for s, lr in
                              zip(keyed["seed"], keyed["lr"], strict=True)])
    wide = keyed.pivot_table(index="run", columns="kind", values="accuracy", aggfunc="first",
                             sort=False).rename_axis(None, axis=1)
    sizes = keyed.groupby("kind", sort=False)["n"].max()
    wide.columns = [f"{kind} (n = {int(sizes[kind])})" for kind in wide.columns]
    return ["## Adversarial accuracy per family", "",
            to_markdown(wide.rename_axis("run")).rstrip(), ""]


def _curves(
    history: pd.DataFrame, cell: Cell, verdict: str
) -> tuple[list[str], tuple[tuple[str, bytes], ...]]:
    mine = history[(history["language"] == cell[0]) & (history["alphabet"] == cell[1])
                   & (history["layout"] == cell[2])]
    if mine.empty:
        return ["## Learning curves", "", "No validation history was stored for these runs.",
                ""], ()
    title = f"{language_label(cell[0], cell[1])} × {cell[2]}: {verdict}"
    figure = plot_learning_curves(history, [cell], titles=[title])
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    name = cell_name(*cell).removesuffix(".md") + "-curves.png"
    return (["## Learning curves", "",
             "Theory and experiment disagree here: the validation accuracy (mean of the short "
             "and long validation sets) of every run against the training step.", "",
             f"![learning curves of {title}]({name})", ""], ((name, buffer.getvalue()),))


def cell_page(
    report: Report, cell: Cell, lengths: pd.DataFrame, adversarial: pd.DataFrame,
    header: Sequence[str] = (),
) -> CellPage:
    """The page of one cell of ``report``; ``lengths`` and ``adversarial`` are the store's
    per-run frames labelled by cell (`sweeps.cells.with_cells`), ``header`` lines go on top."""
    language, alphabet, label = cell

    def pick(frame: pd.DataFrame) -> pd.DataFrame:
        return frame[(frame["language"] == language)
                     & (frame["alphabet"].fillna("") == alphabet) & (frame["layout"] == label)]

    row = pick(report.comparison).iloc[0].to_dict()
    summary = pick(report.summary)
    runs = pick(report.runs)
    ids = set(runs["run_id"])
    lines = [f"# {language_label(language, alphabet)} × {label}", "", *header]
    lines += _observed(row, summary.iloc[0].to_dict() if len(summary) else {})
    c = cell_classification(language, alphabet, dict.fromkeys(report.runs["layout"]))
    lines += _prediction(row, c, cell)
    lines += _runs(runs)
    lines += _per_length(lengths[lengths["run_id"].isin(ids)], runs)
    lines += _adversarial(adversarial[adversarial["run_id"].isin(ids)], runs)
    figures: tuple[tuple[str, bytes], ...] = ()
    disagree = report.disagreements
    if not disagree.empty and ((disagree["language"] == language)
                               & (disagree["alphabet"].fillna("") == alphabet)
                               & (disagree["layout"] == label)).any():
        more, figures = _curves(report.history, cell, str(row["verdict"]))
        lines += more
    return CellPage(cell, cell_name(*cell), "\n".join(lines).rstrip() + "\n", figures)


def _header(
    report: Report, provenance: Mapping[str, Any] | None, shown: str
) -> list[str]:
    digest = runs_digest(report.runs)
    lines = [f"Generated when the site was built from the store `{shown}` ({len(report.runs)} "
             f"runs, runs digest `{digest}`); the [results page](../index.md) it belongs to.", ""]
    if provenance:
        recorded = str(provenance.get("store", {}).get("runs_digest", ""))
        lines += [f"The results page was generated by `{provenance.get('command', '?')}` at "
                  f"commit `{str(provenance.get('git_commit', '?'))[:12]}`.", ""]
        if recorded and recorded != digest:
            lines += ["!!! warning \"The store changed after its results page was generated\"",
                      f"    The page's provenance records runs digest `{recorded}`, the store now "
                      f"gives `{digest}`: rerun the page's command.", ""]
    return lines


def cell_pages(
    db: str | Path, *, sweep: str | None = None, provenance: Mapping[str, Any] | None = None,
    shown: str | None = None, recorded: pd.DataFrame | None = None,
) -> list[CellPage]:
    """Every cell page of the store ``db`` (only ``sweep``'s runs if given), in table order;
    ``provenance`` is the results page's ``provenance.json`` (its command and commit go on
    each page, and a store changed since is flagged); ``shown`` names the store on the page;
    ``recorded``: the results page's predictions (`comparison.read_predictions`), used when
    the store is the one the page was generated from (its runs digest is the provenance's)
    and they cover every cell (`store_report.build_report`); else the theory decides again."""
    with ResultsStore(db, create=False) as store:
        stored = store.runs(sweep=sweep)
        _, lengths, adversarial = with_cells(
            stored, store.lengths(sweep=sweep), store.adversarial(sweep=sweep))
    page_digest = str((provenance or {}).get("store", {}).get("runs_digest", ""))
    if page_digest != runs_digest(stored):
        recorded = None
    report = build_report(db, sweep=sweep, recorded=recorded)
    header = _header(report, provenance, shown or str(db))
    if report.recorded:
        header += ["The predictions are those the results page recorded "
                   "(`tables/predicted_vs_observed.csv`, from the command above), not decided "
                   "again when the site was built.", ""]
    cells = zip(report.comparison["language"], report.comparison["alphabet"].fillna(""),
                report.comparison["layout"], strict=True)
    runs = report.runs.assign(alphabet=report.runs["alphabet"].fillna(""))
    ids = {(str(a), str(b), str(c)): list(frame["run_id"]) for (a, b, c), frame in
           runs.groupby(["language", "alphabet", "layout"], sort=False)}
    by_run = {"lengths": dict(tuple(lengths.groupby("run_id", sort=False))),
              "adversarial": dict(tuple(adversarial.groupby("run_id", sort=False)))}

    def part(kind: str, frame: pd.DataFrame, cell: Cell) -> pd.DataFrame:
        found = [by_run[kind][r] for r in ids.get(cell, []) if r in by_run[kind]]
        return pd.concat(found) if found else frame.iloc[:0]

    out = []
    for a, b, c in dict.fromkeys(cells):
        cell = (str(a), str(b), str(c))
        out.append(cell_page(report, cell, part("lengths", lengths, cell),
                             part("adversarial", adversarial, cell), header))
    return out


def cells_index(pages: Sequence[CellPage], title: str) -> str:
    """A page linking every cell page: a language × cell table of links, in table order."""
    rows: dict[str, dict[str, str]] = {}
    for page in pages:
        language, alphabet, label = page.cell
        rows.setdefault(language_label(language, alphabet), {})[label] = page.name
    labels = list(dict.fromkeys(page.cell[2] for page in pages))
    lines = [f"# {title}: cell pages", "",
             f"{len(pages)} cells, each with its prediction, its runs and their per-length and "
             "adversarial results; generated when the site was built from the store of the "
             "[results page](../index.md).", "",
             "| language | " + " | ".join(labels) + " |",
             "|---|" + "---|" * len(labels)]
    for language, names in rows.items():
        links = [f"[page]({names[x]})" if x in names else "—" for x in labels]
        lines.append(f"| {language} | " + " | ".join(links) + " |")
    return "\n".join(lines) + "\n"
