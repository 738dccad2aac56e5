"""`sweep --reuse`: a sweep takes the completed runs it asks for from other stores, untrained."""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from expressivity.cli import main
from expressivity.errors import ConfigError, StoreError
from expressivity.sweeps.runner import run_sweep
from expressivity.sweeps.store import ResultsStore
from tests.sweeps.conftest import SMALL, InlineExecutor
from tests.sweeps.fake import fake_train

ROOT = Path(__file__).resolve().parents[2]
SCHEMA1 = ROOT / "tests" / "fixtures" / "schema1-quick.db"  # a quick store, schema 1


def _spec(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _part(tmp_path: Path, language: str) -> Path:
    """A store of another sweep that ran the small sweep's runs of one language."""
    text = SMALL.replace('name = "small"', f'name = "part-{language}"').replace(
        'languages = ["SUFFIX-a", "PREFIX-a"]', f'languages = ["{language}"]')
    db = tmp_path / f"{language}.db"
    run_sweep(_spec(tmp_path, language, text), db, executor=InlineExecutor(),
              train_fn=fake_train, progress=False)
    return db


def _tables(db: Path, run_ids: list[str]) -> list[pd.DataFrame]:
    with ResultsStore(db, create=False) as store:
        frames = [store.runs(), store.lengths(), store.adversarial()]
    return [f[f["run_id"].isin(run_ids)].sort_values(list(f.columns[:2]))
            .reset_index(drop=True) for f in frames]


def test_a_sweep_assembled_from_two_stores_trains_nothing(small_spec: Path, tmp_path: Path) -> None:
    a, b = _part(tmp_path, "SUFFIX-a"), _part(tmp_path, "PREFIX-a")
    db = tmp_path / "r.db"
    ex = InlineExecutor()
    out = run_sweep(small_spec, db, executor=ex, train_fn=fake_train, progress=False,
                    reuse=[a, b])
    assert ex.calls == 0 and not out.plan.todo and len(out.plan.completed) == 8
    with ResultsStore(db, create=False) as store:
        assert sorted(store.sweep_run_ids("small")) == sorted(out.plan.completed)
    for source in (a, b):  # every row and metric as its source has it, fingerprint included
        with ResultsStore(source, create=False) as store:
            ids = store.runs()["run_id"].tolist()
        for got, want in zip(_tables(db, ids), _tables(source, ids), strict=True):
            pd.testing.assert_frame_equal(got, want)


def test_the_first_source_wins_and_completed_runs_stay(small_spec: Path, tmp_path: Path) -> None:
    a = _part(tmp_path, "SUFFIX-a")
    b = tmp_path / "b.db"
    run_sweep(small_spec, b, executor=InlineExecutor(), train_fn=fake_train, progress=False)
    with sqlite3.connect(b) as conn:  # b's copies are told apart by their training accuracy
        conn.execute("UPDATE runs SET train_accuracy = 0.5")
    db = tmp_path / "r.db"
    run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False,
              reuse=[a, b])
    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    by_language = runs.groupby("language")["train_accuracy"].agg(set).to_dict()
    assert by_language == {"SUFFIX-a": {1.0}, "PREFIX-a": {0.5}}
    ex = InlineExecutor()  # held runs are never replaced, even by the first source
    with sqlite3.connect(a) as conn:
        conn.execute("UPDATE runs SET train_accuracy = 0.25")
    run_sweep(small_spec, db, executor=ex, train_fn=fake_train, progress=False, reuse=[a])
    assert _tables(db, runs["run_id"].tolist())[0]["train_accuracy"].tolist() == \
        runs.sort_values(["run_id"]).reset_index(drop=True)["train_accuracy"].tolist()


def test_only_completed_runs_of_the_same_spec_are_reused(small_spec: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.db"  # 9 steps instead of 7: other run ids for the global cells
    text = SMALL.replace('name = "small"', 'name = "other"').replace(
        '"train.steps" = 7', '"train.steps" = 9')
    run_sweep(_spec(tmp_path, "other", text), other, executor=InlineExecutor(),
              train_fn=functools.partial(fake_train, fail={"PREFIX-a"}),
              group="off", progress=False)
    db = tmp_path / "r.db"
    ex = InlineExecutor()
    out = run_sweep(small_spec, db, executor=ex, train_fn=fake_train, progress=False,
                    group="off", reuse=[other])
    # local-1 runs have 5 steps in both sweeps (same ids); PREFIX-a's failed there
    assert ex.calls == 6 and out.completed == 6 and len(out.plan.completed) == 2


def test_a_dry_run_says_what_it_would_reuse_and_writes_nothing(
    small_spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _part(tmp_path, "SUFFIX-a")
    db = tmp_path / "r.db"
    capsys.readouterr()
    out = run_sweep(small_spec, db, dry_run=True, train_fn=fake_train, reuse=[a])
    printed = capsys.readouterr().out
    assert f"would reuse 4 completed runs from {a}" in printed
    assert "4 completed, 0 failed before; 4 to run" in printed
    assert len(out.plan.todo) == 4 and not db.exists()


def test_a_dry_run_checks_the_code_of_what_it_would_reuse(
    small_spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The dry run says what the real run says of reused runs of other code, and refuses
    where it would refuse (runs of two codes in one cell)."""
    a = _part(tmp_path, "SUFFIX-a")
    with sqlite3.connect(a) as conn:
        conn.execute("UPDATE runs SET code_fingerprint = 'older0code00'")
    db = tmp_path / "r.db"
    capsys.readouterr()
    run_sweep(small_spec, db, dry_run=True, train_fn=fake_train, reuse=[a])
    said = "4 completed runs of this sweep were made by other code: older0code00 (4 runs)"
    assert said in capsys.readouterr().out and not db.exists()
    run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False,
              reuse=[a])
    assert said in capsys.readouterr().out
    with sqlite3.connect(a) as conn:  # a cell of a's left to train: runs of two codes in it
        conn.execute("DELETE FROM runs WHERE run_id = (SELECT MIN(run_id) FROM runs)")
    with pytest.raises(ConfigError, match="would mix codes in 1 cell"):
        run_sweep(small_spec, tmp_path / "s.db", dry_run=True, train_fn=fake_train, reuse=[a])


def test_bad_sources_are_named(small_spec: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "r.db"
    run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False)
    with pytest.raises(StoreError, match="--reuse names the sweep's own store"):
        run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train,
                  progress=False, reuse=[db])
    missing = tmp_path / "nowhere.db"
    capsys.readouterr()
    code = main(["sweep", str(small_spec), "--db", str(db), "--reuse", str(missing),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code != 0 and f"{missing}: no such results store (--reuse)" in err
    assert "Traceback" not in err


@pytest.mark.skipif(not SCHEMA1.exists(), reason="the committed store is not in this checkout")
def test_runs_of_a_schema_1_store_copy_with_unknown_code(tmp_path: Path) -> None:
    with ResultsStore(SCHEMA1, create=False) as source:
        want, want_lengths = source.runs(), source.lengths()
        ids = want.loc[want["status"] == "completed", "run_id"].tolist()
        with ResultsStore(tmp_path / "r.db") as store:
            assert store.copy_runs(source, [*ids, "not-a-run"]) == ids
            got, lengths = store.runs(), store.lengths()
    assert sorted(got["run_id"]) == sorted(ids) and got["code_fingerprint"].isna().all()
    assert len(lengths) == want_lengths["run_id"].isin(ids).sum() > 0


def test_a_copy_that_cannot_be_written_is_a_clear_error_and_copies_nothing(
    small_spec: Path, tmp_path: Path
) -> None:
    a = _part(tmp_path, "SUFFIX-a")
    db = tmp_path / "r.db"
    ResultsStore(db).close()
    with sqlite3.connect(db) as conn:  # the last table's rows fail, as on a full disk
        conn.execute("CREATE TRIGGER full BEFORE INSERT ON adversarial_metrics "
                     "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
    with pytest.raises(StoreError, match=r"copying runs from .* failed \(database or disk is "
                       r"full\).*Nothing of it was copied and nothing was run"):
        run_sweep(small_spec, db, executor=InlineExecutor(), train_fn=fake_train,
                  progress=False, reuse=[a])
    with ResultsStore(db, create=False) as store:  # the runs and lengths rolled back too
        assert store.runs().empty and store.lengths().empty


def test_a_dry_run_counts_the_failed_runs_a_source_completed(
    small_spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _part(tmp_path, "SUFFIX-a")
    db = tmp_path / "r.db"
    run_sweep(small_spec, db, executor=InlineExecutor(), progress=False, group="off",
              train_fn=functools.partial(fake_train, fail={"SUFFIX-a"}))
    capsys.readouterr()
    dry = run_sweep(small_spec, db, dry_run=True, train_fn=fake_train, reuse=[a])
    assert f"would reuse 4 completed runs from {a}" in capsys.readouterr().out
    ex = InlineExecutor()
    real = run_sweep(small_spec, db, executor=ex, train_fn=fake_train, progress=False, reuse=[a])
    assert ex.calls == 0 and not dry.plan.todo and not real.plan.failed
    assert sorted(dry.plan.completed) == sorted(real.plan.completed)
