"""Timing a planned sweep by the wall times of matching runs in existing stores."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from expressivity.cli import main
from expressivity.sweeps.reference_time import reference_time
from expressivity.sweeps.runner import run_sweep
from expressivity.sweeps.spec import parse_sweep
from tests.sweeps.conftest import InlineExecutor
from tests.sweeps.fake import fake_train

REFERENCE = """
[sweep]
name = "ref"
profile = "tiny"
[axes]
languages = ["PREFIX-a", "SUFFIX-a"]
layouts = ["global", "local-1"]
seeds = [0, 1]
"""


def _store(tmp_path: Path) -> Path:
    db = tmp_path / "ref.db"
    run_sweep(parse_sweep(REFERENCE, "r.toml"), db, executor=InlineExecutor(),
              train_fn=fake_train, progress=False, group="off")
    return db


def test_each_run_takes_the_median_of_its_closest_match(tmp_path: Path) -> None:
    import statistics

    from expressivity.sweeps.store import ResultsStore

    db = _store(tmp_path)
    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    walls = runs.groupby("layout")["wall_time"].apply(list).to_dict()
    plan = parse_sweep(REFERENCE.replace('"local-1"]', '"local-1", "hybrid-1"]')
                       .replace("seeds = [0, 1]", "seeds = [5]")
                       + '[[override]]\nwhere = { layout = "local-1" }\n'
                       'set = { "model.n_layers" = 3 }\n', "p.toml").expand()
    t = reference_time(plan, [db])
    # global: the same layout, depth and settings (step 1); hybrid-1: no reference of that
    # layout, but the profile's depth (1 layer, step 3); local-1 at 3 layers: no 3-layer
    # reference (step 4)
    assert t.matched == (2, 0, 2, 2) and t.missing == 0
    every = [w for ws in walls.values() for w in ws]
    expected = 2 * statistics.median(walls["global"]) + 4 * statistics.median(every)
    assert t.run_seconds == pytest.approx(expected)
    assert "run-hours" in t.text(jobs=2) and "2 runs matched by layout" in t.text()


def test_runs_with_other_training_settings_are_timed_by_their_own_kind(tmp_path: Path) -> None:
    """A reference store with two step budgets: a planned run takes the median of the runs
    with its own settings (step 1); settings no reference has fall back to the layout's
    median over every setting (step 2)."""
    import json
    import statistics

    from expressivity.sweeps.store import ResultsStore

    db = tmp_path / "ref.db"
    longer = REFERENCE + '[[override]]\nwhere = { seed = 1 }\nset = { "train.steps" = 90 }\n'
    run_sweep(parse_sweep(longer, "r.toml"), db, executor=InlineExecutor(),
              train_fn=fake_train, progress=False, group="off")
    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    steps = [json.loads(str(x))["train"]["steps"] for x in runs["spec"]]
    runs = runs.assign(budget=steps)
    global_ = runs[runs["layout"] == "global"]
    plan = parse_sweep(REFERENCE.replace('layouts = ["global", "local-1"]', 'layouts = ["global"]')
                       .replace("seeds = [0, 1]", "seeds = [0, 1, 2]")
                       + '[[override]]\nwhere = { seed = 1 }\nset = { "train.steps" = 90 }\n'
                       + '[[override]]\nwhere = { seed = 2 }\nset = { "train.steps" = 7 }\n',
                       "p.toml").expand()
    t = reference_time(plan, [db])
    assert t.matched == (4, 2, 0, 0) and t.missing == 0  # 2 languages × seeds 0, 1 | seed 2
    own = global_.groupby("budget")["wall_time"].median()
    expected = (2 * own[90] + 2 * own[int(global_.loc[global_["budget"] != 90, "budget"].iloc[0])]
                + 2 * statistics.median(global_["wall_time"]))
    assert t.run_seconds == pytest.approx(expected)
    assert "4 runs matched by layout, depth, scale, readout and training settings" in t.text()


def test_a_scan_other_than_the_default_is_timed_by_its_own_runs(tmp_path: Path) -> None:
    """The scan is a setting of step 1: a fused run takes the median of the fused references,
    and one no reference trained falls back to its layout's median (step 2)."""
    import statistics

    from expressivity.sweeps.store import ResultsStore

    db = tmp_path / "ref.db"
    fused = '[[override]]\nwhere = { seed = 1 }\nset = { "model.ssm_scan" = "fused" }\n'
    run_sweep(parse_sweep(REFERENCE + fused, "r.toml"), db, executor=InlineExecutor(),
              train_fn=fake_train, progress=False, group="off")
    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    global_ = runs[runs["layout"] == "global"]
    plan = parse_sweep(REFERENCE.replace('layouts = ["global", "local-1"]', 'layouts = ["global"]')
                       + fused, "p.toml").expand()
    t = reference_time(plan, [db])
    assert t.matched == (4, 0, 0, 0)
    scans = ["fused" in str(x) for x in global_["spec"]]
    own = global_[scans]["wall_time"]
    chunked = global_[[not f for f in scans]]["wall_time"]
    assert len(own) == len(chunked) == 2
    assert t.run_seconds == pytest.approx(2 * statistics.median(chunked)
                                          + 2 * statistics.median(own))
    other = parse_sweep(REFERENCE.replace('layouts = ["global", "local-1"]', 'layouts = ["global"]')
                        + fused.replace("fused", "parallel"), "o.toml").expand()
    assert reference_time(other, [db]).matched == (2, 2, 0, 0)


def test_a_profile_no_store_has_is_unmatched(tmp_path: Path) -> None:
    plan = parse_sweep(REFERENCE.replace('profile = "tiny"', 'profile = "quick"'),
                       "q.toml").expand()
    t = reference_time(plan, [_store(tmp_path)])
    assert t.missing == len(plan) and t.run_seconds == 0


def test_the_dry_run_prints_the_time_from_stores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(REFERENCE, encoding="utf-8")
    db = _store(tmp_path)
    assert main(["sweep", str(spec), "--db", str(tmp_path / "new.db"), "--dry-run",
                 "--time-from", str(db)]) == 0
    assert "from stores" in capsys.readouterr().out
    until = tmp_path / "u.toml"  # seeds in rounds: the ready runs, then the bound
    until.write_text(REFERENCE.replace('profile = "tiny"', 'profile = "tiny"\n'
                                       'seed_policy = "until-recognized"'), encoding="utf-8")
    assert main(["sweep", str(until), "--db", str(tmp_path / "new.db"), "--dry-run",
                 "--time-from", str(db)]) == 0
    printed = capsys.readouterr().out
    now, bound = (int(n) for n in re.findall(r"\((\d+) runs matched by layout, depth", printed))
    assert printed.count("if no waiting run is skipped") == 2 and 0 < now < bound
    assert main(["sweep", str(spec), "--db", str(tmp_path / "new.db"), "--dry-run",
                 "--time-from", str(tmp_path / "none.db")]) != 0
    assert "error:" in capsys.readouterr().err
