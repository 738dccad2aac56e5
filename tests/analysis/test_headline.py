"""The README's results block is generated from its store and kept in step with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from expressivity.analysis.headline import (
    END,
    begin_marker,
    read_block,
    render_headline,
    replace_block,
)
from expressivity.analysis.store_report import build_report
from expressivity.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def _page(*stores: str) -> str:
    return "# title\n\n" + "".join(f"{begin_marker(s)}\nold {s}\n{END}\n\ntext\n" for s in stores)


def test_replace_block_rewrites_only_the_block_of_its_store() -> None:
    page = _page("a.db", "b.db")
    new = replace_block(page, "b.db", "fresh\nlines\n")
    assert read_block(new, "b.db") == "fresh\nlines"
    assert read_block(new, "a.db") == "old a.db"
    assert replace_block(new, "b.db", "old b.db") == page


def test_a_file_without_the_block_is_an_error_naming_the_lines_to_add() -> None:
    with pytest.raises(ConfigError, match=re.escape(END)):
        replace_block(_page("a.db"), "c.db", "x")
    with pytest.raises(ConfigError, match="no results block"):  # an opened, unclosed block
        replace_block(begin_marker("c.db") + "\nrest\n", "c.db", "x")


def test_the_readme_block_is_what_its_store_gives_now() -> None:
    """Every results block of the README equals `render_headline` of its committed store."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stores = re.findall(r"^<!-- results (\S+): generated", readme, flags=re.M)
    assert stores, "the README has no generated results block"
    for store in stores:
        expected = render_headline(build_report(ROOT / store), store)
        assert read_block(readme, store) == expected, (
            f"README.md's block for {store} is stale: run `expressivity figures {store} "
            f"--out DIR --readme README.md`")


def test_figures_writes_the_block(tmp_path: Path) -> None:
    from expressivity.analysis.example import write_example_store
    from expressivity.analysis.figures import write_figures

    db = write_example_store(tmp_path / "ex.db")
    page = tmp_path / "PAGE.md"
    page.write_text(_page(str(db)), encoding="utf-8")
    written = write_figures(db, tmp_path / "out", formats=("png",), readme=page)
    assert page in written
    assert read_block(page.read_text(), str(db)) == render_headline(build_report(db), str(db))
    page.write_text("no block here\n", encoding="utf-8")
    with pytest.raises(ConfigError):
        write_figures(db, tmp_path / "out2", formats=("png",), readme=page)
    assert not (tmp_path / "out2").exists()  # refused before anything was written


def test_the_depth_summary_counts_thresholds_and_lists_every_cell_below_d_star() -> None:
    import pandas as pd

    from expressivity.analysis.headline import depth_summary

    levels = pd.DataFrame({
        "language": ["LT-1", "PT-2", "LT-2", "TOMITA-4"],
        "alphabet": [""] * 4,
        "layout": ["global", "global", "global", "hybrid-2"],
        "min_depth": ["1", "2", "∞", "3"],
        "least_recognized": [1, 3, None, 2],
        "equals_min_depth": [True, False, None, False],
        "recognized_below_min_depth": ["", "", "", "2"],
    })
    text = depth_summary(levels)
    assert "Over the 4 language × layout cells" in text
    assert "3 were recognized at some depth" in text
    assert "equals d* in 1 of 3 cells" in text
    assert "Cells recognized below d*: 1 (TOMITA-4 × hybrid-2 (d* = 3, recognized at 2 layers))."\
        in text


def test_an_ablation_block_is_its_recall_per_lever() -> None:
    import pandas as pd

    from expressivity.analysis.headline import lever_summary

    levers = pd.DataFrame({
        "sweep": ["abl", "abl"], "lever": ["baseline", "log-n"], "runs": [105, 105],
        "completed": [105, 60], "yes_cells": [35, 26], "yes_learned": [4, 15],
        "yes_learned_papers": [22, 17], "yes_runs": [105, 78], "yes_runs_recognized": [9, 40],
        "no_cells": [0, 2], "no_held": [0, 2],
        "unknown_cells": [0, 9], "unknown_learned": [0, 1], "run_seconds": [390.0, 7200.0],
    })
    lines = lever_summary(levers).splitlines()
    assert lines[0].startswith("| lever | runs | proven-yes learned (ours) |")
    assert lines[2] == "| baseline | 105/105 | 4/35 | 22/35 | 9/105 | 0/0 | 0/0 | 0.11 |"
    assert lines[3] == "| log-n | 60/105 | 15/26 | 17/26 | 40/78 | 2/2 | 1/9 | 2.00 |"
    two = lever_summary(levers.assign(sweep=["a", "b"])).splitlines()
    assert two[2].startswith("| a: baseline |")  # levers of several sweeps name their sweep
    none = lever_summary(levers.assign(no_cells=[0, 0], no_held=[0, 0])).splitlines()
    assert "certified-no" not in none[0]  # an ablation of proven-yes cells only
    assert none[3] == "| log-n | 60/105 | 15/26 | 17/26 | 40/78 | 1/9 | 2.00 |"


def test_a_wide_store_shows_its_split_per_class_group(tmp_path: Path) -> None:
    from expressivity.analysis.headline import WIDEST
    from expressivity.sweeps.runner import run_sweep
    from expressivity.sweeps.spec import parse_sweep
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    layouts = ["global", "local-1", "local-2", "local-4", "hybrid-1", "hybrid-2", "hybrid-4",
               "dilated-2-2", "block-4"]
    assert len(layouts) > WIDEST
    spec = parse_sweep('[sweep]\nname = "wide"\nprofile = "tiny"\n[axes]\nlanguages = '
                       '["PREFIX-a", "SUFFIX-a"]\nlayouts = ' + str(layouts).replace("'", '"')
                       + "\nseeds = [0]\n", "w.toml")
    db = tmp_path / "w.db"
    run_sweep(spec, db, executor=InlineExecutor(), train_fn=fake_train, progress=False,
              group="off")
    text = render_headline(build_report(db), "w.db")
    assert f"over its {len(layouts)} cells per language" in text
    assert "| family | class group | proven-yes learned (ours) |" in text
    assert "| causal attention | LTL[P]-only |" in text and "| causal attention | all |" in text
    assert "| all | all |" not in text  # one family: no copy of its total
    assert "| language |" not in text  # no recognition matrix
