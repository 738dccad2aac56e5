"""The SQLite results store: round trip, declared schema, atomic writes, incompatible files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from expressivity.errors import StoreError
from expressivity.sweeps.store import (
    ADVERSARIAL_COLUMNS,
    LENGTH_COLUMNS,
    RUN_COLUMNS,
    SCHEMA_VERSION,
    ResultsStore,
)
from expressivity.training.spec import LengthMetric, RunRecord, RunSpec
from tests.sweeps.fake import fake_train


def _record(language: str = "LT-2", seed: int = 0, fail: bool = False) -> RunRecord:
    return fake_train(RunSpec(language, "hybrid-1", "tiny", seed), fail={language} if fail else ())


def test_round_trip_with_declared_schema(tmp_path: Path) -> None:
    rec = _record()
    with ResultsStore(tmp_path / "r.db") as store:
        store.record(rec)
        store.record(_record(seed=1, fail=True))
        runs, lengths, adv = store.runs(), store.lengths(), store.adversarial()
        assert store.spec(rec.run_id) == rec.spec
        failed_id = _record(seed=1, fail=True).run_id
        assert store.statuses() == {rec.run_id: "completed", failed_id: "failed"}
    assert dict(runs.dtypes.astype(str)) == RUN_COLUMNS
    assert dict(lengths.dtypes.astype(str)) == LENGTH_COLUMNS
    assert dict(adv.dtypes.astype(str)) == ADVERSARIAL_COLUMNS
    row = runs.set_index("run_id").loc[rec.run_id]
    assert row["test_accuracy"] == pytest.approx(rec.test_accuracy)
    assert row["n_star"] == rec.n_star and bool(row["recognized"]) == rec.recognized
    assert (row["language"], row["layout"], row["seed"]) == ("LT-2", "hybrid-1", 0)
    assert len(lengths) == len(rec.lengths) and set(lengths["run_id"]) == {rec.run_id}
    assert lengths["accuracy"].tolist() == [m.accuracy for m in rec.lengths]
    failed = runs[runs["status"] == "failed"].iloc[0]
    assert "nan" in failed["error"] and not failed["recognized"]


def test_rerecording_replaces_rows_and_counts_attempts(tmp_path: Path) -> None:
    with ResultsStore(tmp_path / "r.db") as store:
        failed = _record(fail=True)
        store.record(failed)
        done = RunRecord(failed.run_id, failed.spec, "completed", lengths=(LengthMetric(41, 2, 2),))
        store.record(done)
        runs = store.runs()
        assert len(runs) == 1 and runs["status"][0] == "completed" and runs["attempts"][0] == 2
        assert len(store.lengths()) == 1


def test_a_failing_write_leaves_no_partial_rows(tmp_path: Path) -> None:
    rec = _record()
    bad = RunRecord(rec.run_id, rec.spec, "completed", lengths=(LengthMetric(41, 1, 1),) * 2)
    with ResultsStore(tmp_path / "r.db") as store:
        with pytest.raises(sqlite3.IntegrityError):
            store.record(bad)  # duplicate length: the transaction rolls back
        assert store.runs().empty and store.lengths().empty


def test_wal_mode_and_schema_version(tmp_path: Path) -> None:
    ResultsStore(tmp_path / "r.db").close()
    conn = sqlite3.connect(tmp_path / "r.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    meta = dict(conn.execute("SELECT key, value FROM meta"))
    assert meta["schema"] == "expressivity.results"
    assert meta["schema_version"] == str(SCHEMA_VERSION)


def test_incompatible_files_raise_store_error(tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("not a database at all, just some text " * 20)
    with pytest.raises(StoreError, match="not a results store"):
        ResultsStore(text)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(StoreError, match="not an expressivity results store"):
        ResultsStore(other)
    newer = tmp_path / "newer.db"
    ResultsStore(newer).close()
    conn = sqlite3.connect(newer)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}"):
        ResultsStore(newer)
    with pytest.raises(StoreError, match="no such results store"):
        ResultsStore(tmp_path / "missing.db", create=False)


def test_sweep_registration_filters_reads(tmp_path: Path) -> None:
    a, b = _record(seed=0), _record(seed=1)
    with ResultsStore(tmp_path / "r.db") as store:
        store.register_sweep("one", "h1", "one.toml", "[sweep]", [a.run_id])
        store.register_sweep("one", "h1", "one.toml", "[sweep]", [a.run_id])  # idempotent
        store.record(a)
        store.record(b)
        assert store.sweep_run_ids("one") == [a.run_id]
        assert store.sweeps()[["name", "source"]].values.tolist() == [["one", "[sweep]"]]
        assert store.runs(sweep="one")["run_id"].tolist() == [a.run_id]
        assert len(store.lengths(sweep="one")) == len(a.lengths)
        assert len(store.runs()) == 2


def test_keep_sweep_leaves_one_sweeps_runs_and_metrics(tmp_path: Path) -> None:
    # A sweep that resumed a copy of another store shares some of its runs: keep_sweep drops
    # the rest, their metrics and the other sweep, and leaves the shared runs byte for byte.
    a, b, c = _record(seed=0), _record(seed=1), _record(seed=2)
    with ResultsStore(tmp_path / "r.db") as store:
        store.register_sweep("old", "h0", "old.toml", "[old]", [a.run_id, b.run_id])
        store.register_sweep("new", "h1", "new.toml", "[new]", [a.run_id, c.run_id])
        for rec in (a, b, c):
            store.record(rec)
        shared = store.runs().set_index("run_id").loc[[a.run_id]]
        with pytest.raises(StoreError, match=r"no sweep 'newer'.*old, new"):
            store.keep_sweep("newer")
        assert store.keep_sweep("new") == 1
        assert sorted(store.runs()["run_id"]) == sorted([a.run_id, c.run_id])
        assert set(store.lengths()["run_id"]) == {a.run_id, c.run_id}
        assert set(store.adversarial()["run_id"]) <= {a.run_id, c.run_id}
        assert store.sweeps()["name"].tolist() == ["new"]
        assert store.sweep_run_ids("old") == []
        pd.testing.assert_frame_equal(store.runs().set_index("run_id").loc[[a.run_id]], shared)
        assert store.keep_sweep("new") == 0


def test_a_new_store_creates_its_folder(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "nested" / "results.db"
    with ResultsStore(path) as store:
        store.record(_record())
    assert path.exists()
    with ResultsStore(path, create=False) as store:
        assert len(store.runs()) == 1


def test_store_re_exports_the_names_of_its_split_modules() -> None:
    """`sweeps.store` keeps every name it exported before its schema, files, opening and
    reading moved to modules of their own (the same objects)."""
    from expressivity.sweeps import store, store_files, store_read, store_schema

    for name in store.__all__:
        home = next((m for m in (store_schema, store_files) if name in m.__all__), store)
        assert getattr(store, name) is getattr(home, name)
    assert issubclass(store.ResultsStore, store_read.StoreReader)
