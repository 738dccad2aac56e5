"""The same runs on another machine: run pairs by run id, cells with the replicas in place."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.analysis.lever_pairing import mcnemar_exact
from expressivity.analysis.replication import (
    CELL_COLUMNS,
    RUN_COLUMNS,
    main,
    replication_cells,
    replication_runs,
    replication_summary,
)
from expressivity.errors import StoreError
from expressivity.machine import float_environment
from expressivity.sweeps.cells import row_cell
from expressivity.sweeps.spec import parse_sweep

SPEC = """
[sweep]
name = "replicated"
profile = "tiny"

[axes]
cells = [["SUFFIX-a", "local-1"], ["PREFIX-a", "global"], ["PREFIX-a", "local-1"]]
seeds = [0, 1, 2]
"""


@cache
def _store(root: str) -> Path:
    from expressivity.sweeps.runner import run_sweep
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    db = Path(root) / "original.db"
    run_sweep(parse_sweep(SPEC, "r.toml"), db, executor=InlineExecutor(), train_fn=fake_train,
              progress=False, group="off")
    return db


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _store(str(tmp_path_factory.mktemp("replication")))


@cache
def _runs(db: Path) -> pd.DataFrame:
    from expressivity.sweeps.store import ResultsStore

    with ResultsStore(db, create=False) as s:
        return s.runs()


def _failed(runs: pd.DataFrame, ids: set[str]) -> pd.DataFrame:
    """``runs`` with the runs ``ids`` made wrong on one test string (so recognized by neither
    criterion), everything else as stored."""
    out = runs.copy()
    hit = out["run_id"].isin(ids)
    out.loc[hit, "test_accuracy"] = 0.99
    out.loc[hit, "recognized"] = False
    return out


def _ours(row: pd.Series) -> bool:
    short = json.loads(row["extra"])["short_words"]
    return bool(row["recognized"]) and short["correct"] == short["n"]


def test_a_copy_is_identical_and_changes_no_cell(store: Path) -> None:
    runs = _runs(store)
    pairs = replication_runs(runs, runs.copy())
    assert list(pairs.columns) == list(RUN_COLUMNS)
    assert len(pairs) == len(runs) == 9
    assert pairs["identical"].all() and pairs["same_metrics"].all() and pairs["same_code"].all()
    assert (pairs["ours"] == pairs["replica_ours"]).all()
    env = float_environment()  # the runner tags every record with its machine
    assert set(pairs["machine"]) == {", ".join(
        str(env[k]) for k in ("cpu_model", "cpu_signature", "cpu_capability") if k in env)}
    cells = replication_cells(runs, runs.copy())
    assert list(cells.columns) == list(CELL_COLUMNS) and len(cells) == 3
    assert (cells["observed"] == cells["replica_observed"]).all()
    assert dict(zip(cells["cell"] + cells["language"], cells["predicted"], strict=True)) == {
        "local-1SUFFIX-a": "yes", "globalPREFIX-a": "yes", "local-1PREFIX-a": "no"}


def test_a_changed_validation_curve_is_not_identical_but_keeps_the_verdict(store: Path) -> None:
    runs = _runs(store)
    replica = runs.copy()
    first = replica.index[0]
    doc = json.loads(replica.at[first, "extra"])
    doc["history"] = [{"step": 50, "loss": 0.5}]
    replica.at[first, "extra"] = json.dumps(doc)
    pairs = replication_runs(runs, replica)
    assert pairs["identical"].sum() == len(runs) - 1 and pairs["same_metrics"].all()
    assert not pairs.set_index("run_id").at[runs.at[first, "run_id"], "identical"]
    assert (pairs["ours"] == pairs["replica_ours"]).all()


@settings(max_examples=12, deadline=None)
@given(st.sets(st.integers(0, 8)))
def test_counts_agree_with_brute_force(store_path: Path, chosen: set[int]) -> None:
    runs = _runs(store_path)
    ids = {runs["run_id"].iloc[i] for i in chosen}
    replica = _failed(runs, ids)
    pairs = replication_runs(runs, replica)
    cells = replication_cells(runs, replica)
    pd.testing.assert_frame_equal(cells, replication_cells(runs, replica, pairs))
    s = replication_summary(pairs, cells)
    ours = {r["run_id"]: _ours(r) for _, r in runs.iterrows()}
    assert s["runs"] == 9 and s["different_code"] == 0
    assert s["identical"] == s["same_metrics"] == 9 - len(ids)
    assert s["ours_lost"] == sum(ours[i] for i in ids) and s["ours_gained"] == 0
    assert s["papers_lost"] == sum(runs.set_index("run_id").loc[list(ids), "test_accuracy"]
                                   .ge(1.0)) and s["papers_gained"] == 0
    yes_ids = [i for i in runs["run_id"] if (runs.set_index("run_id").at[i, "language"],
                                              runs.set_index("run_id").at[i, "layout"])
               in {("SUFFIX-a", "local-1"), ("PREFIX-a", "global")}]
    assert s["yes_runs"] == len(yes_ids) == 6
    assert s["yes_runs_only_original"] == sum(ours[i] for i in yes_ids if i in ids)
    assert s["yes_runs_only_replica"] == 0
    assert s["yes_runs_both"] == sum(ours[i] for i in yes_ids if i not in ids)
    assert (s["yes_runs_both"] + s["yes_runs_only_original"] + s["yes_runs_neither"]) == 6
    assert s["yes_runs_p"] == mcnemar_exact(int(s["yes_runs_only_original"]), 0)
    # a cell is learned when some run of it is recognized: brute force over its runs
    labels = [row_cell(r).label for r in runs.to_dict("records")]
    for row in cells.itertuples():
        mine = runs[[lang == row.language and label == row.cell
                     for lang, label in zip(runs["language"], labels, strict=True)]]
        assert row.observed == any(ours[i] for i in mine["run_id"])
        assert row.replica_observed == any(ours[i] and i not in ids for i in mine["run_id"])


@pytest.fixture(scope="module")
def store_path(store: Path) -> Path:
    return store


def test_another_code_is_left_out_of_the_cells(store: Path) -> None:
    runs = _runs(store)
    replica = _failed(runs, set(runs["run_id"]))
    replica["code_fingerprint"] = "0" * 12
    pairs = replication_runs(runs, replica)
    assert not pairs["same_code"].any()
    assert replication_cells(runs, replica).empty
    s = replication_summary(pairs, replication_cells(runs, replica))
    assert s["runs"] == 0 and s["different_code"] == 9


def test_runs_only_one_store_has_are_not_paired(store: Path) -> None:
    runs = _runs(store)
    assert replication_runs(runs, runs.iloc[:4]).shape[0] == 4
    assert replication_runs(runs.iloc[:4], runs).shape[0] == 4


def test_the_page_is_generated_from_both_stores(store: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "replication.md"
    assert main([str(store), str(store), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "**9 runs trained again under their run ids by the same code" in text
    assert "9 with the same metrics" in text and "9 identical" in text
    assert "Cells that change (ours): none." in text
    assert "by the original only 0, by the replica only 0" in text and "p = 1)" in text
    assert "9 runs: 9 same metrics, 9 identical" in capsys.readouterr().out
    with pytest.raises(StoreError, match="no such results store"):
        main([str(store), str(tmp_path / "missing.db"), "--out", str(out)])


def test_a_replica_without_shared_run_ids_is_refused(store: Path, tmp_path: Path) -> None:
    from expressivity.sweeps.runner import run_sweep
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    other = tmp_path / "other.db"
    run_sweep(parse_sweep(SPEC.replace("seeds = [0, 1, 2]", "seeds = [7]"), "o.toml"), other,
              executor=InlineExecutor(), train_fn=fake_train, progress=False, group="off")
    with pytest.raises(StoreError, match="no completed run shares a run id"):
        main([str(store), str(other), "--out", str(tmp_path / "x.md")])


READOUTS = """
[sweep]
name = "readouts"
profile = "tiny"

[axes]
cells = [["PREFIX-a", "window-1"], ["LAST", "window-1"]]
"model.readout" = ["cls", "eos"]
seeds = [0, 1]
"""


def test_two_readouts_of_one_layout_are_two_cells(tmp_path: Path) -> None:
    from expressivity.sweeps.runner import run_sweep
    from expressivity.sweeps.store import ResultsStore
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    db = tmp_path / "readouts.db"
    run_sweep(parse_sweep(READOUTS, "r.toml"), db, executor=InlineExecutor(),
              train_fn=fake_train, progress=False, group="off")
    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    lost = {runs["run_id"].iloc[0]}
    cells = replication_cells(runs, _failed(runs, lost))
    eos = next(c for c in cells["cell"] if c != "window-1 @cls")  # the default readout
    assert sorted(cells["cell"]) == sorted(["window-1 @cls", eos] * 2)
    # window-1 @cls reads a prefix, @eos a suffix: PREFIX-a is yes at cls, no at eos
    verdicts = dict(zip(cells["language"] + " " + cells["cell"], cells["predicted"], strict=True))
    assert verdicts["PREFIX-a window-1 @cls"] == "yes"
    assert verdicts[f"PREFIX-a {eos}"] == "no"
    assert verdicts[f"LAST {eos}"] == "yes"
    ours = {r["run_id"]: _ours(pd.Series(r)) for r in runs.to_dict("records")}
    labels = {r["run_id"]: row_cell(r).label for r in runs.to_dict("records")}
    for row in cells.itertuples():
        ids = [i for i in runs["run_id"]
               if labels[i] == row.cell and runs.set_index("run_id").at[i, "language"]
               == row.language]
        assert len(ids) == 2  # seeds 0 and 1 of one readout, never the other readout's
        assert row.observed == any(ours[i] for i in ids)
        assert row.replica_observed == any(ours[i] and i not in lost for i in ids)
