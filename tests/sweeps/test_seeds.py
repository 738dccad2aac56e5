"""The seed policy "until-recognized": the same cell verdicts as every seed, fewer runs."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.errors import ConfigError
from expressivity.sweeps.runner import run_sweep
from expressivity.sweeps.seeds import cell_key, split_by_seed
from expressivity.sweeps.spec import parse_sweep
from expressivity.sweeps.store import ResultsStore
from expressivity.training.spec import RunSpec, run_spec
from tests.sweeps.conftest import SMALL, InlineExecutor
from tests.sweeps.fake import fake_train

SEEDS = """seeds = [0, 1]"""
UNTIL = SMALL.replace('profile = "tiny"', 'profile = "tiny"\nseed_policy = "until-recognized"')


def _grid(cells: int, seeds: list[int]) -> list[RunSpec]:
    """``cells`` cells (languages × layouts) × ``seeds``, seeds varying fastest (axis order)."""
    pairs = [(lang, lay) for lang in ("LAST", "FIRST", "LT-1") for lay in ("global", "local-1")]
    return [run_spec(lang, lay, "tiny", seed=s) for lang, lay in pairs[:cells] for s in seeds]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.lists(st.integers(0, 9), min_size=1, max_size=4, unique=True),
       st.data())
def test_rounds_make_each_cell_up_to_its_first_recognizing_seed(
    cells: int, seeds: list[int], data: st.DataObject
) -> None:
    runs = _grid(cells, seeds)
    oracle = {r.run_id: data.draw(st.booleans(), label=r.run_id[:6]) for r in runs}
    outcomes: dict[str, bool] = {}
    todo = list(runs)
    while True:  # the runner's rounds: make what is ready, plan again
        split = split_by_seed(runs, todo, outcomes)
        assert len(split.ready) + len(split.waiting) + len(split.skipped) == len(todo)
        if not split.ready:
            break
        outcomes.update({r.run_id: oracle[r.run_id] for r in split.ready})
        todo = list(split.waiting)
    assert not split.waiting
    for i in range(0, len(runs), len(seeds)):  # each cell, its seeds in the spec's order
        cell = runs[i:i + len(seeds)]
        verdicts = [oracle[r.run_id] for r in cell]
        first = verdicts.index(True) if True in verdicts else len(cell) - 1
        assert [r.run_id in outcomes for r in cell] == [k <= first for k in range(len(cell))]
        assert any(outcomes.get(r.run_id, False) for r in cell) == any(verdicts)


def test_a_cell_is_its_spec_but_for_the_seed() -> None:
    a, b = run_spec("LAST", "global", "tiny", seed=0), run_spec("LAST", "global", "tiny", seed=3)
    assert cell_key(a) == cell_key(b) == a.run_id
    assert cell_key(run_spec("LAST", "global", "tiny", seed=3, lr=3e-3)) != cell_key(b)


def test_a_failed_earlier_seed_lets_the_next_run_and_an_unstored_one_holds_it() -> None:
    runs = _grid(1, [0, 1, 2])
    assert split_by_seed(runs, runs[1:], {runs[0].run_id: False}).ready == (runs[1],)
    split = split_by_seed(runs, runs, {})
    assert (split.ready, split.waiting) == ((runs[0],), tuple(runs[1:]))


def _verdicts(db: Path) -> dict[tuple[str, str], bool]:
    with ResultsStore(db) as store:
        runs = store.runs()
    return {k: bool(g["recognized"].any()) for k, g in runs.groupby(["language", "layout"])}


def test_until_recognized_keeps_every_cell_verdict_of_all_seeds(tmp_path: Path) -> None:
    four = SEEDS.replace("[0, 1]", "[0, 1, 2, 3]")
    every, until = tmp_path / "all.toml", tmp_path / "until.toml"
    every.write_text(SMALL.replace(SEEDS, four), encoding="utf-8")
    until.write_text(UNTIL.replace(SEEDS, four), encoding="utf-8")
    full = run_sweep(every, tmp_path / "all.db", executor=InlineExecutor(), train_fn=fake_train,
                     progress=False)
    ex, text = InlineExecutor(), io.StringIO()
    out = run_sweep(until, tmp_path / "until.db", executor=ex, train_fn=fake_train,
                    progress=False, out=text)
    assert _verdicts(tmp_path / "all.db") == _verdicts(tmp_path / "until.db")
    with ResultsStore(tmp_path / "all.db") as store:
        all_runs = store.runs().sort_values("seed")
    made = 0
    for _, cell in all_runs.groupby(["language", "layout"]):
        hits = cell["recognized"].tolist()
        made += hits.index(True) + 1 if True in hits else len(hits)
    assert full.completed == 16 and out.completed == ex.calls == made < 16
    assert not out.plan.waiting and len(out.plan.skipped) == 16 - made
    assert "waiting for an earlier seed" in text.getvalue()
    again = run_sweep(until, tmp_path / "until.db", executor=InlineExecutor(),
                      train_fn=fake_train, progress=False)
    assert again.completed == 0 and not again.plan.todo and len(again.plan.skipped) == 16 - made


def test_a_dry_run_counts_the_waiting_runs_and_the_bound(tmp_path: Path) -> None:
    spec = tmp_path / "until.toml"
    spec.write_text(UNTIL, encoding="utf-8")
    text = io.StringIO()
    out = run_sweep(spec, tmp_path / "r.db", dry_run=True, out=text)
    assert len(out.plan.todo) == 4 and len(out.plan.waiting) == 4
    printed = text.getvalue()
    assert "4 waiting for an earlier seed" in printed
    assert "if no waiting run is skipped: compute estimate for 8 runs" in printed


def test_the_policy_is_part_of_the_spec_and_checked() -> None:
    assert parse_sweep(UNTIL).seed_policy == "until-recognized"
    assert parse_sweep(UNTIL).spec_hash != parse_sweep(SMALL).spec_hash
    with pytest.raises(ConfigError, match=r"<string>:4:\d+: .*seed_policy must be"):
        parse_sweep(UNTIL.replace('"until-recognized"', '"first"'))


def test_reusing_a_store_of_every_seed_takes_only_the_runs_the_policy_makes(
    tmp_path: Path,
) -> None:
    four = SEEDS.replace("[0, 1]", "[0, 1, 2, 3]")
    every, until = tmp_path / "all.toml", tmp_path / "until.toml"
    every.write_text(SMALL.replace(SEEDS, four), encoding="utf-8")
    until.write_text(UNTIL.replace(SEEDS, four), encoding="utf-8")
    run_sweep(every, tmp_path / "all.db", executor=InlineExecutor(), train_fn=fake_train,
              progress=False)
    run_sweep(until, tmp_path / "made.db", executor=InlineExecutor(), train_fn=fake_train,
              progress=False)
    with ResultsStore(tmp_path / "made.db") as store:
        made = set(store.runs()["run_id"])
    text = io.StringIO()
    dry = run_sweep(until, tmp_path / "r.db", dry_run=True, out=text,
                    reuse=[tmp_path / "all.db"])
    assert f"would reuse {len(made)} completed runs" in text.getvalue() and not dry.plan.todo
    ex = InlineExecutor()
    out = run_sweep(until, tmp_path / "r.db", executor=ex, train_fn=fake_train, progress=False,
                    reuse=[tmp_path / "all.db"])
    with ResultsStore(tmp_path / "r.db") as store:
        assert set(store.runs()["run_id"]) == made
    assert ex.calls == 0 and not out.plan.waiting and len(out.plan.skipped) == 16 - len(made)


def test_skipped_runs_do_not_count_as_runs_of_this_code(tmp_path: Path) -> None:
    """A complete store of this policy made by other code is named, not refused: the seeds the
    policy skips will not run, so no cell would mix codes."""
    import sqlite3

    spec = tmp_path / "until.toml"
    spec.write_text(UNTIL.replace(SEEDS, "seeds = [0, 1, 2, 3]"), encoding="utf-8")
    db = tmp_path / "r.db"
    run_sweep(spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET code_fingerprint = '0ldc0de0ldc0'")
    ex = InlineExecutor()
    out = run_sweep(spec, db, executor=ex, train_fn=fake_train, progress=False)
    assert ex.calls == 0 and out.plan.skipped and "no cell mixes codes" in str(out.plan.code_note)
