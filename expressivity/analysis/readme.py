"""The generated ``README.md`` of a figures directory: provenance, headline tables, file index."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from expressivity.analysis.comparison import agreement
from expressivity.analysis.diagnosis import failure_table
from expressivity.analysis.export import to_markdown
from expressivity.analysis.levers import LENGTH_BIN
from expressivity.analysis.provenance import Provenance
from expressivity.analysis.recall import (
    OURS,
    PAPERS,
    cell_family,
    family_recall_table,
    honest_split,
    ratio_table,
    recall_by_group,
    recall_table,
)
from expressivity.analysis.tables import matrix

if TYPE_CHECKING:
    from expressivity.analysis.report import Report

__all__ = ["WORKING_FOLDERS", "render_readme", "results_folders"]

#: Suffixes of the folders a sweep works in beside its store (checkpoints and split caches,
#: cluster logs, side records): never results pages, and written to while a sweep runs.
WORKING_FOLDERS = (".runs", ".submitit", ".unsaved")


def results_folders(figures: Path) -> dict[str, Path]:
    """The results folders under ``figures`` (``paper_figures/``) by page name: ``quick`` for
    ``figures`` itself and the relative path of every folder below it that holds a generated
    README (``learnability/slice`` for a nested one), in sorted order. A sweep's working folders
    (`WORKING_FOLDERS`) are not entered: they hold no page and change while a sweep runs."""
    found = {"quick": figures} if (figures / "README.md").is_file() else {}
    below: dict[str, Path] = {}
    for folder, subfolders, files in os.walk(figures):
        subfolders[:] = [d for d in subfolders if not d.endswith(WORKING_FOLDERS)]
        here = Path(folder)
        if here != figures and "README.md" in files:
            below[here.relative_to(figures).as_posix()] = here
    return found | dict(sorted(below.items()))

_EXAMPLE_WARNING = (
    "> **Hand-made example data, not experimental results.** This directory was drawn from "
    "the fixture store of `expressivity.analysis.example`; regenerate it from a real results "
    "store before citing anything here.\n"
)


def _store_line(p: Provenance) -> str:
    sweeps = ", ".join(f"`{s['name']}` (spec hash `{s['spec_hash']}`)" for s in p.store["sweeps"])
    codes = ", ".join(f"`{code}` ({n} runs)" for code, n in p.store.get("code_fingerprints",
                                                                         {}).items())
    note = p.store.get("code_note")
    return (
        f"Store `{p.store['path']}`: {p.store['runs']} runs ({p.store['completed']} completed), "
        f"runs digest `{p.store['runs_digest']}`; sweeps: {sweeps or 'none registered'}. "
        f"Code fingerprints of the runs (`expressivity.fingerprint`): {codes or 'none'}."
        + (f" **Note: {note}.**" if note else "")
    )


def _per_layout(recall: pd.DataFrame) -> pd.DataFrame:
    """`recall_table`'s per-layout rows as "learned / total" texts, both criteria."""
    rows = recall[recall["group"] == "all"]
    return ratio_table(rows, {"layout": rows["layout"].astype(str).tolist()})


def _depth_and_families(report: Report) -> list[str]:
    """The split at each model's own depth (when some cell's depth is analysed) and, for a
    store of several architecture families, the split per family and class group."""
    lines: list[str] = []
    at = report.comparison.get("predicted_at_depth")
    if at is not None and at.notna().any():
        lines += [f"At each model's own number of layers (docs/theory.md §8; a cell that needs "
                  f"more layers than it has is \"no at this depth\"): "
                  f"**{honest_split(report.comparison, at_depth=True)}.**", ""]
    families = {cell_family(str(x)) for x in report.comparison["layout"]}
    if len(families) > 1:
        for at_depth, title in ((False, "unbounded depth"), (True, "at each model's depth")):
            table = family_recall_table(report.comparison, at_depth=at_depth)
            keys = {"family": table["layout"].astype(str).tolist(),
                    "class group": table["group"].astype(str).tolist()}
            lines += [f"Per architecture family and class group, {title} "
                      "(`analysis.recall.family_recall_table`):", "",
                      to_markdown(ratio_table(table, keys)), ""]
    return lines


def _failures(report: Report) -> list[str]:
    """Why the proven-yes cells were missed: counts by mechanism (`analysis.diagnosis`)."""
    if report.diagnoses.empty:
        return []
    table = failure_table(report.comparison, report.diagnoses)
    if table.empty or not int(table["missed"].max()):
        return []
    return [
        "Why proven-yes cells were missed (`analysis.diagnosis`): each missed cell is counted "
        "by the furthest check of our criterion that one of its runs passed. *not fitted*: no "
        "run fit its own training words (a training failure); *length*: a run fit every "
        "training word and erred at a longer test length (length generalization); *pairs*: a "
        "run was right on every random test word and wrong on adversarial pairs at the test "
        "lengths; "
        "*short words*: a run erred only on words of length ≤ 8. Each cell's numbers are in "
        "`tables/disagreements.md` (column `mechanism`), its learning curves on its cell page.",
        "",
        to_markdown(table),
        "",
    ]


def render_readme(
    report: Report, provenance: Provenance, figures: Sequence[str], formats: Sequence[str]
) -> str:
    """Markdown: how the directory was made, the verdict and recognition matrices, the
    disagreements and a list of every figure and table."""
    stats = agreement(report.comparison)
    by_group = recall_by_group(report.comparison)
    dirty = {True: " (with uncommitted changes)", False: "", None: " (state unknown)"}
    lines = [
        "# Figures and tables",
        "",
        *([_EXAMPLE_WARNING] if provenance.store.get("hand_made_example") else []),
        f"Generated by `{provenance.command}` on {provenance.created} at commit "
        f"`{provenance.git_commit}`{dirty[provenance.git_dirty]}, expressivity "
        f"{provenance.toolkit_version}. {_store_line(provenance)} Do not edit: rerun the "
        "command. Every file's SHA-256 and the machine are in `provenance.json`.",
        "",
        "## Theory vs experiment",
        "",
        f"**{honest_split(report.comparison)}.**",
        "",
        f"Two criteria, side by side: **{OURS}** and **the {PAPERS}**. Ours also asks every "
        "run to be right on every word of length 0..8 (a fixed sample of 511 such words for "
        "alphabets of more than 2 letters); a run recorded before that evaluation existed is "
        "*not tested on short words* and never counts as passing. Per layout:",
        "",
        to_markdown(_per_layout(recall_table(report.comparison))),
        "Per class group (the language's smallest class, `tables/classes.md`), over every "
        "layout:",
        "",
        to_markdown(ratio_table(by_group, {"group": by_group["group"].astype(str).tolist()})),
        *_depth_and_families(report),
        *_failures(report),
        f"Agreement (cells with a proven verdict and a completed run): {stats}. An agreement "
        "rate alone hides the recall: a table where nothing is learned agrees on every "
        "certified-no cell. Per class group: `tables/recall.md`.",
        "",
        to_markdown(matrix(report.comparison, "verdict", report.layouts)),
        f"![predicted vs observed](figures/predicted_vs_observed.{formats[0]})",
        "",
    ]
    if len(report.disagreements):
        lines += ["### Where they disagree", ""]
        for row in report.disagreements.itertuples(index=False):
            lines.append(f"- **{row.language}{f' over {{{row.alphabet}}}' if row.alphabet else ''}"
                         f", {row.layout}**: {row.verdict}. Theory: {row.theory}. "
                         f"{str(row.note)[:1].upper()}{str(row.note)[1:]}.")
        lines.append("")
    unknown = report.tables()["unknown_learned"][0]
    if len(unknown):
        lines += ["### Unknown cells learned", "",
                  "No proof either way (unbounded, or at the model's own number of layers), "
                  "and some run learned the cell: where theory has work left "
                  "(`analysis.open_cells`; the bound the theory hit is on each cell page).", "",
                  to_markdown(unknown.drop(columns=["theory"])), ""]
    if not report.rules.empty:
        lines += ["## The rule", "",
                  "The decision the sweep was run for, as its spec's `[rule]` states it "
                  "(`sweeps.rule`; when it was written is in the spec's history), judged from "
                  "the store (`analysis.rule`):", ""]
        for row in report.rules.itertuples(index=False):
            head, _, why = str(row.verdict).partition(": ")
            lines.append(f"- **{row.sweep}**: {row.rule}. **{head}**{': ' + why if why else ''}.")
        lines += ["", to_markdown(report.rules.drop(columns=["rule"])), ""]
    if not report.levers.empty:
        lines += ["## Recall per lever", "",
                  f"Proven-yes cells learned per lever of an ablation sweep, by {OURS} and by "
                  f"the {PAPERS}; run seconds summed over runs (`analysis.levers`).", "",
                  to_markdown(report.levers), ""]
    if not report.lever_pairs.empty:
        lines += ["### Levers cell by cell", "",
                  "Pairs of levers over the proven-yes cells of both (same language and "
                  f"layout): learned by both, by one only or by neither ({OURS}); `p_value` is "
                  "the two-sided exact McNemar test of the discordant cells (a fair coin per "
                  "cell under exchangeable levers: a guide to one table's noise, the cells "
                  "not being independent draws); the discordant counts by the papers' "
                  "criterion beside them (`analysis.lever_pairing`).", "",
                  to_markdown(report.lever_pairs), ""]
    if not report.lever_lengths.empty:
        lines += ["### Accuracy by length per lever", "",
                  "Test accuracy of each lever's runs per cell, in bins of "
                  f"{LENGTH_BIN} lengths (correct / tested strings, pooled over runs), and "
                  "the mean adversarial accuracy ("
                  "`analysis.levers.lever_lengths`): where a lever that fits the training "
                  "lengths stops generalizing.", "",
                  to_markdown(report.lever_lengths), ""]
    lines += [
        "## Recognition",
        "",
        "Max test accuracy over runs; ✓ = recognized (ours); ? = perfect on the test and "
        "adversarial sets, not tested on short words.",
        "",
        to_markdown(report.tables()["recognition_matrix"][0]),
        f"![max accuracy](figures/heatmap_max_accuracy.{formats[0]})",
        "",
        "## Files",
        "",
        "Figures (" + ", ".join(formats) + "): "
        + ", ".join(f"[{n}](figures/{n}.{formats[0]})" for n in figures) + ".",
        "",
        "Tables (md, tex, csv): "
        + ", ".join(f"[{n}](tables/{n}.md)" for n in report.tables()) + ".",
        "",
    ]
    return "\n".join(lines)
