"""analysis.rerun: a rerun store's cells beside its base store's, and the settings that changed."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from expressivity.analysis.rerun import (
    cell_runs,
    flat_spec,
    main,
    proven_yes_pairing,
    rerun_table,
    spec_changes,
)
from expressivity.errors import StoreError
from expressivity.sweeps.spec import parse_sweep

BASE = """
[sweep]
name = "base"
profile = "tiny"

[axes]
cells = [["SUFFIX-a", "local-1"], ["PREFIX-a", "global"], ["LAST", "local-1"]]
seeds = [0, 1]
"""
RERUN = """
[sweep]
name = "rerun"
profile = "tiny"

[base]
"data.length_distribution" = "uniform"

[axes]
cells = [["SUFFIX-a", "local-1"], ["PREFIX-a", "global"]]
seeds = [0, 1]
"""


def _store(tmp_path: Path, name: str, text: str) -> tuple[Path, pd.DataFrame]:
    from expressivity.sweeps.runner import run_sweep
    from expressivity.sweeps.store import ResultsStore
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    db = tmp_path / f"{name}.db"
    run_sweep(parse_sweep(text, f"{name}.toml"), db, executor=InlineExecutor(),
              train_fn=fake_train, progress=False, group="off")
    with ResultsStore(db, create=False) as store:
        return db, store.runs()


def test_flat_spec_dots_nested_keys_and_keeps_lists_hashable() -> None:
    assert flat_spec({"data": {"train_lengths": [0, 40], "x": 1}, "seed": 2}) == {
        "data.train_lengths": (0, 40), "data.x": 1, "seed": 2}


def test_the_one_changed_setting_is_found_from_the_runs(tmp_path: Path) -> None:
    _, base = _store(tmp_path, "base", BASE)
    _, rerun = _store(tmp_path, "rerun", RERUN)
    assert spec_changes(base, rerun) == {"data.length_distribution": ("flare", "uniform")}
    assert spec_changes(base, base) == {}


def test_a_training_field_stored_before_it_existed_is_no_change(tmp_path: Path) -> None:
    """A run stored by code without ``train.patience_start`` behaved as its default: the pair
    differs in nothing, while a real change of the field is still named."""
    _, base = _store(tmp_path, "base", BASE)
    older = base.assign(spec=[json.dumps({**spec, "train": {
        k: v for k, v in spec["train"].items() if k != "patience_start"}})
        for spec in map(json.loads, base["spec"])])
    assert spec_changes(older, base) == {}
    later = base.assign(spec=[json.dumps({**spec, "train": {**spec["train"], "patience_start": 7}})
                              for spec in map(json.loads, base["spec"])])
    assert spec_changes(older, later) == {"train.patience_start": ("0", "7")}


def test_each_rerun_cell_sits_beside_its_base_numbers(tmp_path: Path) -> None:
    _, base = _store(tmp_path, "base", BASE)
    _, rerun = _store(tmp_path, "rerun", RERUN)
    table = rerun_table(base, rerun).set_index(["language", "cell"])
    assert len(table) == 2  # only the rerun's cells; LAST is the base's alone
    for frame, side in ((base, "base"), (rerun, "rerun")):
        for (language, layout), row in table.iterrows():
            mine = frame[(frame["language"] == language) & (frame["layout"] == layout)]
            assert row[f"runs ({side})"] == len(mine) == 2
            assert row[f"recognized ({side})"] == int(mine["recognized"].astype(bool).sum())
            shorts = [json.loads(e)["short_words"] for e in mine["extra"]]
            assert row[f"best short ({side})"] == pytest.approx(
                max(s["correct"] / s["n"] for s in shorts))


def test_same_seeds_keeps_the_base_runs_of_the_rerun_cells_own_seeds(tmp_path: Path) -> None:
    _, base = _store(tmp_path, "base", BASE)
    _, rerun = _store(tmp_path, "rerun", RERUN.replace("seeds = [0, 1]", "seeds = [1]"))
    table = rerun_table(base, rerun, same_seeds=True).set_index(["language", "cell"])
    every = rerun_table(base, rerun).set_index(["language", "cell"])
    for (language, layout), row in table.iterrows():
        mine = base[(base["language"] == language) & (base["layout"] == layout)]
        seed1 = mine[mine["seed"] == 1]
        assert row["runs (base)"] == 1 and every.loc[(language, layout), "runs (base)"] == 2
        assert row["recognized (base)"] == int(seed1["recognized"].astype(bool).sum())
        assert row["runs (rerun)"] == 1


def test_the_proven_yes_pairing_counts_the_four_kinds_of_cell() -> None:
    table = pd.DataFrame({"predicted": ["yes", "yes", "yes", "yes", "yes", "no", "?"],
                          "recognized (base)": [1, 2, 0, 0, None, 1, 0],
                          "recognized (rerun)": [1, 0, 1, 0, 3, 0, 1]})
    line = proven_yes_pairing(table)
    assert ("Proven-yes cells (5): learned in both 1, in the base only 1, rerun only 2, "
            "in neither 1 (exact McNemar p = 1)") in line
    assert proven_yes_pairing(table.drop(columns="predicted")) == ""
    assert proven_yes_pairing(table[table["predicted"] == "no"]) == ""


def test_wrong_short_words_are_listed_with_epsilon_spelled_out() -> None:
    extra = json.dumps({"short_words": {"n": 4, "correct": 2, "errors": ["", "a b"]}})
    runs = pd.DataFrame([{"language": "L", "cell": "g", "status": "completed",
                          "recognized": 0, "test_accuracy": 1.0, "adversarial_accuracy": 1.0,
                          "extra": extra}])
    row = cell_runs(runs).iloc[0]
    assert row["short words wrong"] == "`ε`, `a b`" and row["best short"] == 0.5


def test_main_writes_the_table_with_both_digests(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from expressivity.analysis.provenance import runs_digest

    base_db, base = _store(tmp_path, "base", BASE)
    rerun_db, rerun = _store(tmp_path, "rerun", RERUN)
    out = tmp_path / "rerun.md"
    assert main([str(base_db), str(rerun_db), "--out", str(out)]) == 0
    text = out.read_text()
    assert runs_digest(base) in text and runs_digest(rerun) in text
    assert "`data.length_distribution`: flare → uniform" in text
    assert "| SUFFIX-a | local-1 | yes |" in text and "| LAST |" not in text
    assert "2 cells" in capsys.readouterr().out
    assert main([str(base_db), str(rerun_db), "--out", str(out), "--same-seeds"]) == 0
    text = out.read_text()
    assert "--same-seeds`" in text and "own seeds only" in text


def test_a_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such results store"):
        main([str(tmp_path / "nope.db"), str(tmp_path / "nope2.db"), "--out", "x.md"])


def test_cells_of_one_layout_with_two_readouts_stay_apart(tmp_path: Path) -> None:
    """window-1 read at EOS and at CLS are two cells of one layout: a rerun of the CLS cell
    sits beside the base's CLS runs only, and its runs pair with theirs alone."""
    base_text = """
[sweep]
name = "base"
profile = "tiny"

[axes]
languages = ["SUFFIX-a"]
layouts = ["window-1"]
"model.readout" = ["eos", "cls"]
seeds = [0, 1]
"""
    rerun_text = base_text.replace('"base"', '"rerun"').replace(
        '["eos", "cls"]', '["cls"]').replace("[axes]", '[base]\n"train.lr" = 0.003\n\n[axes]')
    _, base = _store(tmp_path, "base", base_text)
    _, rerun = _store(tmp_path, "rerun", rerun_text)
    table = rerun_table(base, rerun)
    assert list(table["cell"]) == ["window-1 @cls"]
    cls = base[base["spec"].str.contains('"readout": "cls"')]
    assert table["runs (base)"].iloc[0] == len(cls) == 2
    assert table["recognized (base)"].iloc[0] == int(cls["recognized"].astype(bool).sum())
    changes = spec_changes(base, rerun)
    assert set(changes) == {"train.lr"} and changes["train.lr"][1] == "0.003"
