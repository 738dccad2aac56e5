"""A trained run as an object of study: its spec, language, weights and data, from a store.

`load_run(db, run_id)` finds the run in a results store (a unique prefix of its id is enough),
checks that it completed and that its checkpoint exists (the ``checkpoint`` column, relative to
the store's folder or, in older stores, absolute; else ``<db stem>.runs/<run_id>.pt`` beside the
store where sweeps and `expressivity train` keep them), and loads the model. `load_dir_run(dir,
run_id)` finds a checkpoint ``<dir>/<run_id>.pt`` written by ``expressivity train --out DIR``;
the spec comes from the checkpoint itself. Every failure is a `StoreError` naming what is
missing and the commands that do work.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from expressivity.errors import ExpressivityError, StoreError
from expressivity.training.spec import RunSpec

if TYPE_CHECKING:
    from expressivity.data.splits import DatasetSplits
    from expressivity.models.transformer import Recognizer
    from expressivity.resolve import Source

__all__ = ["DEFAULT_STORE", "StoredRun", "find_run", "load_checkpoint_model", "load_dir_run",
           "load_run"]

#: The results store `expressivity train` records single runs in (checkpoints beside it, in
#: ``runs/train.runs/``), and where `predict` and `extract` look by default.
DEFAULT_STORE = "runs/train.db"

_WORKS = ("list a store's run ids with `expressivity results DB --runs`; a single run of "
          "`expressivity train` is kept in " + DEFAULT_STORE + " (the default --db), one of "
          "`train --out DIR` is found with --dir DIR, a sweep's in its --db")


@dataclass(frozen=True, eq=False)
class StoredRun:
    """A completed run: its id, spec, checkpoint file and (loaded on demand) model and data."""

    run_id: str
    spec: RunSpec
    checkpoint: Path

    @cached_property
    def model(self) -> Recognizer:
        """The trained `Recognizer` in eval mode."""
        return load_checkpoint_model(self.checkpoint)

    @cached_property
    def source(self) -> Source:
        """The run's language, resolved (name, alphabet, formula, target DFA)."""
        from expressivity.resolve import resolve

        return resolve(self.spec.language, self.spec.alphabet)

    @cached_property
    def splits(self) -> DatasetSplits:
        """The run's data splits, rebuilt from its spec (cached beside the checkpoint)."""
        from expressivity.training.prepare import check_spec, load_splits

        _, _, split_config = check_spec(self.spec)
        return load_splits(self.source, split_config, self.spec.seed,
                           cache_dir=self.checkpoint.parent / "splits")

    def adversarial_words(self) -> list[np.ndarray]:
        """Symbol codes of the words of the run's adversarial and test splits."""
        out: list[np.ndarray] = []
        for name in ("adversarial", "test"):
            if name in self.splits:
                ds = self.splits[name]
                out += [np.asarray(ds.word(i), dtype=np.int64) for i in range(len(ds))]
        return out

    @property
    def max_test_length(self) -> int:
        """The longest test length of the run's split config."""
        from expressivity.training.prepare import check_spec

        return int(check_spec(self.spec)[2].test_lengths[1])


def load_checkpoint_model(path: str | os.PathLike[str]) -> Recognizer:
    """The `Recognizer` stored in a training (or `ConstructedModel.save`) checkpoint file."""
    from expressivity.checkpoint import load_checkpoint
    from expressivity.models.config import ModelConfig
    from expressivity.models.transformer import Recognizer

    ckpt = load_checkpoint(path)
    model = Recognizer(ModelConfig.from_dict(ckpt.config["model"]), len(ckpt.config["alphabet"]))
    model.load_state_dict(ckpt.model)
    return model.eval()


def load_run(db: str | os.PathLike[str], run_id: str) -> StoredRun:
    """The completed run ``run_id`` (or a unique prefix of it) of the store ``db``."""
    from expressivity.checkpoint import stored_path
    from expressivity.sweeps.store import ResultsStore

    if not Path(db).exists():
        raise StoreError(f"{db}: no such results store; {_WORKS}")
    with ResultsStore(Path(db), create=False) as store:
        runs = store.runs()
    ids = [str(r) for r in runs["run_id"]]
    match = _unique(run_id, ids, str(db), f"`expressivity results {db} --runs`")
    row = runs[runs["run_id"] == match].iloc[0]
    rid = str(row["run_id"])
    what = f"run {rid} ({row['language']} with {row['layout']} attention, seed {row['seed']})"
    if row["status"] != "completed":
        raise StoreError(f"{db}: {what} failed ({row['error']}): there is no trained model to "
                         "load; fix the cause and rerun it (`expressivity sweep SPEC --db "
                         f"{db}` reruns failed runs)")
    spec = RunSpec.from_dict(json.loads(str(row["spec"])))
    recorded = "" if pd.isna(row["checkpoint"]) else str(row["checkpoint"])
    beside = Path(db).with_suffix(".runs") / f"{rid}.pt"
    for path in (stored_path(recorded, db) if recorded else None, beside):
        if path is not None and path.is_file():
            return StoredRun(rid, spec, path)
    where = f"its checkpoint {recorded} is gone" if recorded else "the store keeps no checkpoint"
    raise StoreError(
        f"{db}: {what}: {where} (looked for {recorded + ' and ' if recorded else ''}{beside}). "
        "Rerun it with checkpoints kept: `expressivity sweep SPEC --db DB` keeps them under "
        "<db stem>.runs/, and `expressivity train LANGUAGE --layout LAYOUT` in "
        f"{DEFAULT_STORE} (or `--out DIR`, then `--dir DIR`)"
    )


def find_run(run_id: str, db: str | None = None, directory: str | None = None) -> StoredRun:
    """`load_dir_run` with a ``directory``, else `load_run` on ``db`` (default `DEFAULT_STORE`)."""
    if directory is not None:
        return load_dir_run(directory, run_id)
    return load_run(db or DEFAULT_STORE, run_id)


def load_dir_run(directory: str | os.PathLike[str], run_id: str) -> StoredRun:
    """The run whose checkpoint is ``<directory>/<run_id>.pt`` (a unique prefix is enough), as
    ``expressivity train --out DIR`` leaves it; its spec is read from the checkpoint."""
    from expressivity.checkpoint import load_checkpoint

    folder = Path(directory)
    if not folder.is_dir():
        raise StoreError(f"{folder}: no such folder of checkpoints; {_WORKS}")
    ids = sorted(p.stem for p in folder.glob("*.pt"))
    match = _unique(run_id, ids, str(folder), f"`ls {folder}` (files <run id>.pt)")
    path = folder / f"{match}.pt"
    try:
        ckpt = load_checkpoint(path)
        spec = RunSpec.from_dict(ckpt.config["spec"])
    except (KeyError, TypeError, ExpressivityError) as err:
        raise StoreError(f"{path}: not a training checkpoint with its run spec ({err})") from None
    if not ckpt.done:
        raise StoreError(f"{path}: run {match} has not finished training (step {ckpt.step}); "
                         f"rerun its `expressivity train ... --out {folder}` to resume it")
    return StoredRun(match, spec, path)


def _unique(run_id: str, ids: list[str], where: str, listing: str) -> str:
    """The one id of ``ids`` equal to or starting with ``run_id``, else a `StoreError`."""
    if run_id in ids:
        return run_id
    matches = [r for r in ids if r.startswith(run_id)] if run_id else []
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise StoreError(f"{where}: run id prefix {run_id!r} is ambiguous: "
                         f"{', '.join(sorted(matches)[:5])}; give more characters")
    close = difflib.get_close_matches(run_id, ids, n=3, cutoff=0.5)
    hint = (f"did you mean {', '.join(close)}?" if close else
            f"it holds {len(ids)} run{'s' if len(ids) != 1 else ''}: list them with {listing}")
    raise StoreError(f"{where}: no run {run_id!r}; {hint}")
