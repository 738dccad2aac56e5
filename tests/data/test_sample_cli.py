"""`expressivity sample`: one --profile spelling (quick by default), --show, --format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from expressivity.cli import main
from expressivity.data.dataset import Dataset


def test_quick_is_the_default_profile(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["sample", "LAST", "--out", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    assert "profile quick" in out
    assert "[test] 1920 examples" in out and "41-100" in out  # 60 lengths x 32, not 470 x 512


def test_the_old_quick_flag_is_gone(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(["sample", "LAST", "--out", str(tmp_path), "--quick"])


def test_show_prints_examples(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["sample", "LT-2", "--profile", "tiny", "--out", str(tmp_path), "--show", "4"]) == 0
    rows = [r for r in capsys.readouterr().out.splitlines() if r.lstrip().startswith(("member",
                                                                                   "non-member"))]
    assert len(rows) == 4


@pytest.mark.parametrize("fmt", ["txt", "jsonl"])
def test_text_formats_hold_the_same_examples(tmp_path: Path, fmt: str) -> None:
    base = ["sample", "LT-2", "--profile", "tiny", "--seed", "2", "--split", "all"]
    assert main([*base, "--out", str(tmp_path / "npz")]) == 0
    assert main([*base, "--out", str(tmp_path / fmt), "--format", fmt]) == 0
    for split in ("train", "test", "adversarial"):
        ds = Dataset.load(tmp_path / "npz" / split)
        lines = (tmp_path / fmt / f"{split}.{fmt}").read_text().splitlines()
        assert len(lines) == len(ds)
        for i, line in enumerate(lines):
            if fmt == "txt":
                word, label = line.split("\t")
            else:
                row = json.loads(line)
                word, label = row["word"], str(row["label"])
                assert row["length"] == len(ds.symbols(i)) and row["split"] == split
            assert tuple(word.split()) == ds.symbols(i) and label == str(int(ds.labels[i]))


def test_make_splits_reports_each_split_it_starts() -> None:
    from expressivity.data.splits import make_splits
    from expressivity.resolve import resolve
    from expressivity.training.profiles import get_profile

    seen: list[str] = []
    config = get_profile("tiny").split_config({"splits": ["test", "adversarial"]})
    make_splits(resolve("LAST").dfa, config, 0, progress=seen.append)
    assert seen == ["train", "test", "adversarial"]
