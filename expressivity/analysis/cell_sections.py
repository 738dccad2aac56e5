"""Cell page sections: the prediction, the verdict, the runs, per-length and adversarial accuracy.

Each section is the Markdown lines of one heading of a cell page, read from the report's and
the store's frames of that cell (`cell_pages.cell_page` puts them in order): the theory's
prediction with the classification behind it, the observed verdict, every run, each run's
accuracy per test length (in `LENGTH_BINS` bins, `length_bins`) and per adversarial family,
and, where theory and experiment disagree, the validation curves of its runs (a PNG drawn by
`stability.plot_learning_curves`). Also here: a page's file name (`cell_name`) and the
``expressivity classify`` command that reprints a classification (`classify_command`).
"""

from __future__ import annotations

import io
import shlex
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

import pandas as pd

from expressivity.algebra.classification import Classification
from expressivity.analysis.encoder_predictions import encoder_command, is_encoder_cell
from expressivity.analysis.export import format_number, to_markdown
from expressivity.analysis.layout_theory import theory_layout
from expressivity.analysis.schema import language_label, slug
from expressivity.analysis.stability import plot_learning_curves
from expressivity.sweeps.cell_labels import Cell as CellLabel

__all__ = ["LENGTH_BINS", "Cell", "adversarial_section", "cell_name", "classify_command",
           "curves_section", "length_bins", "observed_section", "per_length_section",
           "prediction_section", "runs_section"]

#: Columns of a cell page's per-length table: the test lengths cut into this many bins.
LENGTH_BINS = 8
#: A cell: (language, alphabet override or "", cell label as `sweeps.cells` writes it).
Cell = tuple[str, str, str]


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


def prediction_section(row: Mapping[str, Any], c: Classification | str, cell: Cell) -> list[str]:
    """The "Prediction" section: the theory's verdict and the classification row behind it."""
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


def observed_section(row: Mapping[str, Any], summary: Mapping[str, Any]) -> list[str]:
    """The "Theory vs experiment" section: the predicted and observed verdicts, the summary."""
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


def runs_section(runs: pd.DataFrame) -> list[str]:
    """The "Runs" section: every run of the cell, and the error of each that failed."""
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


def per_length_section(lengths: pd.DataFrame, runs: pd.DataFrame) -> list[str]:
    """The "Accuracy per test length" section: each run's accuracy per length bin."""
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


def adversarial_section(adversarial: pd.DataFrame, runs: pd.DataFrame) -> list[str]:
    """The "Adversarial accuracy per family" section: each run's accuracy per family."""
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


def curves_section(
    history: pd.DataFrame, cell: Cell, verdict: str
) -> tuple[list[str], tuple[tuple[str, bytes], ...]]:
    """The "Learning curves" section and its PNG (the file name under ``cells/``, bytes)."""
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
