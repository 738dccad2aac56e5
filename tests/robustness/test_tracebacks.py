"""Issue 15 item 9 (part): inputs that gave tracebacks or wrong records are clear input errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from expressivity.catalogue import parse_entry
from expressivity.cli import main
from expressivity.errors import CatalogueError, ConfigError
from expressivity.sweeps.spec import load_sweep, parse_sweep


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err, err
    return err


def test_a_negative_seed_is_an_input_error_not_a_failed_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = _error(["train", "LT-2", "--seed=-1", "--profile", "tiny", "--no-resume"], capsys)
    assert "seed: must be a non-negative integer, got -1" in err
    with pytest.raises(ConfigError, match="6:10: seed: must be a non-negative integer, got -1"):
        parse_sweep('[sweep]\nname = "x"\nprofile = "tiny"\n[axes]\nlanguages = ["LT-2"]\n'
                    'seeds = [-1]\n').expand()


def test_a_non_utf8_sweep_spec_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_bytes(b'[sweep]\nname = "x\xff"\n')
    with pytest.raises(ConfigError, match=r"s\.toml: a sweep spec is UTF-8 text, but byte 17"):
        load_sweep(path)


def test_sample_out_naming_an_existing_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "file"
    target.write_text("keep me")
    err = _error(["sample", "LT-2", "--split", "test", "--out", str(target)], capsys)
    assert "is a file, but --out names a folder" in err and target.read_text() == "keep me"


@pytest.mark.parametrize("dfa", [
    {"initial": True, "accepting": [0], "transitions": [[0, 1], [1, 0]]},
    {"initial": 0, "accepting": [True], "transitions": [[0, 1], [1, 0]]},
    {"initial": 0, "accepting": [0], "transitions": [[False, True], [True, False]]},
])
def test_dfa_tables_with_booleans_are_refused(dfa: dict[str, object]) -> None:
    with pytest.raises(CatalogueError, match=r"\[dfa\]"):
        parse_entry({"name": "B", "alphabet": ["a", "b"], "dfa": dfa}, "b.toml")


def _lang(**fields: object) -> dict[str, object]:
    return {"name": "E", "alphabet": ["a", "b"], **fields}


def test_catalogue_regexes_are_validated_at_load() -> None:
    with pytest.raises(CatalogueError, match=r"e\.toml: regex of E: .*"):
        parse_entry(_lang(regex="(a b"), "e.toml")
    with pytest.raises(CatalogueError, match=r"regex of E: symbol 'c' is not in the alphabet"):
        parse_entry(_lang(regex="a c"), "e.toml")


def test_a_formula_and_regex_that_disagree_are_refused_with_the_shortest_word() -> None:
    parse_entry(_lang(formula="P(b & Y a)", regex=".* a b .*"), "e.toml")  # agree: fine
    with pytest.raises(CatalogueError, match=r"differ is 'b a', accepted by the regex only"):
        parse_entry(_lang(formula="P(b & Y a)", regex=".* (a b | b a) .*"), "e.toml")


def test_a_nonregular_entry_with_a_formula_is_refused() -> None:
    with pytest.raises(CatalogueError, match=r"nonregular = 'anbn' but also has formula"):
        parse_entry(_lang(nonregular="anbn", formula="P a"), "e.toml")


def test_train_json_prints_only_json_on_stdout(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    monkeypatch.chdir(tmp_path)  # the run is kept in ./runs/train.db

    argv = ["train", "SUFFIX-a", "--layout", "local-1", "--profile", "tiny", "--steps", "3",
            "--json", "--quiet", "--no-resume"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["status"] == "completed"  # the whole of stdout parses (jq works)


def test_cuda_without_a_gpu_is_an_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    if torch.cuda.is_available():  # the error is about machines without CUDA
        return
    err = _error(["train", "LT-2", "--device", "cuda", "--profile", "tiny"], capsys)
    assert "CUDA is not available on this machine; use --device cpu" in err
