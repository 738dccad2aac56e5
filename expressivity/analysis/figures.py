"""`write_figures`: every figure and table of a results store, regenerated with provenance.

Layout of ``out_dir``: ``figures/NAME.{png,pdf}``, ``tables/NAME.{md,tex,csv}``, a
generated ``README.md`` index and ``provenance.json`` (command, commit, date, store, sweep
spec hashes, machine, and the SHA-256 of every artefact). Files listed in an older
``provenance.json`` are removed first, so the directory never mixes two runs of the command.
The tables and what the figures draw come from `store_report.build_report`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from matplotlib.figure import Figure

from expressivity._version import __version__
from expressivity.analysis import diagrams, plots
from expressivity.analysis.class_membership import classification
from expressivity.analysis.depth import plot_recognition_vs_depth, thresholds
from expressivity.analysis.example import EXAMPLE_SWEEP
from expressivity.analysis.export import to_csv, to_latex, to_markdown
from expressivity.analysis.headline import render_headline, replace_block
from expressivity.analysis.provenance import (
    Artefact,
    Provenance,
    file_sha256,
    git_state,
    machine_info,
    now,
    runs_digest,
    store_sweeps,
)
from expressivity.analysis.readme import render_readme
from expressivity.analysis.report import Report
from expressivity.analysis.schema import language_label, layout_order, slug
from expressivity.analysis.stability import plot_learning_curves
from expressivity.analysis.store_report import build_report
from expressivity.errors import ConfigError
from expressivity.sweeps.codes import code_counts, code_note

__all__ = ["FIGURE_FORMATS", "RESULTS_ENV", "default_results_path", "write_figures"]

FIGURE_FORMATS = ("png", "pdf", "svg")
#: Environment variable naming the results store that notebook 03 reads.
RESULTS_ENV = "EXPRESSIVITY_RESULTS"
_METADATA = {"pdf": {"CreationDate": None}, "svg": {"Date": None}, "png": {}}


def _figures(report: Report) -> dict[str, tuple[Callable[[], Figure], str]]:
    """Figure name → (a function drawing it, description); drawn one at a time when saved."""
    s, order = report.summary, report.layouts
    out: dict[str, tuple[Callable[[], Figure], str]] = {
        "heatmap_max_accuracy": (lambda: plots.plot_accuracy_heatmap(s, "max", order),
                                 "max test accuracy, language × layout"),
        "heatmap_mean_accuracy": (lambda: plots.plot_accuracy_heatmap(s, "mean", order),
                                  "mean test accuracy, language × layout"),
        "heatmap_n_star": (lambda: plots.plot_n_star_heatmap(s, order), "N*, language × layout"),
        "heatmap_adversarial": (lambda: plots.plot_adversarial_heatmap(s, order),
                                "mean adversarial accuracy, language × layout"),
        "class_recognition": (lambda: plots.plot_class_recognition(report.class_summary, order),
                              "languages recognized per class group × layout"),
        "predicted_vs_observed": (lambda: plots.plot_predicted_vs_observed(
            report.comparison, layouts=order), "theory's prediction against observed recognition"),
        "accuracy_vs_length": (lambda: plots.plot_accuracy_vs_length(
            report.curves, layouts=layout_order(report.curves["layout"], order)),
                               "accuracy against test length per language and layout"),
        "class_diagram": (lambda: diagrams.plot_class_diagram(report.catalogue_classes),
                          "class inclusions with the catalogue languages"),
    }
    if not report.depth.empty and not thresholds(report.depth).empty:
        out["recognition_vs_depth"] = (
            partial(plot_recognition_vs_depth, report.depth),
            "recognized (✓) against the number of layers, d* marked, per layout")
    if not report.disagreements.empty and not report.history.empty:
        d = report.disagreements
        cells = list(zip(d["language"], d["alphabet"].fillna(""), d["layout"], strict=True))
        titles = [f"{language_label(lang, alpha)} × {layout}: {verdict}"
                  for (lang, alpha, layout), verdict in zip(cells, d["verdict"], strict=True)]
        out["learning_curves_disagreements"] = (
            partial(plot_learning_curves, report.history, cells, titles=titles),
            "validation accuracy against the step for every run of a disagreeing cell",
        )
    for language, alphabet in zip(report.classes["language"], report.classes["alphabet"],
                                  strict=True):
        c = classification(str(language), str(alphabet))
        if c is not None:
            label = language_label(str(language), str(alphabet))
            out[f"dfa_{slug(label)}"] = (
                partial(diagrams.plot_dfa, c.dfa, title=label), f"minimal DFA of {label}"
            )
    for name, layout in report.masks.items():
        out[f"masks_{slug(name)}"] = (
            partial(diagrams.plot_layout_masks, layout, length=12, name=name),
            f"attention masks of layout {name}",
        )
    return out


def _other_store(out: Path, db: Path) -> str | None:
    """The store recorded in ``out/provenance.json`` when it is not ``db``, else None."""
    old = out / "provenance.json"
    try:
        recorded = str(json.loads(old.read_text(encoding="utf-8"))["store"]["path"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # no (readable) provenance: nothing to protect
    same = [Path(recorded)] if Path(recorded).is_absolute() else [
        Path.cwd() / recorded, out.parent / recorded, out / Path(recorded).name
    ]
    if any(p.exists() and db.exists() and os.path.samefile(p, db) for p in same):
        return None
    return recorded


def _clean(out: Path) -> None:
    """Remove the artefacts an earlier run listed (only inside ``out``)."""
    old = out / "provenance.json"
    if not old.exists():
        return
    try:
        listed = json.loads(old.read_text(encoding="utf-8")).get("artefacts", [])
    except (json.JSONDecodeError, AttributeError):
        return
    root = out.resolve()
    for entry in listed:
        path = (out / str(entry.get("path", ""))).resolve()
        if path.is_file() and root in path.parents:
            path.unlink()


def write_figures(
    db: str | Path,
    out_dir: str | Path,
    *,
    sweep: str | None = None,
    formats: Sequence[str] = ("png", "pdf"),
    command: str | None = None,
    dpi: int = 150,
    force: bool = False,
    readme: str | Path | None = None,
) -> list[Path]:
    """Write every figure (in ``formats``) and table (md, tex, csv) of the store ``db`` into
    ``out_dir``, plus ``README.md`` and ``provenance.json``; return the paths written. With
    ``readme``, also rewrite that file's results block for ``db`` (`analysis.headline`).

    An ``out_dir`` whose ``provenance.json`` records another store is left alone (a
    `ConfigError`) unless ``force``: regenerating ``paper_figures/`` from a scratch store
    would overwrite the committed figures.
    """
    bad = [f for f in formats if f not in FIGURE_FORMATS]
    if bad or not formats:
        raise ConfigError(f"formats: {bad or 'none'} not among {', '.join(FIGURE_FORMATS)}")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out}: a file, but figures go to a folder; pass --out a folder "
                          "(it is created if missing)")
    other = _other_store(out, Path(db))
    if other is not None and not force:
        raise ConfigError(
            f"{out} holds the figures of another results store ({other}); write to another "
            "folder with --out, or pass --force to replace them"
        )
    # the repository's state before anything is written: the artefacts being replaced in a
    # committed out_dir must not count as uncommitted changes of the code that made them
    commit, dirty = git_state()
    report = build_report(db, sweep=sweep)
    if readme is not None:  # checked before anything is written: a missing block is an error
        page = Path(readme).read_text(encoding="utf-8")
        page = replace_block(page, str(db), render_headline(report, str(db)))
    _clean(out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    artefacts: list[tuple[Path, str, str]] = []
    for name, (frame, caption) in report.tables().items():
        for ext, text in (("md", to_markdown(frame)),
                          ("tex", to_latex(frame, caption=caption, label=f"tab:{name}")),
                          ("csv", to_csv(frame))):
            path = out / "tables" / f"{name}.{ext}"
            path.write_text(text, encoding="utf-8")
            artefacts.append((path, "table", caption))
    figures = _figures(report)
    for name, (draw, description) in figures.items():
        fig = draw()
        for ext in formats:
            path = out / "figures" / f"{name}.{ext}"
            fig.savefig(path, dpi=dpi, metadata=_METADATA[ext])
            artefacts.append((path, "figure", description))
    sweeps = store_sweeps(db, sweep)
    store_info = {
        "path": str(db), "sweep": sweep, "runs": len(report.runs),
        "completed": int((report.runs["status"] == "completed").sum()),
        "runs_digest": runs_digest(report.runs), "sweeps": sweeps,
        "code_fingerprints": code_counts(report.runs["code_fingerprint"]),
        "code_note": code_note(report.runs),
        "hand_made_example": any(s["name"] == EXAMPLE_SWEEP for s in sweeps),
    }
    base = Provenance(
        command=command or " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        created=now(), git_commit=commit, git_dirty=dirty, toolkit_version=__version__,
        store=store_info, machine=machine_info(),
    )
    index = out / "README.md"
    index.write_text(render_readme(report, base, list(figures), formats), encoding="utf-8")
    artefacts.append((index, "index", "index of the figures and tables (generated)"))
    listed = tuple(
        Artefact(str(p.relative_to(out)), kind, text, file_sha256(p))
        for p, kind, text in artefacts
    )
    provenance = Provenance(**{**base.__dict__, "artefacts": listed})
    (out / "provenance.json").write_text(provenance.to_json(), encoding="utf-8")
    written = [p for p, _, _ in artefacts] + [out / "provenance.json"]
    if readme is not None:
        Path(readme).write_text(page, encoding="utf-8")
        written.append(Path(readme))
    return written


def default_results_path(root: str | Path | None = None) -> Path | None:
    """The store notebook 03 reads: ``$EXPRESSIVITY_RESULTS``, else the store that
    ``paper_figures/provenance.json`` was drawn from (if it still exists), else None."""
    env = os.environ.get(RESULTS_ENV)
    if env:
        return Path(env)
    base = Path(root) if root else Path(__file__).resolve().parents[2]
    record = base / "paper_figures" / "provenance.json"
    if record.exists():
        path = Path(json.loads(record.read_text(encoding="utf-8"))["store"]["path"])
        path = path if path.is_absolute() else base / path
        if path.exists():
            return path
    return None
