"""Issue 28 item 2: a full disk never turns a trained run into a failed one, nor a traceback.

The full disk is simulated by making the write raise what a full disk raises (``OSError``
ENOSPC, or torch's own ``RuntimeError`` from its stream writer); a real small tmpfs needs root.
"""

from __future__ import annotations

import errno
import functools
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import expressivity.checkpoint as checkpoint
import expressivity.sweeps.store as store_module
from expressivity.cli import main
from expressivity.errors import CheckpointWriteError, StoreError
from expressivity.sweeps.runner import run_sweep
from expressivity.sweeps.store import ResultsStore
from expressivity.training.spec import RunSpec
from tests.sweeps.conftest import SMALL, InlineExecutor
from tests.sweeps.fake import fake_train

TINY = SMALL.replace('"train.steps" = 7', '"train.steps" = 4').replace(
    'seeds = [0, 1]', 'seeds = [0]')


def _full(*args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def _torch_full(*args: Any, **kwargs: Any) -> None:  # what torch.save says on a full disk
    raise RuntimeError("[enforce fail at inline_container.cc:595] . PytorchStreamWriter failed "
                       "writing file data/0: file write failed")


def test_a_checkpoint_that_cannot_be_written_names_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoint.torch, "save", _torch_full)
    ckpt = checkpoint.Checkpoint(3, True, {}, {}, {}, {}, "")
    with pytest.raises(CheckpointWriteError, match=r"the disk of .* \(mounted at .*\) has .* free"):
        checkpoint.save_checkpoint(tmp_path / "c.pt", ckpt)
    monkeypatch.setattr(checkpoint.torch, "save", _full)
    with pytest.raises(CheckpointWriteError, match="no space left on the device"):
        checkpoint.save_checkpoint(tmp_path / "c.pt", ckpt)
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind


@pytest.mark.parametrize("group", ["off", "2"])
@pytest.mark.parametrize("error", [_full, _torch_full])
def test_runs_that_trained_are_completed_when_no_checkpoint_can_be_written(
    group: str, error: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(TINY, "utf-8")
    monkeypatch.setattr(checkpoint.torch, "save", error)
    db = tmp_path / "r.db"
    out = run_sweep(spec, db, executor=InlineExecutor(), group=group, progress=False)
    assert (out.completed, out.failed) == (4, 0)
    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    assert set(runs["status"]) == {"completed"} and set(runs["checkpoint"]) == {""}
    assert all("was not written: the disk of" in e for e in runs["extra"])
    assert not list((tmp_path / "r.runs").glob("*.pt"))  # no stale checkpoint claims the run
    said = "".join(capsys.readouterr())
    assert "completed and is recorded, but its checkpoint" in said and " free of " in said


def test_a_split_cache_that_cannot_be_written_does_not_fail_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from expressivity.data.splits import DatasetSplits
    from expressivity.training import train

    monkeypatch.setattr(DatasetSplits, "save", _full)
    record = train(RunSpec("LT-2", profile="tiny", seed=5).with_train(steps=2),
                   out_dir=tmp_path, quiet=True)
    assert record.status == "completed", record.error


def test_a_full_disk_under_the_store_is_a_clear_error_and_a_clean_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(SMALL, "utf-8")
    db = tmp_path / "r.db"
    real = store_module.ResultsStore.record
    written: list[str] = []

    def record_then_full(self: ResultsStore, record: Any) -> None:
        if len(written) >= 3:
            raise sqlite3.OperationalError("database or disk is full")
        real(self, record)
        written.append(record.run_id)

    monkeypatch.setattr(store_module.ResultsStore, "record", record_then_full)
    monkeypatch.setattr(store_module.Path, "write_text", _full)
    ex = InlineExecutor()
    with pytest.raises(StoreError, match=r"neither the store nor its side file.*has .* free"):
        run_sweep(spec, db, executor=ex, train_fn=fake_train, group="off", progress=False)
    assert ex.shut and len(written) == 3  # stopped at the first run it could not keep
    monkeypatch.undo()
    with ResultsStore(db, create=False) as store:  # intact, with the runs written before
        assert sorted(store.statuses()) == sorted(written)
    monkeypatch.setattr(store_module.ResultsStore, "record", record_then_full)
    monkeypatch.setattr(store_module.Path, "write_text", _full)
    monkeypatch.setattr("expressivity.sweeps.runner._default_train", lambda: fake_train)
    monkeypatch.setattr("expressivity.sweeps.runner._default_ensemble",
                        lambda: functools.partial(_never))
    assert main(["sweep", str(spec), "--db", str(db), "--no-progress", "--group", "off"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err and "free of" in err


def _never(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("not used with --group off")
