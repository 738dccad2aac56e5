"""Sweep specs with [[lever]] tables, a cells axis and the papers' learning-rate preset."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from expressivity.errors import ConfigError
from expressivity.sweeps.grid import SweepSpec, lever_runs
from expressivity.sweeps.spec import load_sweep, parse_sweep

SPEC = """
[sweep]
name = "ablation"
profile = "tiny"

[axes]
cells = [["SUFFIX-a", "local-1"], ["PREFIX-a", "global"]]
seeds = [0, 1]

[[lever]]
name = "baseline"
set = {}

[[lever]]
name = "ssmax"
set = { "model.attention_scale" = "ssmax" }

[[lever]]
name = "hard"
set = { "data.train_hard_pairs" = 4 }
"""


def _fake_ablation(tmp_path: Path) -> tuple[SweepSpec, Path]:
    """`SPEC` swept into ``tmp_path / "r.db"`` with fake training (tests.sweeps.fake)."""
    from expressivity.sweeps.runner import run_sweep
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    spec = parse_sweep(SPEC, "a.toml")
    db = tmp_path / "r.db"
    run_sweep(spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False,
              group="off")
    return spec, db


def test_levers_pool_one_grid_each_over_the_listed_cells() -> None:
    spec = parse_sweep(SPEC, "a.toml")
    runs = spec.expand()
    assert spec.grid_size == len(runs) == 3 * 2 * 2
    cells = {(r.language, r.layout) for r in runs}
    assert cells == {("SUFFIX-a", "local-1"), ("PREFIX-a", "global")}  # not their product
    by_lever = lever_runs(spec)
    assert list(by_lever) == ["baseline", "ssmax", "hard"]
    assert all(r.model == {} and r.data == {} for r in by_lever["baseline"])
    assert all(r.model == {"attention_scale": "ssmax"} for r in by_lever["ssmax"])
    assert all(r.data == {"train_hard_pairs": 4} for r in by_lever["hard"])
    plain = parse_sweep(SPEC.split("[[lever]]")[0], "b.toml")
    assert lever_runs(plain) == {"": plain.expand()} and spec.spec_hash != plain.spec_hash


def test_the_papers_learning_rates_are_a_preset() -> None:
    spec = parse_sweep('[sweep]\nname = "x"\nprofile = "tiny"\n[axes]\nlanguages = ["LT-1"]\n'
                       '"train.lr" = "paper"\n', "c.toml")
    assert sorted(r.train.lr for r in spec.expand()) == [1e-4, 3e-4, 5e-4]


@pytest.mark.parametrize(("text", "match"), [
    ('[[lever]]\nname = "a"\nset = {}\n[[lever]]\nname = "a"\nset = {}\n', "unique"),
    ('[[lever]]\nset = {}\n', "a lever has"),
    ('[[lever]]\nname = "a"\nset = { "train.nope" = 1 }\n', "nope"),
])
def test_bad_levers_are_refused(text: str, match: str) -> None:
    head = '[sweep]\nname = "x"\nprofile = "tiny"\n[axes]\nlanguages = ["LT-1"]\n'
    with pytest.raises(ConfigError, match=match):
        parse_sweep(head + text, "d.toml")


def test_bad_cells_are_refused() -> None:
    with pytest.raises(ConfigError, match="pairs"):
        parse_sweep('[sweep]\nname = "x"\n[axes]\ncells = [["LT-1"]]\n', "e.toml")


def test_the_learnability_spec_loads() -> None:
    spec = load_sweep(Path(__file__).resolve().parents[2] / "experiments" / "learnability.toml")
    assert len(spec.levers) == 10 and spec.grid_size == 10 * 35 * 3
    assert len(dict(spec.axes)["cells"]) == 35


def test_recall_per_lever_counts_each_levers_runs(tmp_path: Path) -> None:
    from expressivity.analysis.levers import lever_table
    from expressivity.sweeps.store import ResultsStore

    spec, db = _fake_ablation(tmp_path)
    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    table = lever_table(runs, spec).set_index("lever")
    assert list(table.index) == ["baseline", "ssmax", "hard"]
    assert set(table["runs"]) == {4} and set(table["completed"]) == {4}
    base, ssmax = table.loc["baseline"], table.loc["ssmax"]
    assert (base["yes_cells"], base["no_cells"]) == (2, 0)  # both cells are proven yes
    assert ssmax["yes_cells"] == 2  # global+ssmax and local-1+ssmax: proved unchanged (§9)
    for lever, row in table.iterrows():  # learned = some fake run perfect (fake: id % 3 == 0)
        ids = {r.run_id for r in lever_runs(spec)[str(lever)]}
        mine = runs[runs["run_id"].isin(ids)]
        learned = mine[mine["recognized"].astype(bool)].groupby(["language", "layout"]).ngroups
        assert row["yes_learned"] == learned
        assert row["yes_runs"] == len(mine) == 4  # every cell is proven yes: every run counts
        assert row["yes_runs_recognized"] == int(mine["recognized"].astype(bool).sum())


def test_the_run_count_per_lever_takes_the_runs_of_proven_yes_cells_only(tmp_path: Path) -> None:
    """PREFIX-a × local-1 is a certified "no" (a window never sees the first letter): its runs
    are left out of `yes_runs`, and those of SUFFIX-a × local-1 counted, recognized or not."""
    from expressivity.analysis.levers import lever_table
    from expressivity.sweeps.runner import run_sweep
    from expressivity.sweeps.store import ResultsStore
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    text = SPEC.replace('["PREFIX-a", "global"]', '["PREFIX-a", "local-1"]')
    spec, db = parse_sweep(text, "a.toml"), tmp_path / "r.db"
    run_sweep(spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False,
              group="off")
    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    row = lever_table(runs, spec).set_index("lever").loc["baseline"]
    ids = {r.run_id for r in lever_runs(spec)["baseline"]}
    suffix = runs[runs["run_id"].isin(ids) & (runs["language"] == "SUFFIX-a")]
    assert (row["yes_cells"], row["no_cells"]) == (1, 1)
    assert row["yes_runs"] == len(suffix) == 2
    assert row["yes_runs_recognized"] == int(suffix["recognized"].astype(bool).sum())


def test_the_figures_of_an_ablation_store_carry_the_recall_per_lever(tmp_path: Path) -> None:
    from expressivity.analysis.store_report import build_report
    from expressivity.sweeps.runner import run_sweep
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    db = tmp_path / "r.db"
    run_sweep(parse_sweep(SPEC, "a.toml"), db, executor=InlineExecutor(), train_fn=fake_train,
              progress=False, group="off")
    report = build_report(db)
    assert list(report.levers["lever"]) == ["baseline", "ssmax", "hard"]
    assert set(report.levers["sweep"]) == {"ablation"}
    assert "levers" in report.tables()
    assert set(report.summary["layout"]) == {"global", "local-1", "global+ssmax",
                                             "local-1+ssmax"}


def test_an_edited_ablation_counts_by_its_latest_spec_and_a_resumed_slice_is_left_out(
    tmp_path: Path,
) -> None:
    from expressivity.analysis.levers import sweep_lever_tables
    from expressivity.sweeps.runner import run_sweep
    from expressivity.sweeps.store import ResultsStore
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    db = tmp_path / "r.db"
    first = SPEC.replace('name = "ablation"', 'name = "first"').split('[[lever]]\nname = "hard"')[0]
    edited = SPEC.replace('"data.train_hard_pairs" = 4', '"data.train_hard_pairs" = 8')
    for text in (first, SPEC, edited):  # a slice, the ablation, then its `hard` lever edited
        run_sweep(parse_sweep(text, "a.toml"), db, executor=InlineExecutor(),
                  train_fn=fake_train, progress=False, group="off")
    with ResultsStore(db, create=False) as store:
        table = sweep_lever_tables(store.sweeps(), store.runs())
    assert list(table["sweep"]) == ["ablation"] * 3  # "first" holds only the ablation's runs
    latest = {r.run_id for r in lever_runs(parse_sweep(edited, "a.toml"))["hard"]}
    hard = table.set_index("lever").loc["hard"]
    assert hard["runs"] == len(latest) == 4 and hard["completed"] == 4


def test_a_part_of_an_ablation_run_alone_later_does_not_hide_its_other_levers(
    tmp_path: Path,
) -> None:
    from expressivity.analysis.levers import chosen_specs, sweep_lever_tables
    from expressivity.sweeps.runner import run_sweep
    from expressivity.sweeps.store import ResultsStore
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    db = tmp_path / "r.db"
    part = SPEC.split('[[lever]]\nname = "hard"')[0]  # the same sweep without its last lever
    for text in (SPEC, part):
        run_sweep(parse_sweep(text, "a.toml"), db, executor=InlineExecutor(),
                  train_fn=fake_train, progress=False, group="off")
    with ResultsStore(db, create=False) as store:
        sweeps, runs = store.sweeps(), store.runs()
    table = sweep_lever_tables(sweeps, runs)
    assert list(table["lever"]) == ["baseline", "ssmax", "hard"]
    specs = chosen_specs(sweeps, runs)  # parsed once by the caller: the same table
    assert list(specs) == ["ablation"]
    pd.testing.assert_frame_equal(sweep_lever_tables(sweeps, runs, specs=specs), table)


def test_accuracy_by_length_per_lever_pools_each_levers_runs(tmp_path: Path) -> None:
    """Each (lever, cell) row pools exactly that lever's runs of that cell: its bins are the
    stored per-length counts summed by hand, and its adversarial column their mean."""
    from expressivity.analysis.levers import LENGTH_BIN, lever_lengths
    from expressivity.analysis.store_report import build_report
    from expressivity.sweeps.store import ResultsStore

    spec, db = _fake_ablation(tmp_path)
    with ResultsStore(db, create=False) as store:
        runs, lengths = store.runs(), store.lengths()
    table = lever_lengths(runs, lengths, spec)
    assert len(table) == 3 * 2 and set(table["runs"]) == {2}
    bins = [c for c in table.columns if c[:1].isdigit()]
    assert bins, "no length bins"
    for row in table.to_dict("records"):
        ids = {r.run_id for r in lever_runs(spec)[row["lever"]]
               if (r.language, r.layout) == (row["language"], row["layout"])}
        assert len(ids) == 2
        mine = runs[runs["run_id"].isin(ids)]
        assert row["recognized"] == int(mine["recognized"].astype(bool).sum())
        assert row["adversarial"] == pytest.approx(mine["adversarial_accuracy"].mean(), abs=1e-3)
        at = lengths[lengths["run_id"].isin(ids)]
        for name in bins:
            lo, hi = map(int, name.split("-"))
            assert (lo - 1) // LENGTH_BIN == (hi - 1) // LENGTH_BIN
            part = at[(at["length"] >= lo) & (at["length"] <= hi)]
            want = part["correct"].sum() / part["n"].sum()
            assert row[name] == pytest.approx(want, abs=1e-3)
    assert "lever_lengths" in build_report(db).tables()


def test_a_levers_run_ids_are_found_in_the_store_and_a_wrong_name_is_named(
        tmp_path: Path) -> None:
    from expressivity.analysis.levers import lever_run_ids
    from expressivity.errors import StoreError
    from expressivity.sweeps.store import ResultsStore

    spec, db = _fake_ablation(tmp_path)
    with ResultsStore(db, create=False) as store:
        sweeps, runs = store.sweeps(), store.runs()
    for lever, specs in lever_runs(spec).items():
        assert lever_run_ids(sweeps, runs, str(lever)) == {r.run_id for r in specs}
    with pytest.raises(StoreError, match="its levers: baseline, ssmax, hard"):
        lever_run_ids(sweeps, runs, "slow")
