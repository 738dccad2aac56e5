"""The on-disk split cache: one build per (language, seed, profile), verified on every load."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from expressivity.data.dataset import Dataset
from expressivity.data.splits import DatasetSplits
from expressivity.training import prepare as prep
from expressivity.training import run_spec
from expressivity.training.prepare import dataset_hash, load_splits, prepare


def _cached(cache: Path) -> Path:
    (path,) = [p for p in cache.iterdir() if p.is_dir()]
    return path


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str, prep.Prepared]:
    """Tiny splits of SUFFIX-a built once into ``tmp_path``; the memory cache left empty."""
    monkeypatch.setattr(prep, "_MEMORY", type(prep._MEMORY)())
    run = prepare(run_spec("SUFFIX-a", profile="tiny"), cache_dir=tmp_path)
    prep._MEMORY.clear()
    return tmp_path, run.dataset_hash, run


def _reload(cache: Path, run: prep.Prepared) -> str:
    prep._MEMORY.clear()
    return dataset_hash(load_splits(run.source, run.split_config, run.spec.seed, cache_dir=cache))


def _no_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("the splits were rebuilt")

    monkeypatch.setattr("expressivity.data.splits.make_splits", fail)


def test_a_verified_cache_is_loaded_without_a_rebuild(
    built: tuple[Path, str, prep.Prepared], monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache, want, run = built
    manifest = json.loads((_cached(cache) / "manifest.json").read_text())
    assert manifest["dataset_hash"] == want and manifest["inputs"]["seed"] == run.spec.seed
    _no_builds(monkeypatch)
    assert _reload(cache, run) == want
    # another layout and learning rate of the same language, seed and profile share it
    other = prepare(run_spec("SUFFIX-a", "global", profile="tiny", lr=0.5), cache_dir=cache)
    assert other.dataset_hash == want


def _flip_a_label(path: Path) -> None:
    ds = Dataset.load(path / "train")
    labels = ds.labels.copy()
    labels[0] = not labels[0]
    Dataset(ds.alphabet, ds.codes, ds.offsets, labels, ds.meta, ds.provenance).save(path / "train")


@pytest.mark.parametrize("damage", ["label", "label and manifest", "manifest inputs",
                                    "no manifest", "missing file"])
def test_a_damaged_or_mismatching_cache_is_rebuilt_and_replaced(
    built: tuple[Path, str, prep.Prepared], damage: str, caplog: pytest.LogCaptureFixture,
) -> None:
    cache, want, run = built
    path = _cached(cache)
    manifest_path = path / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    if damage.startswith("label"):
        _flip_a_label(path)
    if damage == "label and manifest":  # the hash agrees: only the DFA check can catch it
        manifest["dataset_hash"] = dataset_hash(DatasetSplits.load(path))
        manifest_path.write_text(json.dumps(manifest))
    if damage == "manifest inputs":
        manifest["inputs"]["seed"] = run.spec.seed + 1
        manifest_path.write_text(json.dumps(manifest))
    if damage == "no manifest":
        manifest_path.unlink()
    if damage == "missing file":
        (path / "test" / "examples.npz").unlink()
    assert _reload(cache, run) == want  # rebuilt: the true splits
    assert "rebuilding split cache" in caplog.text
    expected = {"label": "hash", "label and manifest": "DFA's verdicts",
                "manifest inputs": "other inputs", "no manifest": "no manifest",
                "missing file": "unreadable"}[damage]
    assert expected in caplog.text
    caplog.clear()
    assert _reload(cache, run) == want  # the replaced copy now verifies
    assert "rebuilding" not in caplog.text
    assert np.array_equal(json.loads(manifest_path.read_text())["inputs"]["seed"], run.spec.seed)
