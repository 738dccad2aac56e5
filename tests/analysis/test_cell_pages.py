"""Cell pages: one per cell of the store, every number on them read back from the store."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from expressivity.algebra.classify import Classification
from expressivity.analysis.cell_pages import cell_page, cell_pages, cells_index
from expressivity.analysis.cell_sections import cell_name, classify_command, length_bins
from expressivity.analysis.classes import cell_classification, theory_layout
from expressivity.analysis.comparison import read_predictions
from expressivity.analysis.export import format_number, to_csv
from expressivity.analysis.provenance import runs_digest
from expressivity.analysis.store_report import build_report
from expressivity.sweeps.cells import with_cells
from expressivity.sweeps.store import ResultsStore


@pytest.fixture(scope="module")
def pages(example_db: Path) -> list:
    return cell_pages(example_db, shown="example.db")


@pytest.fixture(scope="module")
def report(example_db: Path):
    return build_report(example_db)


def _section(markdown: str, title: str) -> str:
    return markdown.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _table(section: str) -> list[list[str]]:
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row.strip("|").split("|")] for row in rows[2:]]


def test_one_page_per_cell_with_distinct_names(pages: list, report) -> None:
    cells = list(dict.fromkeys(zip(report.comparison["language"],
                                   report.comparison["alphabet"].fillna(""),
                                   report.comparison["layout"], strict=True)))
    assert [p.cell for p in pages] == cells
    assert len({p.name for p in pages}) == len(pages)
    assert all(p.name == cell_name(*p.cell) and p.name.endswith(".md") for p in pages)


def test_the_runs_table_lists_the_cell_runs_as_stored(pages: list, example_db: Path) -> None:
    with ResultsStore(example_db, create=False) as store:
        runs, = with_cells(store.runs())
    for page in pages:
        language, alphabet, label = page.cell
        mine = runs[(runs["language"] == language) & (runs["alphabet"].fillna("") == alphabet)
                    & (runs["layout"] == label)].sort_values(["seed", "lr"])
        rows = _table(_section(page.markdown, "Runs"))
        assert [r[-1].strip("`") for r in rows] == list(mine["run_id"])
        for row, accuracy in zip(rows, mine["test_accuracy"], strict=True):
            assert row[3] == ("—" if pd.isna(accuracy) else format_number(float(accuracy)))


def test_per_length_accuracy_is_recomputed_from_the_stored_counts(
    pages: list, example_db: Path
) -> None:
    with ResultsStore(example_db, create=False) as store:
        runs, lengths = with_cells(store.runs(), store.lengths())
    checked = 0
    for page in pages:
        if "## Accuracy per test length" not in page.markdown:
            continue
        section = _section(page.markdown, "Accuracy per test length")
        head = next(line for line in section.splitlines() if line.startswith("|"))
        bins = [tuple(map(int, b.split("–"))) for b in re.findall(r"\d+–\d+", head)]
        for row in _table(section):
            seed, lr = re.fullmatch(r"seed (\d+), lr (\S+)", row[0]).groups()
            run = runs[(runs["language"] == page.cell[0]) & (runs["layout"] == page.cell[2])
                       & (runs["alphabet"].fillna("") == page.cell[1])
                       & (runs["seed"] == int(seed)) & (runs["lr"] == float(lr))]
            mine = lengths[lengths["run_id"] == run["run_id"].iloc[0]]
            for (first, last), shown in zip(bins, row[1:], strict=True):
                part = mine[(mine["length"] >= first) & (mine["length"] <= last)]
                expected = part["correct"].sum() / part["n"].sum() if part["n"].sum() else None
                assert shown == ("—" if expected is None else format_number(float(expected)))
                checked += 1
    assert checked > 0


def test_the_prediction_is_the_classification_the_table_used(pages: list, report) -> None:
    labels = dict.fromkeys(report.runs["layout"])
    for page, (_, row) in zip(pages, report.comparison.drop_duplicates(
            ["language", "alphabet", "layout"]).iterrows(), strict=True):
        assert f"**{row['predicted']}**: {row['reason']}" in page.markdown
        c = cell_classification(page.cell[0], page.cell[1], labels)
        if not isinstance(c, Classification):
            assert f"No classification: {c}." in page.markdown
            continue
        assert c.to_table() in page.markdown
        assert classify_command(c, page.cell[0], page.cell[1]) in page.markdown
        theory = theory_layout(page.cell[2])
        if theory in {r.layout for r in c.recognizers} and row["predicted"] != "unknown":
            assert c.recognizer(theory).status == row["predicted"]


def test_only_disagreeing_cells_get_learning_curves(report, example_db: Path) -> None:
    with ResultsStore(example_db, create=False) as store:
        _, lengths, adversarial = with_cells(store.runs(), store.lengths(), store.adversarial())
    d = report.disagreements.iloc[0]
    cell = (str(d["language"]), "" if pd.isna(d["alphabet"]) else str(d["alphabet"]),
            str(d["layout"]))
    run = report.runs[(report.runs["language"] == cell[0]) & (report.runs["layout"] == cell[2])]
    history = pd.DataFrame([{"run_id": run["run_id"].iloc[0], "language": cell[0],
                             "alphabet": cell[1], "layout": cell[2], "seed": 0, "lr": 0.01,
                             "step": s, "loss": 1.0, "val_short": v, "val_long": v,
                             "validation": v} for s, v in ((10, 0.5), (20, 0.9))])
    with_history = dataclasses.replace(report, history=history)
    page = cell_page(with_history, cell, lengths, adversarial)
    assert "## Learning curves" in page.markdown and len(page.figures) == 1
    name, png = page.figures[0]
    assert png.startswith(b"\x89PNG") and f"]({name})" in page.markdown
    agreeing = report.comparison[report.comparison["verdict"] == "agree"].iloc[0]
    other = cell_page(with_history, (str(agreeing["language"]), "", str(agreeing["layout"])),
                      lengths, adversarial)
    assert "## Learning curves" not in other.markdown and not other.figures


def test_a_store_changed_since_its_page_is_flagged(example_db: Path, report) -> None:
    digest = runs_digest(report.runs)
    same = cell_pages(example_db, provenance={"command": "c", "git_commit": "abc",
                                              "store": {"runs_digest": digest}})
    other = cell_pages(example_db, provenance={"command": "c", "git_commit": "abc",
                                               "store": {"runs_digest": "0" * 16}})
    assert "store changed" not in same[0].markdown and f"`{digest}`" in same[0].markdown
    assert "The store changed after its results page was generated" in other[0].markdown


def test_the_index_links_every_page_once(pages: list) -> None:
    index = cells_index(pages, "example")
    targets = re.findall(r"\[page\]\(([^)]+)\)", index)
    assert sorted(targets) == sorted(p.name for p in pages)


@given(st.lists(st.integers(0, 500), min_size=0, max_size=60), st.integers(1, 12))
def test_length_bins_cut_the_lengths_into_contiguous_ranges(lengths: list[int], bins: int) -> None:
    ranges = length_bins(lengths, bins)
    values = sorted(set(lengths))
    assert len(ranges) == min(bins, len(values))
    covered = [[v for v in values if a <= v <= b] for a, b in ranges]
    assert [v for part in covered for v in part] == values  # each length in exactly one bin
    assert all(part for part in covered)
    if covered:
        sizes = [len(part) for part in covered]
        assert max(sizes) - min(sizes) <= 1


def _recorded(report, tmp_path: Path, name: str = "predicted_vs_observed.csv") -> pd.DataFrame:
    path = tmp_path / name
    path.write_text(to_csv(report.comparison), encoding="utf-8")
    recorded = read_predictions(path)
    assert recorded is not None
    return recorded


def test_a_page_s_recorded_predictions_give_the_same_report(example_db: Path, report,
                                                            tmp_path: Path) -> None:
    again = build_report(example_db, recorded=_recorded(report, tmp_path))
    assert again.recorded and not report.recorded
    pd.testing.assert_frame_equal(again.comparison, report.comparison)
    pd.testing.assert_frame_equal(again.disagreements, report.disagreements)


def test_recorded_predictions_are_used_only_when_they_cover_every_cell(
        example_db: Path, report, tmp_path: Path) -> None:
    recorded = _recorded(report, tmp_path)
    marked = recorded.assign(reason="recorded: " + recorded["reason"])
    used = build_report(example_db, recorded=marked)
    assert used.recorded and used.comparison["reason"].str.startswith("recorded: ").all()
    partial = build_report(example_db, recorded=marked.iloc[1:])
    assert not partial.recorded
    pd.testing.assert_frame_equal(partial.comparison, report.comparison)
    deeper = build_report(example_db, recorded=marked.assign(n_layers=7))  # another depth
    assert not deeper.recorded


def test_cell_pages_say_when_their_predictions_were_recorded(example_db: Path, report,
                                                             tmp_path: Path) -> None:
    note = "The predictions are those the results page recorded"
    page = {"command": "c", "git_commit": "abc",
            "store": {"runs_digest": runs_digest(report.runs)}}
    recorded = cell_pages(example_db, shown="example.db", provenance=page,
                          recorded=_recorded(report, tmp_path))
    fresh = cell_pages(example_db, shown="example.db", provenance=page)
    assert all(note in p.markdown for p in recorded)
    assert not any(note in p.markdown for p in fresh)
    stale = {**page, "store": {"runs_digest": "0" * 16}}  # the store changed since the page
    again = cell_pages(example_db, shown="example.db", provenance=stale,
                       recorded=_recorded(report, tmp_path))
    assert not any(note in p.markdown for p in again)
    for a, b in zip(recorded, fresh, strict=True):
        assert _section(a.markdown, "Prediction") == _section(b.markdown, "Prediction")


def test_read_predictions_refuses_what_is_not_a_prediction_table(tmp_path: Path) -> None:
    assert read_predictions(tmp_path / "missing.csv") is None
    (tmp_path / "other.csv").write_text("language,layout\nLAST,global\n", encoding="utf-8")
    assert read_predictions(tmp_path / "other.csv") is None
