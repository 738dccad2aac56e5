"""`expressivity results`: the recognition table (language × layout) of a results store."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``results`` subcommand."""
    p = sub.add_parser(
        "results",
        help="summarize a results store: language × layout accuracy, N*, recognized",
        description=__doc__,
    )
    p.add_argument("db", help="results store, e.g. results.db")
    p.add_argument("--sweep", default=None, help="only the runs of this sweep (by name)")
    p.add_argument("--format", choices=("text", "markdown", "csv"), default="text")
    p.add_argument("--matrix", action="store_true",
                   help="also print the compact language × layout recognition matrix")
    p.add_argument("--no-theory", action="store_true",
                   help="leave out the predicted column (no classification; faster)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the summary table of the store (exit 1 if it holds no runs)."""
    from expressivity.sweeps.cells import with_cells
    from expressivity.sweeps.codes import code_note
    from expressivity.sweeps.report import format_table, recognition_matrix, summarize
    from expressivity.sweeps.store import ResultsStore

    with ResultsStore(args.db, create=False) as store:
        (runs,) = with_cells(store.runs(sweep=args.sweep))
        sweeps = store.sweeps()
    if runs.empty:
        print(f"{args.db}: no runs" + (f" for sweep {args.sweep!r}" if args.sweep else ""))
        return 1
    summary = summarize(runs, *_axis_order(sweeps, args.sweep))
    if not args.no_theory:
        summary = with_predictions(summary, runs)
    print(format_table(summary, args.format))
    if not args.no_theory and args.format == "text":
        marked = summary["vs_theory"].str.startswith(MARK)
        judged = summary["vs_theory"].isin(["agree"]) | marked
        print(f"\n{int(judged.sum())} cells judged against a proven prediction, "
              f"{int(marked.sum())} disagree (marked {MARK})")
    if args.matrix:
        print()
        print(format_table(recognition_matrix(summary), args.format, index=True))
    note = code_note(runs)
    if note is not None:  # stderr: a csv or markdown table on stdout stays clean
        print(f"warning: {args.db}: {note} (`expressivity sweep --rerun-other-code` retrains "
              "them)", file=sys.stderr)
    return 0


#: Marks a cell whose observation disagrees with a proven prediction.
MARK = "≠"


def with_predictions(summary: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """``summary`` with the theory's ``predicted`` verdict and a ``vs_theory`` mark per cell.

    ``vs_theory``: "agree"; "≠ learned beyond" (predicted no, some run recognized it on the
    tested lengths); "≠ failed within" (predicted yes, no run recognized it); "—" when the
    prediction is unknown or no run completed.
    """
    from expressivity.analysis.classes import predictions

    alphabets = runs.dropna(subset=["alphabet"]).groupby("language")["alphabet"].first()
    names = dict.fromkeys(summary["language"])
    keys = [(lang, str(alphabets.get(lang, "") or "")) for lang in names]
    theory = predictions(keys, list(dict.fromkeys(summary["layout"])))
    predicted = dict(zip(zip(theory["language"], theory["layout"], strict=True),
                         theory["predicted"], strict=True))
    out = summary.copy()
    out["predicted"] = [predicted.get((lang, layout), "unknown")
                        for lang, layout in zip(out["language"], out["layout"], strict=True)]
    completed = out["runs"] - out["failed"]
    marks = []
    for p, rec, done in zip(out["predicted"], out["recognized"], completed, strict=True):
        if p not in ("yes", "no") or not done:
            marks.append("—")
        elif (p == "yes") == bool(rec):
            marks.append("agree")
        else:
            marks.append(f"{MARK} learned beyond" if rec else f"{MARK} failed within")
    out["vs_theory"] = marks
    return out


def _axis_order(sweeps: pd.DataFrame, name: str | None) -> tuple[list[str], list[str]]:
    """Language and layout order of the sweep's spec (the latest one registered), if readable."""
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
