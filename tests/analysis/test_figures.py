"""`expressivity figures` and `write_figures`: every listed file exists, with provenance."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from expressivity.analysis.figures import RESULTS_ENV, default_results_path, write_figures
from expressivity.analysis.provenance import file_sha256
from expressivity.cli import main
from expressivity.errors import ConfigError, StoreError
from expressivity.sweeps.store import ResultsStore

TABLES = {"summary", "recognition_matrix", "class_summary", "predicted_vs_observed",
          "verdict_matrix", "agreement", "disagreements", "classes", "accuracy_by_length",
          "adversarial_by_kind", "seed_stability", "papers", "recall", "failures"}


@pytest.fixture(scope="module")
def written(example_db: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Run the command once (PNG only, low resolution, to stay fast)."""
    out = tmp_path_factory.mktemp("figures") / "paper_figures"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(["figures", str(example_db), "--out", str(out), "--formats", "png",
                     "--dpi", "40"])
    assert code == 0
    return out, buffer.getvalue().split()


def test_every_listed_file_is_written(written: tuple[Path, list[str]]) -> None:
    out, listed = written
    assert listed, "the command lists what it wrote"
    for name in listed:
        path = Path(name)
        assert path.is_file() and path.stat().st_size > 0, name
    on_disk = {str(p) for p in out.rglob("*") if p.is_file()}
    assert on_disk == set(listed)


def test_tables_and_figures_are_all_there(written: tuple[Path, list[str]]) -> None:
    out, _ = written
    for table in TABLES:
        for ext in ("md", "tex", "csv"):
            assert (out / "tables" / f"{table}.{ext}").is_file()
    figures = {p.stem for p in (out / "figures").glob("*.png")}
    assert {"heatmap_max_accuracy", "heatmap_mean_accuracy", "heatmap_n_star",
            "heatmap_adversarial", "accuracy_vs_length", "predicted_vs_observed",
            "class_recognition", "class_diagram", "dfa_suffix-a", "dfa_rdp-1-over-a-b0-b1",
            "masks_global", "masks_local-1", "masks_hybrid-1", "masks_hybrid-2"} <= figures
    assert "dfa_cnt" not in figures  # not regular: no DFA
    assert not list((out / "figures").glob("*.pdf"))


def test_provenance_lists_every_artefact_with_its_hash(
    written: tuple[Path, list[str]], example_db: Path
) -> None:
    out, listed = written
    record = json.loads((out / "provenance.json").read_text(encoding="utf-8"))
    assert record["command"].startswith(f"expressivity figures {example_db} --out {out}")
    assert record["git_commit"] and "created" in record
    assert record["machine"]["cpu_count"] >= 1 and "torch_version" in record["machine"]
    assert record["store"]["runs"] == 48 and record["store"]["completed"] == 45
    assert record["store"]["sweeps"][0]["spec_hash"] == "hand-made"
    assert record["store"]["hand_made_example"] is True
    artefacts = {a["path"]: a for a in record["artefacts"]}
    assert set(artefacts) == {str(Path(p).relative_to(out)) for p in listed} - {"provenance.json"}
    for path, entry in artefacts.items():
        assert entry["sha256"] == file_sha256(out / path)


def test_readme_warns_about_example_data(written: tuple[Path, list[str]]) -> None:
    out, _ = written
    text = (out / "README.md").read_text(encoding="utf-8")
    assert "Hand-made example data" in text
    assert "20 of 22 cells agree" in text
    assert "PREFIX-a, hybrid-1" in text  # a disagreement is listed
    why = text.index("Why proven-yes cells were missed")  # with the failures table
    assert "| unbounded | all | 1 | 0 | 0 | 1 | 0 |" in text[why:]


@pytest.mark.slow  # a second full figures run
def test_rerun_replaces_the_old_artefacts(
    written: tuple[Path, list[str]], example_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "figs"
    shutil.copytree(written[0], out)
    stale = out / "figures" / "dfa_gone.svg"  # as if an earlier run had drawn another language
    stale.write_text("<svg/>")
    record = json.loads((out / "provenance.json").read_text(encoding="utf-8"))
    record["artefacts"].append({"path": "figures/dfa_gone.svg", "kind": "figure"})
    record["artefacts"].append({"path": "../outside.txt", "kind": "figure"})
    (out / "provenance.json").write_text(json.dumps(record), encoding="utf-8")
    (out / "notes.txt").write_text("not ours")
    (tmp_path / "outside.txt").write_text("not ours either")
    paths = write_figures(example_db, out, formats=("svg",), dpi=30, sweep="example-hand-made")
    assert not stale.exists()  # listed by the previous provenance.json: removed
    assert not list((out / "figures").glob("*.png"))  # the old PNGs were listed too
    assert (out / "notes.txt").exists() and (tmp_path / "outside.txt").exists()
    assert all(p.exists() for p in paths)
    assert (out / "figures" / "heatmap_n_star.svg").is_file()


def test_errors(example_db: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="formats"):
        write_figures(example_db, tmp_path, formats=("gif",))
    empty = tmp_path / "empty.db"
    ResultsStore(empty).close()
    with pytest.raises(StoreError, match="no runs"):
        write_figures(empty, tmp_path / "out")
    assert main(["figures", str(tmp_path / "missing.db"), "--out", str(tmp_path / "o")]) == 2


def test_default_results_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, example_db: Path
) -> None:
    monkeypatch.delenv(RESULTS_ENV, raising=False)
    assert default_results_path(tmp_path) is None
    (tmp_path / "paper_figures").mkdir()
    record = {"store": {"path": "results.db"}}
    (tmp_path / "paper_figures" / "provenance.json").write_text(json.dumps(record))
    assert default_results_path(tmp_path) is None  # the store is gone
    (tmp_path / "results.db").write_bytes(example_db.read_bytes())
    assert default_results_path(tmp_path) == tmp_path / "results.db"
    monkeypatch.setenv(RESULTS_ENV, str(example_db))
    assert default_results_path(tmp_path) == example_db


def test_tables_and_figures_keep_the_specs_layout_order(tmp_path: Path) -> None:
    """Issue 29: columns follow the sweep spec's layout axis, not a fixed report order."""
    import sqlite3

    from expressivity.analysis.plots import plot_accuracy_heatmap
    from expressivity.analysis.store_report import build_report
    from expressivity.analysis.tables import matrix

    db = tmp_path / "quick.db"
    shutil.copy(Path(__file__).resolve().parents[2] / "paper_figures" / "quick.db", db)
    with sqlite3.connect(db) as con:
        (source,) = con.execute("SELECT source FROM sweeps").fetchone()
        spelled = 'layouts = ["global", "local-1", "hybrid-1"]'
        assert spelled in source
        con.execute("UPDATE sweeps SET source = ?",
                    (source.replace(spelled, 'layouts = ["hybrid-1", "global", "local-1"]'),))
    report = build_report(db)
    order = ["hybrid-1", "global", "local-1"]
    assert report.layouts == tuple(order)
    assert list(report.summary["layout"][:3]) == order
    assert list(matrix(report.summary, "max_accuracy", report.layouts).columns) == order
    assert list(dict.fromkeys(report.class_summary["layout"])) == order
    fig = plot_accuracy_heatmap(report.summary, "max", report.layouts)
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == order
    default = matrix(report.summary, "max_accuracy")  # without a spec: global, local, hybrid
    assert list(default.columns) == ["global", "local-1", "hybrid-1"]
