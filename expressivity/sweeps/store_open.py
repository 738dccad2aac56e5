"""Opening a results store's connection: its schema created, checked and migrated; transactions.

`expressivity.sweeps.store.ResultsStore` opens its file through `check_or_create` (see the
store's docstring for the checks of issue 15): a new file gets the declared schema
(`store_schema.DDL`) and its ``meta`` rows; an existing one must pass ``PRAGMA
integrity_check``, name itself an expressivity results store, and have exactly the declared
columns of its version, else a `StoreError` says what is wrong and what to do; a writer
migrates an older version in place.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from expressivity import _version
from expressivity.errors import StoreError
from expressivity.sweeps.store_schema import (
    ADDED_RUN_COLUMNS,
    DDL,
    SCHEMA_NAME,
    SCHEMA_VERSION,
    declared_columns,
    now,
)

__all__ = ["Transaction", "check_or_create", "corrupted"]


class Transaction:
    """``with``: BEGIN IMMEDIATE … COMMIT, or ROLLBACK on an exception."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.conn.execute("ROLLBACK" if exc_type is not None else "COMMIT")


def check_or_create(conn: sqlite3.Connection, path: Path, *, writer: bool) -> int:
    """Create the schema in an empty file, or check an existing store (a ``writer`` migrates
    an older version); the schema version the store is read as. Raises `StoreError`."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if version == 0 and not tables:
        with Transaction(conn):
            for statement in DDL.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("schema", SCHEMA_NAME),
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("created_by", f"expressivity {_version.__version__}"),
                    ("created_at", now()),
                ],
            )
        return SCHEMA_VERSION
    _check_integrity(conn, path)
    meta = dict(conn.execute("SELECT key, value FROM meta")) if "meta" in tables else {}
    if meta.get("schema") != SCHEMA_NAME:
        raise StoreError(
            f"{path}: an SQLite file but not an expressivity results store "
            "(no meta.schema = 'expressivity.results'); use another --db path"
        )
    if 1 <= version < SCHEMA_VERSION:
        _check_columns(conn, path, version)
        if writer:
            _migrate(conn, version)
            return SCHEMA_VERSION
        return int(version)
    if version != SCHEMA_VERSION:
        raise StoreError(
            f"{path}: results store schema version {version}, but this toolkit reads "
            f"version {SCHEMA_VERSION} (created by {meta.get('created_by', '?')}); "
            "use a matching toolkit version or a new --db file"
        )
    _check_columns(conn, path)
    return SCHEMA_VERSION


def _check_integrity(conn: sqlite3.Connection, path: Path) -> None:
    try:
        rows = conn.execute("PRAGMA integrity_check(3)").fetchall()
    except sqlite3.DatabaseError as err:
        rows = [(str(err),)]
    if [r[0] for r in rows] != ["ok"]:
        detail = "; ".join(str(r[0]) for r in rows[:3]).replace("\n", " ")
        raise corrupted(path, f"integrity_check: {detail[:300]}")


def corrupted(path: Path, detail: str) -> StoreError:
    """The error for a damaged store file, with ``detail`` from SQLite and how to recover."""
    return StoreError(
        f"{path}: the results store is corrupted (SQLite {detail}); nothing was read "
        f"or written. Restore it from a copy, or salvage what is readable with "
        f"`sqlite3 {path} .recover | sqlite3 recovered.db`, or use a new --db file"
    )


def _migrate(conn: sqlite3.Connection, version: int) -> None:
    """Bring a store of schema ``version`` to `SCHEMA_VERSION` (one transaction)."""
    with Transaction(conn):
        for v in range(version + 1, SCHEMA_VERSION + 1):
            for column in ADDED_RUN_COLUMNS.get(v, ()):
                conn.execute(f"ALTER TABLE runs ADD COLUMN {column} TEXT")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                     (str(SCHEMA_VERSION),))
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _check_columns(conn: sqlite3.Connection, path: Path, version: int = SCHEMA_VERSION) -> None:
    for table, want in declared_columns(version).items():
        have = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        if have != want:
            missing = [c for c in want if c not in have]
            extra = [c for c in have if c not in want]
            what = (f"no table {table!r}" if not have else
                    f"table {table!r} lacks {missing}" if missing else
                    f"table {table!r} has unknown columns {extra}" if extra else
                    f"table {table!r} has its columns in another order")
            raise StoreError(
                f"{path}: records schema version {version} but {what}: the file "
                "was changed outside expressivity; nothing was written. Use a new --db "
                "file (or restore this one from a copy)"
            )
