"""Provenance of generated figures and tables: command, commit, date, spec hashes and machine.

`write_figures` records one `Provenance` as ``provenance.json`` beside its artefacts, each
artefact listed with its SHA-256, so that any figure can be traced back to the results store
(its sweeps' spec hashes and a digest of the runs it was drawn from) and the code that drew it.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sqlite3
import subprocess
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from expressivity.machine import cpu_model, cpu_signature

__all__ = [
    "Artefact",
    "Provenance",
    "file_sha256",
    "git_state",
    "machine_info",
    "runs_digest",
    "store_sweeps",
    "write_page",
]

_PACKAGES = ("torch", "numpy", "pandas", "matplotlib", "networkx")


@dataclass(frozen=True)
class Artefact:
    """One file written by `write_figures`, relative to the output directory."""

    path: str
    kind: str  # "figure", "table" or "index"
    description: str
    sha256: str


@dataclass(frozen=True)
class Provenance:
    """Where a set of artefacts came from (serialized as ``provenance.json``)."""

    command: str
    created: str  # UTC, ISO 8601
    git_commit: str
    git_dirty: bool | None  # uncommitted changes to tracked files (None: unknown)
    toolkit_version: str
    store: dict[str, Any]  # path, sweep filter, run counts, runs digest, sweeps + spec hashes
    machine: dict[str, Any]
    artefacts: tuple[Artefact, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        out = asdict(self)
        out["generator"] = "expressivity figures"
        return out

    def to_json(self) -> str:
        """Indented JSON text (UTF-8, keys in declaration order)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def git_state(root: str | Path | None = None) -> tuple[str, bool | None]:
    """(commit hash, dirty) of the repository holding ``root`` (default: this package).

    ("unknown", None) outside a git checkout or without git.
    """
    where = Path(root) if root else Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "-C", str(where), "rev-parse", "HEAD"],
            capture_output=True, text=True, check=True, timeout=20,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, check=True, timeout=20,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown", None
    return commit, bool(status.strip())


def machine_info() -> dict[str, Any]:
    """Platform, CPU count, Python and library versions (torch's without importing it)."""
    versions = {}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpu_model": cpu_model(),
        "cpu_signature": cpu_signature(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        **{f"{name}_version": v for name, v in versions.items()},
    }


def store_sweeps(db: str | Path, sweep: str | None = None) -> list[dict[str, Any]]:
    """The sweeps registered in a results store (name, spec_hash, path, registered_at, runs).

    Read through a read-only SQLite connection from the ``sweeps`` and ``sweep_runs`` tables
    documented in `expressivity.sweeps.store`.
    """
    uri = f"{Path(db).resolve().as_uri()}?mode=ro"
    with sqlite3.connect(uri, uri=True) as conn:
        rows = conn.execute(
            "SELECT s.name, s.spec_hash, s.path, s.registered_at, "
            "(SELECT COUNT(*) FROM sweep_runs r WHERE r.sweep = s.name) "
            "FROM sweeps s ORDER BY s.registered_at, s.name"
        ).fetchall()
    keys = ("name", "spec_hash", "path", "registered_at", "runs")
    return [dict(zip(keys, r, strict=True)) for r in rows if sweep is None or r[0] == sweep]


def runs_digest(runs: pd.DataFrame) -> str:
    """SHA-256 (16 hex digits) of the runs' ids, statuses and finish times: it changes when
    any run drawn from is added, rerun or removed."""
    keys = sorted(zip(runs["run_id"], runs["status"], runs["finished_at"], strict=True))
    return hashlib.sha256(json.dumps(keys, default=str).encode()).hexdigest()[:16]


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def write_page(out: str | Path, title: str, command: str, source: str,
               body: Sequence[str]) -> None:
    """Write a generated Markdown page to ``out``: the title, the line that names the
    ``command`` that made it and what it read (``source``: "the store's runs digest `…`"),
    then the ``body`` lines; a page says how to regenerate it, never to be edited."""
    text = [f"# {title}", "",
            f"Generated by `{command}` from {source}. Do not edit: rerun the command.", "",
            *body]
    with open(out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(text))
