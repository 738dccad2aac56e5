"""Sweeps through ensembles: grouping, a record per member, OOM halving, dry runs, real runs."""

from __future__ import annotations

import concurrent.futures as cf
import functools
import io
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from expressivity.errors import ConfigError
from expressivity.sweeps.ensembles import auto_group_size, group_runs, split_group
from expressivity.sweeps.runner import run_sweep
from expressivity.sweeps.spec import parse_sweep
from expressivity.sweeps.store import ResultsStore
from expressivity.training import run_spec
from tests.sweeps.conftest import SMALL, InlineExecutor
from tests.sweeps.fake import fake_ensemble, fake_train


def _sizes(log: Path) -> list[int]:
    return [int(x) for x in log.read_text().split()] if log.exists() else []


def test_grouping_by_shape_language_and_workers() -> None:
    runs = parse_sweep(SMALL).expand()  # SUFFIX-a, PREFIX-a: both over {a, b, c}
    assert [len(g) for g in group_runs(runs, 8)] == [8]
    assert [len(g) for g in group_runs(runs, 3)] == [3, 3, 2]
    by_language = group_runs(runs, 8, by="language")
    assert [len(g) for g in by_language] == [4, 4]
    assert all(len({r.language for r in g}) == 1 for g in by_language)
    assert [len(g) for g in group_runs(runs, 8, workers=3)] == [3, 3, 2]
    assert [len(g) for g in group_runs(runs, 1)] == [1] * 8
    dyck = run_spec("DYCK-(1,1)", profile="tiny")  # alphabet {a, b}: another shape
    assert [len(g) for g in group_runs([*runs[:2], dyck], 8)] == [2, 1]
    assert [len(g) for g in split_group(runs[:5])] == [3, 2]
    with pytest.raises(ConfigError, match="group_by"):
        group_runs(runs, 2, by="layout")


def test_each_member_is_its_own_record_and_grouping_can_be_off(
    small_spec: Path, tmp_path: Path
) -> None:
    log = tmp_path / "groups.txt"
    ens = functools.partial(fake_ensemble, log=log)
    ex = InlineExecutor()
    out = run_sweep(small_spec, tmp_path / "r.db", executor=ex, train_fn=fake_train,
                    ensemble_fn=ens, group=3, progress=False)
    assert ex.calls == 3 and _sizes(log) == [3, 3, 2] and out.completed == 8
    with ResultsStore(tmp_path / "r.db") as store:
        runs = store.runs()
    assert sorted(runs["run_id"]) == sorted(r.run_id for r in out.plan.runs)
    off = InlineExecutor()
    run_sweep(small_spec, tmp_path / "o.db", executor=off, train_fn=fake_train, ensemble_fn=ens,
              group="off", progress=False)
    assert off.calls == 8 and _sizes(log) == [3, 3, 2]


def test_out_of_memory_halves_the_group_and_retries(small_spec: Path, tmp_path: Path) -> None:
    log = tmp_path / "groups.txt"
    ens = functools.partial(fake_ensemble, oom_above=2, log=log)
    out = run_sweep(small_spec, tmp_path / "r.db", executor=InlineExecutor(),
                    train_fn=fake_train, ensemble_fn=ens, group=8, progress=False)
    assert out.completed == 8 and out.failed == 0
    assert _sizes(log) == [2, 2, 2, 2]


class _DyingWorkers(InlineExecutor):
    """A worker dies (as if killed for memory) on every task of more than two runs."""

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> cf.Future[Any]:
        group = args[2] if fn.__name__ == "execute_group" else (args[1],)
        if len(group) > 2:
            self.calls += 1
            fut: cf.Future[Any] = cf.Future()
            fut.set_exception(RuntimeError("worker died"))
            return fut
        return super().submit(fn, *args)


def test_a_dying_worker_halves_the_group(small_spec: Path, tmp_path: Path) -> None:
    log = tmp_path / "groups.txt"
    ens = functools.partial(fake_ensemble, log=log)
    out = run_sweep(small_spec, tmp_path / "r.db", executor=_DyingWorkers(),
                    train_fn=fake_train, ensemble_fn=ens, group=8, progress=False)
    assert (out.completed, out.failed) == (8, 0) and _sizes(log) == [2, 2, 2, 2]


def test_dry_run_reports_the_ensembles(small_spec: Path, tmp_path: Path) -> None:
    text = io.StringIO()
    run_sweep(small_spec, tmp_path / "r.db", dry_run=True, out=text, group=3)
    assert "ensembles: 3 (members: 3, 3, 2)" in text.getvalue()
    assert "ensembles        3 of 2.7 members" in text.getvalue()
    text = io.StringIO()
    run_sweep(small_spec, tmp_path / "r.db", dry_run=True, out=text, group="off")
    assert "ensembles: off (8 runs one by one)" in text.getvalue()
    with pytest.raises(ConfigError, match="group"):
        run_sweep(small_spec, tmp_path / "r.db", dry_run=True, out=text, group="many")


def test_spec_group_options_are_validated() -> None:
    spec = parse_sweep(SMALL.replace('profile = "tiny"', 'profile = "tiny"\ngroup = 4\n'
                                                          'group_by = "language"'))
    assert (spec.group, spec.group_by) == (4, "language")
    assert spec.spec_hash == parse_sweep(SMALL).spec_hash  # how runs execute, not what
    with pytest.raises(ConfigError, match=r"<string>:4:\d+: \[sweep\] group must be"):
        parse_sweep(SMALL.replace('profile = "tiny"', 'profile = "tiny"\ngroup = 0'))
    with pytest.raises(ConfigError, match=r"group_by must"):
        parse_sweep(SMALL.replace('profile = "tiny"', 'profile = "tiny"\ngroup_by = "x"'))


ROW = """\
[sweep]
name = "row"
profile = "tiny"

[base]
"train.steps" = 7
language = "SUFFIX-a"

[axes]
layouts = ["global", "local-1", "hybrid-1"]
"""


def test_auto_grouping_is_off_on_a_cpu() -> None:
    """On a CPU members train one by one anyway: "auto" runs them alone (faster there)."""
    spec = run_spec("SUFFIX-a", "global", profile="tiny")
    assert auto_group_size(spec, 1) == 1 and auto_group_size(spec, 4) == 1


def test_the_real_trainer_runs_a_tiny_sweep_through_ensembles(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    out = run_sweep(parse_sweep(ROW), db, executor=InlineExecutor(), progress=False, group=3)
    assert (out.completed, out.failed) == (3, 0)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT run_id, extra FROM runs").fetchall()
    assert sorted(r for r, _ in rows) == sorted(r.run_id for r in out.plan.runs)
    sizes = [json.loads(extra)["ensemble"]["size"] for _, extra in rows]
    assert sizes == [3] * 3
