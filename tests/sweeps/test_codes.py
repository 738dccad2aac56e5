"""Issue 28 item 1: every stored run names the code that made it; no cell silently mixes codes."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from expressivity.analysis.figures import write_figures
from expressivity.cli import main
from expressivity.errors import ConfigError
from expressivity.fingerprint import UNKNOWN_LABEL, code_fingerprint
from expressivity.sweeps.runner import run_sweep
from expressivity.sweeps.store import ResultsStore
from tests.sweeps.conftest import InlineExecutor
from tests.sweeps.fake import fake_train

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "tests" / "fixtures" / "schema1-quick.db"  # quick store, schema 1
OLD = "0ldc0de0ldc0"


def _version(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


def test_every_run_records_this_code(small_spec: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False)
    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    assert len(runs) == 8 and set(runs["code_fingerprint"]) == {code_fingerprint()}
    assert all("code_fingerprint" not in json.loads(e) for e in runs["extra"])


@pytest.mark.skipif(not COMMITTED.exists(), reason="the committed store is not in this checkout")
def test_an_old_store_reads_as_unknown_code_and_a_writer_migrates_it(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copy(COMMITTED, db)
    assert _version(db) == 1
    with ResultsStore(db, create=False) as store:  # a reader changes nothing
        before = store.runs()
    assert _version(db) == 1 and before["code_fingerprint"].isna().all()
    with ResultsStore(db) as store:  # the first writer migrates: one column, same run ids
        after = store.runs()
    assert _version(db) == 2
    assert after["run_id"].tolist() == before["run_id"].tolist()
    assert after["code_fingerprint"].isna().all()


def _half_done_by_old_code(spec: Path, db: Path) -> None:
    """3 of the 8 runs done, then relabelled as made by other code: the cell SUFFIX-a × local-1
    has one run of each seed to do."""
    run_sweep(spec, db, executor=InlineExecutor(interrupt_after=3), train_fn=fake_train,
              group="off", progress=False)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET code_fingerprint = ?", (OLD,))


def test_a_resumed_sweep_refuses_to_mix_codes_in_a_cell(small_spec: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    _half_done_by_old_code(small_spec, db)
    ex = InlineExecutor()
    with pytest.raises(ConfigError, match=rf"made by other code: {OLD} \(3 runs\).*mix codes"):
        run_sweep(small_spec, db, executor=ex, train_fn=fake_train, progress=False)
    assert ex.calls == 0
    mixed = run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train,
                      other_code="mix", progress=False)
    assert mixed.completed == 5 and "as asked" in str(mixed.plan.code_note)
    with ResultsStore(db, create=False) as store:
        codes = store.runs()["code_fingerprint"].value_counts().to_dict()
    assert codes == {OLD: 3, code_fingerprint(): 5}


def test_rerun_other_code_retrains_those_runs(small_spec: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    _half_done_by_old_code(small_spec, db)
    ex = InlineExecutor()
    out = run_sweep(small_spec, db, executor=ex, train_fn=fake_train, other_code="rerun",
                    group="off", progress=False)
    assert ex.calls == 8 and out.completed == 8 and out.plan.code_note is None
    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    assert set(runs["code_fingerprint"]) == {code_fingerprint()}


def test_a_complete_store_of_other_code_is_named_not_refused(
    small_spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.db"
    run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET code_fingerprint = NULL")
    out = run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train,
                    progress=False)
    assert not out.plan.todo and f"{UNKNOWN_LABEL} (8 runs)" in str(out.plan.code_note)
    capsys.readouterr()
    assert main(["results", str(db), "--no-theory", "--format", "csv"]) == 0
    captured = capsys.readouterr()
    assert UNKNOWN_LABEL in captured.err and UNKNOWN_LABEL not in captured.out
    assert code_fingerprint() in captured.err


def test_figures_name_the_codes_of_their_runs(small_spec: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    _half_done_by_old_code(small_spec, db)
    run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train, other_code="mix",
              progress=False)
    out = tmp_path / "figs"
    write_figures(db, out, formats=("svg",))
    record = json.loads((out / "provenance.json").read_text("utf-8"))["store"]
    assert record["code_fingerprints"] == {OLD: 3, code_fingerprint(): 5}
    mixed = "codes are mixed in 1 cell: SUFFIX-a × local-1"
    assert mixed in record["code_note"]
    readme = (out / "README.md").read_text("utf-8")
    assert f"`{OLD}` (3 runs)" in readme and mixed in readme
