"""The results store: one SQLite file of runs and their metrics, read back as tidy DataFrames.

Schema (version `SCHEMA_VERSION`, kept in ``PRAGMA user_version`` and in the ``meta`` table):

- ``meta(key, value)``: ``schema`` = "expressivity.results", ``schema_version``, ``created_by``;
- ``runs``: one row per run id: the spec as JSON plus its main fields as columns, status
  ("completed" / "failed"), error, timings and summary numbers (`RUN_TABLE`);
- ``length_metrics(run_id, length, n, correct, true_pos, true_neg, false_pos, false_neg)``;
- ``adversarial_metrics(run_id, kind, n, correct)``;
- ``sweeps(name, spec_hash, path, source, registered_at)`` and ``sweep_runs(sweep, run_id)``:
  which runs each sweep asked for (provenance of tables and figures).

Schema version 2 added ``runs.code_fingerprint`` (`expressivity.fingerprint`: the code that
produced the run; NULL for runs of older stores, shown as "unknown (older code)"). A version-1
store is migrated by the first writer that opens it (one ``ALTER TABLE``, nothing else
changes: run ids stay valid) and read as it is by readers, the column as NULL.

Only the sweep driver writes, one transaction per finished run (`ResultsStore.record`), in
WAL mode: a killed driver leaves every committed run whole and nothing of the others.

Opening a store checks it (issue 15): ``PRAGMA integrity_check`` must pass (``quick_check``
misses a damaged index page, which then corrupts reads) and every table must
have exactly the columns of the declared schema, else a `StoreError` names the file, what is
wrong and what to do; a path that is a folder, ends in a slash, or cannot be written (for a
writer) is refused the same way. `ResultsStore.lock` keeps a second driver off a store, and
`save_side_record` keeps a finished run whose write failed in a JSON side file beside the
store (``<store>.unsaved/<run_id>.json``), which the next writer imports.

The schema is declared in `expressivity.sweeps.store_schema`, the path checks and side files
live in `expressivity.sweeps.store_files`, the checks and migration of an opened file in
`expressivity.sweeps.store_open`, and the reading methods in `expressivity.sweeps.store_read`
(`StoreReader`, which `ResultsStore` extends with opening, locking and writing); this module
re-exports their public names.
"""

from __future__ import annotations

import os
import socket
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import IO

try:  # POSIX only: elsewhere a store takes no lock (`ResultsStore.lock`)
    import fcntl
except ImportError:  # pragma: no cover - not on Linux/macOS
    fcntl = None  # type: ignore[assignment]

from expressivity.checkpoint import recorded_path
from expressivity.disk import disk_space
from expressivity.errors import StoreError
from expressivity.sweeps.store_files import (
    check_store_path,
    check_writable,
    save_side_record,
    side_records,
    writable,
)
from expressivity.sweeps.store_open import Transaction, check_or_create, corrupted
from expressivity.sweeps.store_read import StoreReader
from expressivity.sweeps.store_schema import (
    ADVERSARIAL_COLUMNS,
    LENGTH_COLUMNS,
    RUN_COLUMNS,
    RUN_TABLE,
    SCHEMA_VERSION,
    RunColumn,
    now,
)
from expressivity.training.spec import RunRecord

__all__ = [
    "ADVERSARIAL_COLUMNS",
    "LENGTH_COLUMNS",
    "RUN_COLUMNS",
    "RUN_TABLE",
    "SCHEMA_VERSION",
    "ResultsStore",
    "RunColumn",
    "check_store_path",
    "save_side_record",
    "side_records",
]


class ResultsStore(StoreReader):
    """A results store file, opened (and created if missing) at ``path``; its reading
    methods (``runs``, ``lengths``, ``statuses``, ...) are `StoreReader`'s."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        """Open ``path``; ``create`` (the driver) may create it and must be able to write it,
        otherwise (readers) it must exist. Raises `StoreError` for anything but a sound store."""
        self.path = check_store_path(path)
        self._lock: IO[str] | None = None
        self._writer = create
        self.version = SCHEMA_VERSION  # of the file (older ones are read as they are)
        if not create and not self.path.exists():
            raise StoreError(f"{self.path}: no such results store")
        if create:
            check_writable(self.path)
        target, uri = str(self.path), False
        if not create and not writable(self.path):  # e.g. an archived store: no -shm possible
            target, uri = self.path.resolve().as_uri() + "?mode=ro&immutable=1", True
        try:
            self._conn = sqlite3.connect(target, timeout=30.0, isolation_level=None, uri=uri)
        except sqlite3.Error as err:
            raise StoreError(f"{self.path}: cannot open the results store ({err})") from None
        try:
            self._conn.execute("PRAGMA foreign_keys = ON")
            self.version = check_or_create(self._conn, self.path, writer=self._writer)
            if create:
                self._conn.execute("PRAGMA journal_mode = WAL")
                self._conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.DatabaseError as err:
            self._conn.close()
            if "malformed" in str(err):
                raise corrupted(self.path, str(err)) from None
            if "disk is full" in str(err) or "disk I/O error" in str(err):
                raise StoreError(f"{self.path}: the results store cannot be written ({err}); "
                                 f"{disk_space(self.path.parent)}. Free some space or use "
                                 "another --db path") from None
            raise StoreError(f"{self.path}: not a results store ({err})") from None
        except StoreError:
            self._conn.close()
            raise

    def lock(self) -> None:
        """Take the driver's lock (``<store>.lock``) or raise `StoreError` naming its holder.

        An advisory ``flock``, released when this store is closed or the process dies; on a
        system without ``fcntl`` nothing is locked.
        """
        if fcntl is None:  # pragma: no cover - not on Linux/macOS
            return
        path = self.path.with_name(self.path.name + ".lock")
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until close()
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise StoreError(
                f"{self.path}: another sweep driver ({holder}) is writing to this store; "
                "wait for it to finish (then rerun: completed runs are skipped) or use "
                "another --db file"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} on {socket.gethostname()} since {now()}\n")
        handle.flush()
        self._lock = handle

    def _transaction(self) -> Transaction:
        return Transaction(self._conn)

    def close(self) -> None:
        """Close the connection and release the lock (the file stays)."""
        self._conn.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- writing (driver only) ---------------------------------------------------------
    def register_sweep(
        self, name: str, spec_hash: str, path: str, source: str, run_ids: Iterable[str]
    ) -> None:
        """Record a sweep's spec and the run ids it asks for (idempotent)."""
        with self._transaction():
            self._conn.execute(
                "INSERT OR IGNORE INTO sweeps VALUES (?, ?, ?, ?, ?)",
                (name, spec_hash, path, source, now()),
            )
            self._conn.executemany(
                "INSERT OR IGNORE INTO sweep_runs VALUES (?, ?)", [(name, r) for r in run_ids]
            )

    def record(self, record: RunRecord) -> None:
        """Write one finished run and its metrics in one transaction (replacing an older row)."""
        row = {c.name: c.value(record) for c in RUN_TABLE}
        row["checkpoint"] = recorded_path(record.checkpoint, self.path)  # relative to the store
        insert = f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})"
        with self._transaction():
            old = self._conn.execute(
                "SELECT attempts FROM runs WHERE run_id = ?", (record.run_id,)
            ).fetchone()
            row["attempts"] += old[0] if old else 0
            self._conn.execute("DELETE FROM runs WHERE run_id = ?", (record.run_id,))
            self._conn.execute(insert, tuple(row.values()))
            self._conn.executemany(
                "INSERT INTO length_metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        record.run_id,
                        m.length,
                        m.n,
                        m.correct,
                        m.true_pos,
                        m.true_neg,
                        m.false_pos,
                        m.false_neg,
                    )
                    for m in record.lengths
                ],
            )
            self._conn.executemany(
                "INSERT INTO adversarial_metrics VALUES (?, ?, ?, ?)",
                [(record.run_id, m.kind, m.n, m.correct) for m in record.adversarial],
            )

    def copy_runs(self, source: ResultsStore, run_ids: Iterable[str]) -> list[str]:
        """Copy the runs ``run_ids`` that ``source`` (another store) holds as completed into
        this one, with their metrics and code fingerprints, in one transaction (replacing what
        this store holds under those ids). A run id names its spec, so a copied run is the run
        this store's sweep asks for. Returns the ids copied, in ``run_ids``' order."""
        if source.path.resolve() == self.path.resolve():
            raise StoreError(f"{self.path}: cannot copy runs from a store into itself")
        wanted = list(dict.fromkeys(run_ids))
        done = source.statuses(wanted)
        ids = [r for r in wanted if done.get(r) == "completed"]
        tables = [(t, [r[1] for r in source._conn.execute(f"PRAGMA table_info({t})")])
                  for t in ("runs", "length_metrics", "adversarial_metrics")]
        with self._transaction():
            for start in range(0, len(ids), 500):  # SQLite's bound on host parameters
                chunk = ids[start:start + 500]
                marks = ", ".join("?" * len(chunk))
                self._conn.execute(f"DELETE FROM runs WHERE run_id IN ({marks})", chunk)
                for table, columns in tables:  # a version-1 source lacks code_fingerprint
                    names = ", ".join(columns)
                    rows = source._conn.execute(
                        f"SELECT {names} FROM {table} WHERE run_id IN ({marks})", chunk)
                    self._conn.executemany(
                        f"INSERT INTO {table} ({names}) VALUES "
                        f"({', '.join('?' * len(columns))})", rows.fetchall())
        return ids

    def keep_sweep(self, sweep: str) -> int:
        """Delete every run the sweep called ``sweep`` did not register, with its metrics, and
        every other sweep: the store becomes that sweep's alone (a sweep that resumed a copy of
        another store keeps the runs it shares with it). Returns how many runs were deleted; a
        `StoreError` if no sweep has that name."""
        if not self._conn.execute("SELECT 1 FROM sweeps WHERE name = ?", (sweep,)).fetchone():
            raise StoreError(f"{self.path}: no sweep {sweep!r}; the store's sweeps are "
                             f"{', '.join(self.sweeps()['name']) or 'none'}")
        with self._transaction():
            gone = self._conn.execute(
                "DELETE FROM runs WHERE run_id NOT IN "
                "(SELECT run_id FROM sweep_runs WHERE sweep = ?)", (sweep,)).rowcount
            self._conn.execute("DELETE FROM sweep_runs WHERE sweep != ?", (sweep,))
            self._conn.execute("DELETE FROM sweeps WHERE name != ?", (sweep,))
        return int(gone)
