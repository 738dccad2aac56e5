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
    p.add_argument("--runs", action="store_true",
                   help="list the runs instead (id, language, layout, seed, lr, verdict): the "
                   "ids `predict` and `extract` take")
    p.add_argument("--matrix", action="store_true",
                   help="also print the compact language × layout recognition matrix")
    p.add_argument("--no-theory", action="store_true",
                   help="leave out the predicted column (no classification; faster)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the summary table of the store (exit 1 if it holds no runs)."""
    from expressivity.sweeps.cells import with_cells
    from expressivity.sweeps.codes import code_note
    from expressivity.sweeps.report import (
        format_table,
        recognition_matrix,
        spec_axis_order,
        summarize,
    )
    from expressivity.sweeps.store import ResultsStore

    with ResultsStore(args.db, create=False) as store:
        stored = store.runs()  # as stored: the rules judge every run their levers name
        (runs,) = with_cells(stored if args.sweep is None else store.runs(sweep=args.sweep))
        sweeps = store.sweeps()
    if runs.empty:
        print(f"{args.db}: no runs" + (f" for sweep {args.sweep!r}" if args.sweep else ""))
        return 1
    if args.runs:
        print(format_table(run_list(runs), args.format))
        return 0
    summary = summarize(runs, *spec_axis_order(sweeps, args.sweep))
    if not args.no_theory:
        summary = with_predictions(summary, runs)
    print(format_table(summary, args.format))
    if not args.no_theory and args.format == "text":
        marked = summary["vs_theory"].str.startswith(MARK)
        judged = summary["vs_theory"].isin(["agree"]) | marked
        untested = summary["vs_theory"] == UNTESTED_SHORT
        print(f"\n{honest_line(summary)}")
        print(f"{int(judged.sum())} cells judged against a proven prediction, "
              f"{int(marked.sum())} disagree (marked {MARK})"
              + (f", {int(untested.sum())} not judged: perfect on the test and adversarial "
                 "sets but not tested on short words (marked ?)" if untested.any() else ""))
        learned = int((summary["vs_theory"] == UNKNOWN_BUT_LEARNED).sum())
        if learned:
            print(f"{learned} cells recognized where the theory is unknown (marked ?): "
                  "evidence worth a proof")
        deep = _marks(summary["at_depth"], summary)
        wrong = sum(m.startswith(MARK) for m in deep)
        print(f"at each cell's own number of layers (d*, docs/theory.md §8): "
              f"{wrong + deep.count('agree')} judged, {wrong} disagree")
    if args.matrix:
        print()
        print(format_table(recognition_matrix(summary), args.format, index=True))
    if args.format == "text":
        ruled = sweeps if args.sweep is None else sweeps[sweeps["name"] == args.sweep]
        for line in rule_lines(ruled, stored):
            print(line)
    note = code_note(runs)
    if note is not None:  # stderr: a csv or markdown table on stdout stays clean
        print(f"warning: {args.db}: {note} (`expressivity sweep --rerun-other-code` retrains "
              "them)", file=sys.stderr)
    return 0


def rule_lines(sweeps: pd.DataFrame, runs: pd.DataFrame) -> list[str]:
    """The line "rule of SWEEP (TEXT): VERDICT" of each sweep of the store that states a [rule]
    (`analysis.rule`), judged on every run of the store (``runs`` as stored)."""
    from expressivity.analysis.levers import chosen_specs
    from expressivity.analysis.rule import sweep_rules

    judged = sweep_rules(runs, chosen_specs(sweeps, runs))
    return [f"rule of {row.sweep} ({row.rule}): {row.verdict}"
            for row in judged.itertuples(index=False)]


def run_list(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per run, in language, layout, seed, lr order: its id and verdict."""
    import pandas as pd

    ordered = runs.sort_values(["language", "layout", "seed", "lr", "run_id"], kind="stable")
    verdicts = [
        ("recognized" if bool(rec) else "not recognized") if status == "completed"
        else f"failed: {_last_line(error)}"
        for status, rec, error in zip(ordered["status"], ordered["recognized"], ordered["error"],
                                      strict=True)
    ]
    return pd.DataFrame({
        "run_id": ordered["run_id"].astype(str).to_numpy(),
        "language": ordered["language"].to_numpy(),
        "layout": ordered["layout"].to_numpy(),
        "seed": ordered["seed"].to_numpy(),
        "lr": ordered["lr"].to_numpy(),
        "test_accuracy": ordered["test_accuracy"].to_numpy(),
        "n_star": ordered["n_star"].to_numpy(),
        "verdict": verdicts,
    })


def _last_line(error: object) -> str:
    text = "" if error is None or (isinstance(error, float) and error != error) else str(error)
    lines = text.strip().splitlines()
    return lines[-1][:80] if lines else "?"


def honest_line(summary: pd.DataFrame) -> str:
    """`analysis.recall.honest_split` of a `with_predictions` table, as one sentence."""
    from expressivity.analysis.recall import honest_split

    cells = summary.assign(
        completed=summary["runs"] - summary["failed"],
        observed=summary["recognized"].fillna(False).astype(bool),
        papers_observed=summary["perfect_on_test"].fillna(False).astype(bool),
        untested_short=summary["untested_short"].fillna(False).astype(bool))
    return str(honest_split(cells))


#: Marks a cell whose observation disagrees with a proven prediction.
MARK = "≠"
#: Marks a cell the theory cannot decide but where some run recognized the language.
UNKNOWN_BUT_LEARNED = "? recognized, theory unknown"
#: Marks a cell whose best runs predate the short-word split (judged neither way).
UNTESTED_SHORT = "? not tested on short words"


def with_predictions(summary: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """``summary`` with the theory's ``predicted`` verdict and a ``vs_theory`` mark per cell.

    ``vs_theory``: "agree"; "≠ learned beyond" (predicted no, some run recognized it on the
    tested lengths); "≠ failed within" (predicted yes, no run recognized it); "? recognized,
    theory unknown" when no proof either way exists but a run recognized the language (the
    interesting cells: evidence where the theory is silent); "? not tested on short words"
    (the best runs were recorded before the short split existed: judged neither way); "—" when
    the prediction is unknown and no run recognized it, or no run completed. ``d*`` and
    ``at_depth``: the least number of layers and the prediction at the runs' own number of
    layers (docs/theory.md §8); `_marks` of ``at_depth`` judges against it.
    """
    from expressivity.analysis.prediction_table import predictions
    from expressivity.sweeps.cells import cell_depths, cell_heads

    alphabets = runs.dropna(subset=["alphabet"]).groupby("language")["alphabet"].first()
    names = dict.fromkeys(summary["language"])
    keys = [(lang, str(alphabets.get(lang, "") or "")) for lang in names]
    theory = predictions(keys, list(dict.fromkeys(summary["layout"])), cell_depths(runs),
                         cell_heads(runs))
    cells = list(zip(theory["language"], theory["layout"], strict=True))
    predicted = dict(zip(cells, theory["predicted"], strict=True))
    at_depth = dict(zip(cells, theory["predicted_at_depth"].fillna("unknown"), strict=True))
    min_depth = dict(zip(cells, theory["min_depth"].fillna("?"), strict=True))
    out = summary.copy()
    keys_out = list(zip(out["language"], out["layout"], strict=True))
    out["d*"] = [min_depth.get(k, "?") for k in keys_out]
    out["at_depth"] = [at_depth.get(k, "unknown") for k in keys_out]
    out["predicted"] = [predicted.get(k, "unknown") for k in keys_out]
    out["vs_theory"] = _marks(out["predicted"], out)
    return out


def _marks(predicted: pd.Series | list[str], summary: pd.DataFrame) -> list[str]:
    """`with_predictions`'s ``vs_theory`` marks against one column of predictions."""
    completed = summary["runs"] - summary["failed"]
    marks = []
    untested = (summary["untested_short"].fillna(False).tolist()
                if "untested_short" in summary.columns else [False] * len(summary))
    for p, rec, done, unt in zip(predicted, summary["recognized"], completed, untested,
                                 strict=True):
        if p not in ("yes", "no") and done and rec:
            marks.append(UNKNOWN_BUT_LEARNED)
        elif p not in ("yes", "no") or not done:
            marks.append("—")
        elif unt and not rec:
            marks.append(UNTESTED_SHORT)
        elif (p == "yes") == bool(rec):
            marks.append("agree")
        else:
            marks.append(f"{MARK} learned beyond" if rec else f"{MARK} failed within")
    return marks
