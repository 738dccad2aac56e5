"""Where a results store lives: its path checked, writable or not, and the side records a
finished run leaves beside it when the store cannot be written (``<store>.unsaved/``)."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from expressivity.errors import StoreError
from expressivity.training.spec import AdversarialMetric, LengthMetric, RunRecord, RunSpec

__all__ = ["check_store_path", "check_writable", "save_side_record", "side_records", "writable"]


def check_store_path(path: str | Path) -> Path:
    """``path`` as a `Path`, or a `StoreError` if it names a folder (or ends in a slash)."""
    text = os.fspath(path)
    if text.endswith(("/", os.sep)) or Path(text).is_dir():
        raise StoreError(
            f"{text}: a folder, but a results store is a file; "
            f"pass a file path such as {os.path.join(text, 'results.db')}"
        )
    return Path(text)


def writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def check_writable(path: Path) -> None:
    """A writer needs to write the file (and its folder, for the WAL and lock files)."""
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(f"{path}: cannot create its folder ({err.strerror})") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise StoreError(
            f"{path}: the results store is read-only; a sweep writes to it. Make it writable "
            "(chmod u+w) or pass another --db path (reading it with `results` works as is)"
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(
            f"{path}: the folder {folder} is read-only; a sweep writes the store, its WAL and "
            "lock files there. Make it writable or pass another --db path"
        )


def _side_folder(store: Path) -> Path:
    return store.with_name(store.name + ".unsaved")


def save_side_record(store: Path, record: RunRecord) -> Path:
    """Write a finished run whose store write failed to ``<store>.unsaved/<run_id>.json``."""
    folder = _side_folder(store)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{record.run_id}.json"
    tmp = path.with_suffix(".tmp")
    try:
        tmp.write_text(json.dumps(record.to_dict(), default=str) + "\n", "utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
    return path


def side_records(store: Path) -> list[tuple[Path, RunRecord]]:
    """The side files of ``store`` and their records (unreadable files are left alone)."""
    folder = _side_folder(store)
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            out.append((path, _record_from_dict(json.loads(path.read_text("utf-8")))))
        except (ValueError, KeyError, TypeError):
            continue
    return out


def _record_from_dict(data: dict[str, Any]) -> RunRecord:
    names = {f.name for f in dataclasses.fields(RunRecord)}
    fields = {k: v for k, v in data.items() if k in names}
    fields["spec"] = RunSpec.from_dict(data["spec"])
    fields["lengths"] = tuple(LengthMetric(**m) for m in data.get("lengths", ()))
    fields["adversarial"] = tuple(AdversarialMetric(**m) for m in data.get("adversarial", ()))
    return RunRecord(**fields)
