"""`expressivity results`: the theory's prediction per cell, disagreements marked."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from expressivity.cli import main

SHIPPED = Path(__file__).resolve().parents[2] / "paper_figures" / "quick.db"


def test_predicted_column_and_agreement(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "quick.db"
    shutil.copy(SHIPPED, db)
    assert main(["results", str(db)]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0].split()
    assert header[-2:] == ["predicted", "vs_theory"]
    row = next(r for r in out.splitlines() if r.startswith("SUFFIX-a") and " global " in r)
    assert row.split()[-2:] == ["no", "agree"]
    row = next(r for r in out.splitlines() if r.startswith("SUFFIX-a") and " local-1 " in r)
    assert row.split()[-2:] == ["yes", "agree"]
    assert "18 cells judged against a proven prediction, 0 disagree (marked ≠)" in out
    assert ("proven-yes cells learned 10/10 (100 %) by our criterion, 10/10 (100 %) by the "
            "papers'; certified-no cells held 8/8 (100 %) by ours") in out


def test_runs_without_the_short_split_are_judged_neither_way(  # type: ignore[no-untyped-def]
    tmp_path: Path, capsys
) -> None:
    """A store recorded before the short split existed (no ``extra.short_words``): its perfect
    runs are "not tested on short words", never counted as learned."""
    db = tmp_path / "quick.db"
    shutil.copy(SHIPPED, db)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE runs SET extra = json_remove(extra, '$.short_words')")
    assert main(["results", str(db)]) == 0
    out = capsys.readouterr().out
    row = next(r for r in out.splitlines() if r.startswith("SUFFIX-a") and " local-1 " in r)
    assert row.endswith("yes        ? not tested on short words")
    assert ("8 cells judged against a proven prediction, 0 disagree (marked ≠), 10 not judged: "
            "perfect on the test and adversarial sets but not tested on short words") in out
    assert ("proven-yes cells learned 0/10 (0 %) by our criterion, 10/10 (100 %) by the "
            "papers'; certified-no cells held 8/8 (100 %) by ours") in out


def test_disagreements_are_marked(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "quick.db"
    shutil.copy(SHIPPED, db)
    with sqlite3.connect(db) as con:  # pretend global attention recognized SUFFIX-a
        con.execute("UPDATE runs SET recognized = 1, extra = json_set(extra, '$.short_words', "
                    "json('{\"n\": 511, \"correct\": 511, \"max_length\": 8}')) "
                    "WHERE language = 'SUFFIX-a' AND layout = 'global'")
        con.execute("UPDATE runs SET recognized = 0 WHERE language = 'LT-2' "
                    "AND layout = 'hybrid-1'")
    assert main(["results", str(db)]) == 0
    out = capsys.readouterr().out
    row = next(r for r in out.splitlines() if r.startswith("SUFFIX-a") and " global " in r)
    assert row.endswith("≠ learned beyond")
    row = next(r for r in out.splitlines() if r.startswith("LT-2") and " hybrid-1 " in r)
    assert row.endswith("≠ failed within")
    assert "2 disagree (marked ≠)" in out


def test_an_interrupted_sweep_says_how_many_runs_are_done(small_spec: Path, tmp_path: Path,
                                                          capsys) -> None:  # type: ignore[no-untyped-def]
    from expressivity.sweeps.runner import run_sweep
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    db = tmp_path / "r.db"
    run_sweep(small_spec, db, executor=InlineExecutor(interrupt_after=3), train_fn=fake_train,
              progress=False)
    assert "interrupted: 3 runs done, rerun the same command to resume" in capsys.readouterr().err
    run_sweep(small_spec, db, executor=InlineExecutor(interrupt_after=2), train_fn=fake_train,
              progress=False)
    assert "interrupted: 5 runs done, rerun the same command to resume" in capsys.readouterr().err


def test_recognized_where_the_theory_is_unknown_is_flagged(
    tmp_path: Path, capsys, monkeypatch  # type: ignore[no-untyped-def]
) -> None:
    """Issue 29: a cell the theory cannot decide, but where a run recognized the language, is
    marked (not "—"): it is the interesting kind of cell."""
    import pandas as pd

    import expressivity.analysis.prediction_table as classes

    real = classes.predictions

    def unknown_for_hybrid(languages, layouts, n_layers=None, n_heads=None):  # type: ignore[no-untyped-def]
        frame = real(languages, layouts, n_layers, n_heads)
        frame.loc[frame["layout"] == "hybrid-1", "predicted"] = "unknown"
        return frame

    monkeypatch.setattr(classes, "predictions", unknown_for_hybrid)
    db = tmp_path / "quick.db"
    shutil.copy(SHIPPED, db)
    assert main(["results", str(db)]) == 0
    out = capsys.readouterr().out
    row = next(r for r in out.splitlines() if r.startswith("LT-2") and " hybrid-1 " in r)
    assert row.endswith("? recognized, theory unknown")
    assert "6 cells recognized where the theory is unknown (marked ?)" in out
    assert isinstance(real([("LT-2", "")], ["global"]), pd.DataFrame)
