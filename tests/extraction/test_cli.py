"""`expressivity extract` / `predict` on a store, and the errors for runs that cannot be loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from expressivity.cli import main
from expressivity.errors import StoreError
from expressivity.extraction.runs import load_run
from expressivity.models.construct import construct_language
from expressivity.sweeps.store import ResultsStore
from expressivity.training.spec import LengthMetric, RunRecord, run_spec


def _record(spec, status="completed", checkpoint=""):  # type: ignore[no-untyped-def]
    return RunRecord(run_id=spec.run_id, spec=spec, status=status,
                     error="" if status == "completed" else "TrainingError: diverged",
                     lengths=(LengthMetric(13, 8, 8),), checkpoint=checkpoint)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A store with a completed LT-2 run whose checkpoint holds the constructed (exact)
    transformer, a failed run, a run without checkpoint and one whose file is gone."""
    root = tmp_path_factory.mktemp("store")
    db = root / "s.db"
    exact = run_spec("LT-2", "hybrid-1", "tiny")
    ckpt = construct_language("LT-2")[0].save(root / "lt2.pt")
    failed = run_spec("LT-2", "global", "tiny")
    bare = run_spec("LT-2", "local-1", "tiny")
    gone = run_spec("LT-2", "local-2", "tiny")
    with ResultsStore(db) as st:
        st.record(_record(exact, checkpoint=str(ckpt)))
        st.record(_record(failed, status="failed"))
        st.record(_record(bare))
        st.record(_record(gone, checkpoint=str(root / "missing.pt")))
    return {"db": db, "exact": exact.run_id, "failed": failed.run_id, "bare": bare.run_id,
            "gone": gone.run_id}


def test_extract_prints_the_report(store: dict, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["extract", str(store["exact"])[:6], "--db", str(store["db"]),
                 "--length-bound", "12"])
    out = capsys.readouterr().out
    assert code == 0
    assert "LT-2 with hybrid-1" in out and "the extracted DFA IS the target" in out
    assert "3 states (complete)" in out and "length bound 12" in out


def test_extract_json(store: dict, capsys: pytest.CaptureFixture[str]) -> None:
    main(["extract", str(store["exact"]), "--db", str(store["db"]), "--length-bound", "8",
          "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["equals_target"] and data["complete"] and data["states"] == 3
    assert data["queries"]["learner"] > 0 and data["layout"] == "hybrid-1"


def test_predict_prints_verdicts_and_logits(store: dict,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["predict", str(store["exact"]), "cab", "ba", "eps", "--db",
                 str(store["db"])]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("cab") and "accept  logit +" in lines[0]
    assert "(target: accept)" in lines[0]
    assert "reject  logit -" in lines[1] and lines[2].startswith("ε")


def test_unknown_run_suggests_close_ids(store: dict, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = "0" + str(store["exact"])[1:]
    assert main(["extract", wrong, "--db", str(store["db"])]) == 2
    err = capsys.readouterr().err
    assert f"no run '{wrong}'" in err and str(store["exact"]) in err


def test_failed_run_says_there_is_no_model(store: dict) -> None:
    with pytest.raises(StoreError, match=r"failed .*TrainingError.*rerun"):
        load_run(store["db"], str(store["failed"]))


def test_store_without_checkpoint_says_how_to_keep_them(store: dict) -> None:
    with pytest.raises(StoreError, match=r"keeps no checkpoint.*checkpoints kept"):
        load_run(store["db"], str(store["bare"]))
    with pytest.raises(StoreError, match=r"missing.pt is gone"):
        load_run(store["db"], str(store["gone"]))


def test_missing_store_and_bad_word(store: dict, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["predict", "abc", "ab", "--db", str(tmp_path / "none.db")]) == 2
    assert "no such results store" in capsys.readouterr().err
    assert main(["predict", str(store["exact"]), "abx", "--db", str(store["db"])]) == 2
    assert "x" in capsys.readouterr().err
