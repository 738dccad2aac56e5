"""Reading a results store: run statuses, specs and sweeps, and the tidy frames of its tables.

`StoreReader` is the reading half of `expressivity.sweeps.store.ResultsStore`, which opens the
connection it reads; every frame follows its declared schema (`store_schema.RUN_COLUMNS`,
`LENGTH_COLUMNS`, `ADVERSARIAL_COLUMNS`), and a column an older store lacks reads as NULL.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from expressivity.errors import StoreError
from expressivity.sweeps.store_schema import (
    ADVERSARIAL_COLUMNS,
    LENGTH_COLUMNS,
    RUN_COLUMNS,
    declared_columns,
)
from expressivity.training.spec import RunSpec

__all__ = ["StoreReader"]


class StoreReader:
    """The reading methods of a results store open at ``path`` on the connection ``_conn``,
    of schema ``version`` (`ResultsStore` sets all three)."""

    path: Path
    version: int
    _conn: sqlite3.Connection

    def statuses(self, run_ids: Sequence[str] | None = None) -> dict[str, str]:
        """run id → status, for all runs or the given ones."""
        rows = self._conn.execute("SELECT run_id, status FROM runs").fetchall()
        out = dict(rows)
        return out if run_ids is None else {r: out[r] for r in run_ids if r in out}

    def recognized(self, run_ids: Sequence[str]) -> dict[str, bool]:
        """run id → whether it recognized its language, for those of ``run_ids`` stored
        completed."""
        rows = self._conn.execute(
            "SELECT run_id, recognized FROM runs WHERE status = 'completed'").fetchall()
        out = {r: bool(v) for r, v in rows}
        return {r: out[r] for r in run_ids if r in out}

    def code_fingerprints(self, run_ids: Sequence[str]) -> dict[str, str | None]:
        """run id → the code fingerprint it was made with (None: unknown, an older store)."""
        if self.version < 2:
            return dict.fromkeys(self.statuses(run_ids))
        rows = self._conn.execute("SELECT run_id, code_fingerprint FROM runs").fetchall()
        out = dict(rows)
        return {r: out[r] for r in run_ids if r in out}

    def sweep_run_ids(self, sweep: str) -> list[str]:
        """Run ids registered by the sweep called ``sweep``."""
        rows = self._conn.execute("SELECT run_id FROM sweep_runs WHERE sweep = ?", (sweep,))
        return [r[0] for r in rows]

    def sweeps(self) -> pd.DataFrame:
        """Registered sweeps: name, spec_hash, path, source (the TOML text), registered_at."""
        rows = self._conn.execute(
            "SELECT name, spec_hash, path, source, registered_at FROM sweeps ORDER BY registered_at"
        ).fetchall()
        columns = ["name", "spec_hash", "path", "source", "registered_at"]
        return pd.DataFrame.from_records(rows, columns=columns).astype("string")

    def spec(self, run_id: str) -> RunSpec:
        """The stored `RunSpec` of a run."""
        row = self._conn.execute("SELECT spec FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no run {run_id!r}")
        return RunSpec.from_dict(json.loads(row[0]))

    def runs(self, sweep: str | None = None) -> pd.DataFrame:
        """One row per run (`RUN_COLUMNS`), optionally only those of one sweep."""
        have = set(declared_columns(self.version)["runs"])
        columns = [c if c in have else f"NULL AS {c}" for c in RUN_COLUMNS]
        query = f"SELECT {', '.join(columns)} FROM runs"
        return self._frame(query + _filter(sweep, "runs"), RUN_COLUMNS, sweep)

    def lengths(self, sweep: str | None = None) -> pd.DataFrame:
        """One row per run and test length (`LENGTH_COLUMNS`)."""
        query = (
            "SELECT m.run_id, r.language, r.layout, r.seed, r.lr, m.length, m.n, m.correct, "
            "CASE WHEN m.n > 0 THEN CAST(m.correct AS REAL) / m.n ELSE 1.0 END, "
            "m.true_pos, m.true_neg, m.false_pos, m.false_neg "
            "FROM length_metrics m JOIN runs r USING (run_id)"
        )
        return self._frame(
            query + _filter(sweep, "m") + " ORDER BY m.run_id, m.length", LENGTH_COLUMNS, sweep
        )

    def adversarial(self, sweep: str | None = None) -> pd.DataFrame:
        """One row per run and adversarial family (`ADVERSARIAL_COLUMNS`)."""
        query = (
            "SELECT m.run_id, r.language, r.layout, r.seed, r.lr, m.kind, m.n, m.correct, "
            "CASE WHEN m.n > 0 THEN CAST(m.correct AS REAL) / m.n ELSE 1.0 END "
            "FROM adversarial_metrics m JOIN runs r USING (run_id)"
        )
        return self._frame(
            query + _filter(sweep, "m") + " ORDER BY m.run_id, m.kind", ADVERSARIAL_COLUMNS, sweep
        )

    def _frame(self, query: str, schema: dict[str, str], sweep: str | None) -> pd.DataFrame:
        rows = self._conn.execute(query, () if sweep is None else (sweep,)).fetchall()
        frame = pd.DataFrame.from_records(rows, columns=list(schema))
        return frame.astype(schema)


def _filter(sweep: str | None, table: str) -> str:
    if sweep is None:
        return ""
    return f" WHERE {table}.run_id IN (SELECT run_id FROM sweep_runs WHERE sweep = ?)"
