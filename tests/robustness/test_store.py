"""Issue 15 items 4-6: a results store that refuses corruption, loses no run, and has one driver."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from expressivity.cli import main
from expressivity.errors import StoreError
from expressivity.sweeps.runner import run_sweep
from expressivity.sweeps.store import SCHEMA_VERSION, ResultsStore, side_records
from tests.sweeps.conftest import SMALL, InlineExecutor
from tests.sweeps.fake import fake_train
from tests.sweeps.test_store import _record

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL, "utf-8")
    return path


def _filled(path: Path, runs: int = 40) -> Path:
    with ResultsStore(path) as store:
        for seed in range(runs):
            store.record(_record(seed=seed))
    return path


# ---- item 4: corruption and schema ------------------------------------------------------------
def test_a_corrupted_store_is_refused_and_left_untouched(tmp_path: Path) -> None:
    data = _filled(tmp_path / "r.db").read_bytes()
    pages = len(data) // 4096
    silent = 0
    for page in range(1, pages - 1):  # 4 KB of one page overwritten (with its neighbour's bytes)
        bad = bytearray(data)
        bad[page * 4096:(page + 1) * 4096] = data[(page + 1) * 4096:(page + 2) * 4096]
        db = tmp_path / f"page{page}.db"
        db.write_bytes(bytes(bad))
        try:  # what a plain SQLite client sees
            conn = sqlite3.connect(db)
            conn.execute("SELECT count(*) FROM runs").fetchall()
            healthy = conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            conn.close()
        except sqlite3.DatabaseError:
            healthy = False
        else:
            silent += not healthy  # readable, yet integrity_check fails: the case
        if healthy:
            continue
        for create in (True, False):
            with pytest.raises(StoreError, match=rf"page{page}\.db: the results store is corrupted"
                               r".*\.recover"):
                ResultsStore(db, create=create)
        assert db.read_bytes() == bytes(bad)  # neither read nor written
    assert silent > 0


def test_a_schema_version_that_disagrees_with_the_tables_is_refused(tmp_path: Path) -> None:
    db = _filled(tmp_path / "r.db", runs=2)
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE runs DROP COLUMN extra")
    conn.commit()
    conn.close()
    lacks = rf"schema version {SCHEMA_VERSION} but table 'runs' lacks \['extra'\]"
    with pytest.raises(StoreError, match=lacks):
        ResultsStore(db, create=False)
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE runs ADD COLUMN extra TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE runs ADD COLUMN mine TEXT")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=r"table 'runs' has unknown columns \['mine'\]"):
        ResultsStore(db)


# ---- item 5: no trained run is lost -------------------------------------------------------------
def test_a_store_with_a_dropped_column_is_refused_before_any_training(
    spec_file: Path, tmp_path: Path
) -> None:
    db = _filled(tmp_path / "r.db", runs=1)
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE length_metrics DROP COLUMN false_neg")
    conn.commit()
    conn.close()
    ex = InlineExecutor()
    with pytest.raises(StoreError, match="lacks"):
        run_sweep(spec_file, db, executor=ex, train_fn=fake_train, progress=False)
    assert ex.calls == 0


def test_a_failed_write_keeps_the_record_in_a_side_file_and_the_next_sweep_records_it(
    spec_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "r.db"
    real = ResultsStore.record
    calls: list[str] = []

    def flaky(self: ResultsStore, record: object) -> None:
        calls.append("x")
        if len(calls) == 3:
            raise sqlite3.OperationalError("disk I/O error")
        real(self, record)  # type: ignore[arg-type]

    monkeypatch.setattr(ResultsStore, "record", flaky)
    first = run_sweep(spec_file, db, executor=InlineExecutor(), train_fn=fake_train)
    assert first.completed == 8
    kept = side_records(db)
    assert len(kept) == 1
    path, record = kept[0]
    assert path.parent == tmp_path / "r.db.unsaved" and record.status == "completed"
    said = capsys.readouterr()
    assert f"kept it in {path}" in said.out + said.err
    monkeypatch.setattr(ResultsStore, "record", real)
    ex = InlineExecutor()
    run_sweep(spec_file, db, executor=ex, train_fn=fake_train, progress=False)
    assert ex.calls == 0 and not side_records(db)  # imported, not retrained
    with ResultsStore(db, create=False) as store:
        runs = store.runs()
        assert len(runs) == 8 and record.run_id in set(runs["run_id"])
        assert len(store.lengths().query("run_id == @record.run_id")) == len(record.lengths)


# ---- item 6: paths, permissions, one driver -----------------------------------------------------
def test_a_folder_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="a folder, but a results store is a file"):
        ResultsStore(tmp_path)
    target = tmp_path / "foo"
    with pytest.raises(StoreError, match=r"foo/: a folder.*foo/results\.db"):
        ResultsStore(f"{target}/")
    assert not target.exists()  # no file called foo


def test_sweep_cli_with_a_trailing_slash_is_an_error_not_a_file(
    spec_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "foo"
    assert main(["sweep", str(spec_file), "--db", f"{target}/", "--no-progress"]) != 0
    assert "a folder, but a results store is a file" in capsys.readouterr().err
    assert not target.exists()


_READ_ONLY = """
import os, sys
import expressivity, pandas
from expressivity.errors import StoreError
from expressivity.sweeps.store import ResultsStore
if os.geteuid() == 0:  # root writes through permissions: drop to nobody once imports are done
    os.setgid(65534)
    os.setuid(65534)
store, folder = sys.argv[1], sys.argv[2]
for path, create in ((store, True), (os.path.join(folder, "new.db"), True)):
    try:
        ResultsStore(path, create=create).close()
        print("opened", path)
    except StoreError as err:
        print("error:", err)
with ResultsStore(store, create=False) as s:  # reading a read-only store works
    print("runs", len(s.runs()))
"""


def test_read_only_store_and_folder_are_clear_errors(tmp_path: Path) -> None:
    base = Path(tempfile.mkdtemp(prefix="ro-store-"))
    try:
        folder = base / "ro"
        folder.mkdir()
        db = _filled(folder / "r.db", runs=2)
        db.chmod(0o444)
        folder.chmod(0o555)
        base.chmod(0o755)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(base)}
        out = subprocess.run(
            [sys.executable, "-c", _READ_ONLY, str(db), str(folder)], capture_output=True,
            text=True, timeout=120, cwd=base, env=env, check=False,
        )
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert "the results store is read-only" in lines[0] and "chmod u+w" in lines[0]
        assert f"the folder {folder} is read-only" in lines[1]
        assert lines[2] == "runs 2"
    finally:
        for p in (base / "ro", base / "ro" / "r.db"):
            if p.exists():
                p.chmod(0o755)
        shutil.rmtree(base)


def test_a_second_driver_refuses_with_the_first_ones_pid(spec_file: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with ResultsStore(db) as first:
        first.lock()
        ex = InlineExecutor()
        with pytest.raises(StoreError, match=rf"another sweep driver \(pid {os.getpid()} on"):
            run_sweep(spec_file, db, executor=ex, train_fn=fake_train, progress=False)
        assert ex.calls == 0
    out = run_sweep(spec_file, db, executor=InlineExecutor(), train_fn=fake_train, progress=False)
    assert out.completed == 8  # the lock went with the first driver
