"""The results store's schema: the ``runs`` table declared once, the frames' columns, the DDL.

`expressivity.sweeps.store` creates, checks and migrates stores from these declarations (see
its docstring for the tables); nothing here opens a file.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

from expressivity import _version
from expressivity.fingerprint import code_fingerprint
from expressivity.training.spec import RunRecord

__all__ = [
    "ADDED_RUN_COLUMNS",
    "ADVERSARIAL_COLUMNS",
    "DDL",
    "LENGTH_COLUMNS",
    "RUN_COLUMNS",
    "RUN_TABLE",
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "RunColumn",
    "declared_columns",
    "now",
]

SCHEMA_VERSION = 2
#: Columns of ``runs`` that each schema version added (appended, nullable): how older stores
#: are read (as NULL) and migrated (``ALTER TABLE runs ADD COLUMN``).
ADDED_RUN_COLUMNS: dict[int, tuple[str, ...]] = {2: ("code_fingerprint",)}
SCHEMA_NAME = "expressivity.results"


def without_code(extra: dict[str, Any]) -> dict[str, Any]:
    """A record's ``extra`` without the fingerprint a worker put there (it has its column)."""
    return {k: v for k, v in extra.items() if k != "code_fingerprint"}


@dataclass(frozen=True)
class RunColumn:
    """One column of the ``runs`` table: its SQL declaration, pandas dtype and stored value."""

    name: str
    sql: str  # type and constraints in the DDL
    dtype: str  # pandas dtype in `ResultsStore.runs`
    value: Callable[[RunRecord], Any]  # the value a newly recorded run stores


#: The ``runs`` table, declared once: its DDL, `RUN_COLUMNS` and the row `ResultsStore.record`
#: writes all come from this table (``attempts`` is then raised by the earlier attempts).
RUN_TABLE: tuple[RunColumn, ...] = (
    RunColumn("run_id", "TEXT PRIMARY KEY", "string", lambda r: r.run_id),
    RunColumn("language", "TEXT NOT NULL", "string", lambda r: r.spec.language),
    RunColumn("layout", "TEXT NOT NULL", "string", lambda r: r.spec.layout),
    RunColumn("profile", "TEXT NOT NULL", "string", lambda r: r.spec.profile),
    RunColumn("seed", "INTEGER NOT NULL", "Int64", lambda r: r.spec.seed),
    RunColumn("lr", "REAL NOT NULL", "float64", lambda r: r.spec.train.lr),
    RunColumn("alphabet", "TEXT", "string", lambda r: r.spec.alphabet),
    RunColumn("status", "TEXT NOT NULL CHECK (status IN ('completed', 'failed'))", "string",
              lambda r: r.status),
    RunColumn("error", "TEXT NOT NULL", "string", lambda r: r.error),
    RunColumn("test_accuracy", "REAL", "float64", lambda r: number(r.test_accuracy)),
    RunColumn("adversarial_accuracy", "REAL", "float64", lambda r: number(r.adversarial_accuracy)),
    RunColumn("train_accuracy", "REAL", "float64", lambda r: number(r.train_accuracy)),
    RunColumn("val_accuracy", "REAL", "float64", lambda r: number(r.val_accuracy)),
    RunColumn("n_star", "INTEGER", "Int64", lambda r: r.n_star if r.lengths else None),
    RunColumn("recognized", "INTEGER NOT NULL", "boolean", lambda r: int(r.recognized)),
    RunColumn("steps", "INTEGER", "Int64", lambda r: r.steps),
    RunColumn("wall_time", "REAL", "float64", lambda r: r.wall_time),
    RunColumn("n_parameters", "INTEGER", "Int64", lambda r: r.n_parameters),
    RunColumn("tokens_per_second", "REAL", "float64", lambda r: number(r.tokens_per_second)),
    RunColumn("max_train_length", "INTEGER", "Int64", lambda r: r.max_train_length),
    RunColumn("checkpoint", "TEXT", "string", lambda r: r.checkpoint),
    RunColumn("attempts", "INTEGER NOT NULL", "Int64", lambda r: 1),
    RunColumn("finished_at", "TEXT NOT NULL", "string", lambda r: now()),
    RunColumn("toolkit_version", "TEXT NOT NULL", "string", lambda r: _version.__version__),
    RunColumn("spec", "TEXT NOT NULL", "string",
              lambda r: json.dumps(r.spec.to_dict(), sort_keys=True)),
    RunColumn("extra", "TEXT NOT NULL", "string",
              lambda r: json.dumps(without_code(r.extra), sort_keys=True, default=str)),
    # schema 2 (`ADDED_RUN_COLUMNS`): last, where ALTER TABLE puts it in a migrated store
    RunColumn("code_fingerprint", "TEXT", "string",
              lambda r: r.extra.get("code_fingerprint") or code_fingerprint()),
)
#: Columns of `ResultsStore.runs` and their pandas dtypes (the declared schema).
RUN_COLUMNS: dict[str, str] = {c.name: c.dtype for c in RUN_TABLE}
#: Columns of `ResultsStore.lengths` (one row per run and test length).
LENGTH_COLUMNS: dict[str, str] = {
    "run_id": "string",
    "language": "string",
    "layout": "string",
    "seed": "Int64",
    "lr": "float64",
    "length": "Int64",
    "n": "Int64",
    "correct": "Int64",
    "accuracy": "float64",
    "true_pos": "Int64",
    "true_neg": "Int64",
    "false_pos": "Int64",
    "false_neg": "Int64",
}
#: Columns of `ResultsStore.adversarial` (one row per run and adversarial family).
ADVERSARIAL_COLUMNS: dict[str, str] = {
    "run_id": "string",
    "language": "string",
    "layout": "string",
    "seed": "Int64",
    "lr": "float64",
    "kind": "string",
    "n": "Int64",
    "correct": "Int64",
    "accuracy": "float64",
}

DDL = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    {", ".join(f"{c.name} {c.sql}" for c in RUN_TABLE)}
);
CREATE TABLE length_metrics (
    run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, length INTEGER NOT NULL,
    n INTEGER NOT NULL, correct INTEGER NOT NULL, true_pos INTEGER, true_neg INTEGER,
    false_pos INTEGER, false_neg INTEGER, PRIMARY KEY (run_id, length)
);
CREATE TABLE adversarial_metrics (
    run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, kind TEXT NOT NULL,
    n INTEGER NOT NULL, correct INTEGER NOT NULL, PRIMARY KEY (run_id, kind)
);
CREATE TABLE sweeps (
    name TEXT NOT NULL, spec_hash TEXT NOT NULL, path TEXT, source TEXT,
    registered_at TEXT NOT NULL, PRIMARY KEY (name, spec_hash)
);
CREATE TABLE sweep_runs (
    sweep TEXT NOT NULL, run_id TEXT NOT NULL, PRIMARY KEY (sweep, run_id)
);
CREATE INDEX runs_by_cell ON runs (language, layout);
PRAGMA user_version = {SCHEMA_VERSION};
"""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def number(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


@cache
def declared_columns(version: int = SCHEMA_VERSION) -> dict[str, list[str]]:
    """Column names of every table of schema ``version`` (from `DDL`, in order)."""
    conn = sqlite3.connect(":memory:")
    try:
        for statement in DDL.split(";"):
            if statement.strip():
                conn.execute(statement)
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        out = {t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")] for t in tables}
    finally:
        conn.close()
    later = {c for v, added in ADDED_RUN_COLUMNS.items() if v > version for c in added}
    out["runs"] = [c for c in out["runs"] if c not in later]
    return out
