"""The ``runs`` table declared once (`store_schema.RUN_TABLE`): DDL, frame dtypes and rows agree."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from expressivity.sweeps.store import ResultsStore
from expressivity.sweeps.store_schema import RUN_COLUMNS, RUN_TABLE, declared_columns


def test_the_ddl_the_frame_and_the_row_share_one_column_list(tmp_path: Path) -> None:
    names = [c.name for c in RUN_TABLE]
    assert len(set(names)) == len(names)
    assert declared_columns()["runs"] == names == list(RUN_COLUMNS)
    with ResultsStore(tmp_path / "s.db") as db:
        assert list(db.runs().columns) == names
    conn = sqlite3.connect(tmp_path / "s.db")
    try:
        info = {row[1]: row for row in conn.execute("PRAGMA table_info(runs)")}
    finally:
        conn.close()
    for column in RUN_TABLE:  # the SQL type, NOT NULL and primary key as declared
        _, _, sql_type, not_null, _, primary = info[column.name]
        assert column.sql.startswith(sql_type)
        assert bool(not_null) == ("NOT NULL" in column.sql)
        assert bool(primary) == ("PRIMARY KEY" in column.sql)
