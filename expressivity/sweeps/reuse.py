"""Reusing runs: take the completed runs a sweep asks for from other results stores.

A run id is the hash of its whole spec (`training.spec.RunSpec.run_id`), so a run that
another store completed under the same id is the very run a sweep asks for: a table assembled
from earlier sweeps (the v4's causal cells and a protocol sweep's mixer cells, say) need not
train them again. `reuse_runs` copies them, with their metrics and code fingerprints, into the
sweep's store before it plans (`ResultsStore.copy_runs`); the sweep then registers them as
its own, and its code check (`sweeps.codes`) sees their fingerprints like any other run's.
Sources are tried in the order given: the first that completed a run provides it. Runs the
store already holds as completed are never replaced. A sweep whose seed policy is
"until-recognized" takes only the runs that policy makes (`in_rounds`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from expressivity.disk import disk_space
from expressivity.errors import StoreError
from expressivity.sweeps.seeds import taken_in_rounds
from expressivity.sweeps.store import ResultsStore, check_store_path
from expressivity.training.spec import RunSpec

__all__ = ["Reused", "fingerprints", "in_rounds", "reusable", "reuse_runs", "verdicts"]

_V = TypeVar("_V")


@dataclass(frozen=True)
class Reused:
    """The runs one source store provides: its path and their run ids."""

    source: Path
    run_ids: tuple[str, ...]

    def text(self, *, dry_run: bool = False) -> str:
        """"reused 40 completed runs from S" (or "would reuse ..." for a dry run)."""
        verb = "would reuse" if dry_run else "reused"
        n = len(self.run_ids)
        return f"{verb} {n} completed run{'s' if n != 1 else ''} from {self.source}"


def _sources(paths: Sequence[str | Path], target: Path | None) -> list[Path]:
    out = [check_store_path(p) for p in paths]
    for p in out:
        if target is not None and p.resolve() == target.resolve():
            raise StoreError(f"{p}: --reuse names the sweep's own store; name other stores")
        if not p.exists():
            raise StoreError(f"{p}: no such results store (--reuse)")
    return out


def reusable(
    runs: Sequence[RunSpec], sources: Sequence[str | Path], *, target: Path | None = None,
) -> list[Reused]:
    """Which of ``runs`` each source would provide (first source first), copying nothing."""
    wanted = [r.run_id for r in runs]
    out: list[Reused] = []
    for path in _sources(sources, target):
        with ResultsStore(path, create=False) as source:
            status = source.statuses(wanted)
        found = tuple(r for r in wanted if status.get(r) == "completed")
        out.append(Reused(path, found))
        taken = set(found)
        wanted = [r for r in wanted if r not in taken]
    return out


def _per_run(found: Sequence[Reused], read: Callable[[ResultsStore, tuple[str, ...]],
                                                     Mapping[str, _V]]) -> dict[str, _V]:
    """Run id → what ``read`` gives of it in its source store, over the runs the sources
    would provide."""
    out: dict[str, _V] = {}
    for r in found:
        with ResultsStore(r.source, create=False) as source:
            out.update(read(source, r.run_ids))
    return out


def verdicts(found: Sequence[Reused]) -> dict[str, bool]:
    """Run id → whether it recognized its language, of the runs the sources would provide."""
    return _per_run(found, lambda source, ids: source.recognized(ids))


def fingerprints(found: Sequence[Reused]) -> dict[str, str | None]:
    """Run id → the code fingerprint it was made with, of the runs the sources would provide
    (what a dry run's code check needs: a real run copies them with their fingerprints)."""
    return _per_run(found, lambda source, ids: source.code_fingerprints(ids))


def in_rounds(found: Sequence[Reused], runs: Sequence[RunSpec], outcomes: Mapping[str, bool],
              offered: Mapping[str, bool]) -> list[Reused]:
    """``found`` cut to the runs the seed policy "until-recognized" makes of the sweep's
    ``runs``, given the ``outcomes`` stored and the verdicts ``offered`` by the sources
    (`sweeps.seeds.taken_in_rounds`)."""
    taken = set(taken_in_rounds(runs, outcomes, offered))
    return [replace(r, run_ids=tuple(i for i in r.run_ids if i in taken)) for r in found]


def reuse_runs(
    store: ResultsStore, runs: Sequence[RunSpec], sources: Sequence[str | Path],
) -> list[Reused]:
    """Copy into ``store`` every run of ``runs`` it does not hold as completed and a source
    does (the first that does, as `reusable` assigns them); one `Reused` per source, in order."""
    held = store.statuses([r.run_id for r in runs])
    missing = [r for r in runs if held.get(r.run_id) != "completed"]
    out: list[Reused] = []
    for found in reusable(missing, sources, target=store.path):
        with ResultsStore(found.source, create=False) as source:
            try:
                copied = tuple(store.copy_runs(source, found.run_ids))
            except sqlite3.Error as err:  # a full disk: this source rolls back
                raise StoreError(
                    f"{store.path}: copying runs from {found.source} failed ({err}); "
                    f"{disk_space(store.path.parent)}. Nothing of it was copied and nothing "
                    "was run (runs copied from stores named before it stay); free some space "
                    "and rerun the same command") from None
        out.append(Reused(found.source, copied))
    return out
