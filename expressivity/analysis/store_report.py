"""`build_report`: every table of a results store (`Report`), computed once from its runs.

The store's layouts are parsed at their runs' model sizes (for the mask figures), its sweep
specs give the lever tables and rules, and the theory's predictions of every cell are decided
again unless a results page recorded them for this store (``recorded``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from expressivity.analysis.class_membership import LanguageKey, language_classes
from expressivity.analysis.comparison import covers, disagreements, predicted_vs_observed
from expressivity.analysis.depth import depth_table
from expressivity.analysis.diagnosis import diagnose
from expressivity.analysis.lever_pairing import sweep_lever_pairs
from expressivity.analysis.levers import chosen_specs, sweep_lever_lengths, sweep_lever_tables
from expressivity.analysis.papers import papers_comparison, positions_comparison
from expressivity.analysis.plateau import plateau_audit
from expressivity.analysis.prediction_table import predictions
from expressivity.analysis.report import Report
from expressivity.analysis.rule import sweep_rules
from expressivity.analysis.schema import GROUPS, PREDICTION_COLUMNS, conform
from expressivity.analysis.stability import histories, seed_stability
from expressivity.analysis.tables import (
    adversarial_by_kind,
    language_keys,
    length_curves,
    summarize,
    summarize_by_class,
)
from expressivity.catalogue import load_catalogue
from expressivity.errors import ExpressivityError, StoreError
from expressivity.layouts import parse_spelling
from expressivity.models.layouts import Layout, parse_layout
from expressivity.sweeps.cell_labels import cell_layers
from expressivity.sweeps.cells import cell_depths, cell_heads, with_cells
from expressivity.sweeps.report import spec_axis_order
from expressivity.sweeps.store import ResultsStore
from expressivity.training.profiles import get_profile

__all__ = ["build_report"]


def _layout_of(store: ResultsStore, runs: pd.DataFrame, layout: str) -> Layout | None:
    """The parsed layout of the first run using ``layout``, at that run's model size (else at
    the smallest size the spelling fits, `UnsizedLayout.smallest`; None if it does not parse)."""
    run_id = str(runs.loc[runs["layout"] == layout, "run_id"].iloc[0])
    try:
        spec = store.spec(run_id)
        config = get_profile(spec.profile).model_config(spec.layout, spec.model)
        return config.layout_spec()
    except (ExpressivityError, KeyError):
        pass
    try:
        return parse_layout(layout, *parse_spelling(layout).smallest)
    except ExpressivityError:
        return None


def build_report(db: str | Path, *, sweep: str | None = None,
                 recorded: pd.DataFrame | None = None) -> Report:
    """Read a results store and compute every table (`Report`); raises `StoreError` if empty.

    ``recorded``: predictions (`schema.PREDICTION_COLUMNS`) computed before for this store,
    such as its results page's (`comparison.read_predictions`); used instead of deciding every
    cell again when they cover every cell at its depth, else ignored. The theory is the slow
    part of a report (an encoder cell of a one-letter language decides on words of up to 400
    letters), and the site builds every results page's cells again."""
    with ResultsStore(db, create=False) as store:
        runs = store.runs(sweep=sweep)
        if runs.empty:
            where = f" for sweep {sweep!r}" if sweep else ""
            raise StoreError(f"{db}: no runs{where}; run `expressivity sweep` first")
        parsed = {name: _layout_of(store, runs, name) for name in dict.fromkeys(runs["layout"])}
        specs = chosen_specs(store.sweeps(), runs)  # parsed once, for both lever tables
        levers = sweep_lever_tables(store.sweeps(), runs, specs=specs)
        lever_lengths = (sweep_lever_lengths(store.sweeps(), runs, store.lengths(sweep=sweep),
                                             specs=specs)
                         if not levers.empty else pd.DataFrame())
        lever_pairs = sweep_lever_pairs(runs, specs)
        rules = sweep_rules(runs, specs)
        runs, lengths, adversarial = with_cells(
            runs, store.lengths(sweep=sweep), store.adversarial(sweep=sweep))
        layouts = list(dict.fromkeys(runs["layout"]))  # cells: layout (+ positional encoding)
        _, spec_layouts = spec_axis_order(store.sweeps(), sweep)
    masks = {name: layout for name, layout in parsed.items() if layout is not None}
    keys = language_keys(runs)
    classes = language_classes(keys)
    group = dict(zip(zip(classes["language"], classes["alphabet"], strict=True),
                     classes["group"], strict=True))
    keys = sorted(keys, key=lambda k: GROUPS.index(str(group.get(k, "unknown"))))
    summary = summarize(runs, keys, spec_layouts)
    predicted, read_back = _predictions(keys, layouts, runs, summary, recorded)
    comparison = predicted_vs_observed(summary, predicted, classes)
    diagnoses = diagnose(runs, lengths, adversarial)
    return Report(
        runs=runs,
        summary=summary,
        classes=language_classes(keys),  # cached: now in report order
        class_summary=summarize_by_class(summary, classes, spec_layouts),
        comparison=comparison,
        disagreements=disagreements(comparison, summary, diagnoses),
        curves=length_curves(lengths, runs, keys),
        adversarial=adversarial_by_kind(adversarial, runs, keys),
        catalogue_classes=language_classes(load_catalogue()),
        masks=masks,
        stability=(stability := seed_stability(runs)),
        history=histories(runs),
        papers=papers_comparison(summary, stability, _budget(runs)),
        positions=positions_comparison(runs, _budget(runs, papers=False)),
        layouts=tuple(spec_layouts),
        plateau=plateau_audit(runs),
        levers=levers,
        lever_lengths=lever_lengths,
        lever_pairs=lever_pairs,
        rules=rules,
        depth=depth_table(comparison),
        recorded=read_back,
        diagnoses=diagnoses,
    )


def _predictions(keys: list[LanguageKey], layouts: list[str], runs: pd.DataFrame,
                 summary: pd.DataFrame, recorded: pd.DataFrame | None
                 ) -> tuple[pd.DataFrame, bool]:
    """(the predictions the comparison reads: of every cell of ``summary``, whether they are
    ``recorded``'s)."""
    depths = cell_depths(runs)
    if recorded is not None:
        wanted = pd.DataFrame(
            [(a, b, c, cell_layers(c, depths))
             for a, b, c in zip(summary["language"], summary["alphabet"], summary["layout"],
                                strict=True)],
            columns=["language", "alphabet", "layout", "n_layers"])
        if covers(recorded, wanted):
            return _recorded_rows(recorded, wanted), True
    return predictions(keys, layouts, depths, cell_heads(runs)), False


def _recorded_rows(recorded: pd.DataFrame, wanted: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``recorded`` for the cells of ``wanted`` (its keys and order kept; a missing
    alphabet and an empty one match)."""
    key = ["language", "_alphabet", "layout"]
    left = wanted.assign(_alphabet=wanted["alphabet"].fillna(""))
    right = (recorded.assign(_alphabet=recorded["alphabet"].fillna(""))
             .drop(columns=["alphabet", "n_layers"]).drop_duplicates(key))
    rows = left.merge(right, on=key, how="left", validate="one_to_one")
    return conform(rows.drop(columns="_alphabet"), PREDICTION_COLUMNS)


def _budget(runs: pd.DataFrame, *, papers: bool = True) -> str:
    """Our runs' budget in a few words, e.g. "standard, 3 seeds × 1 lr (papers: ...)"; the
    papers' part is [LC25]/[LC26]'s protocol (left out with ``papers=False``)."""
    done = runs[runs["status"] == "completed"]
    profiles = ", ".join(sorted(set(done["profile"].astype(str))))
    ours = f"{profiles}, {done['seed'].nunique()} seeds × {done['lr'].nunique()} lr"
    if not papers:
        return ours
    paper = get_profile("paper")
    return (f"{ours} (papers: {len(paper.seeds)} seeds × {len(paper.learning_rates)} lr, "
            f"{paper.train.steps:,} steps)")
