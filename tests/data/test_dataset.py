"""The Dataset value: ragged access, batches, subsets, and byte-reproducible open storage."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from expressivity.data.dataset import COLUMNS, Dataset, DatasetProvenance
from expressivity.errors import ConfigError
from tests.data.helpers import ABC

PROV = DatasetProvenance("LAST", "0" * 64, 7, json.dumps({"k": 1}), "0.1.0", "test")


def small() -> Dataset:
    words = [np.array([0, 1, 2]), np.array([], dtype=np.int64), np.array([2, 0])]
    return Dataset.from_words(
        ABC,
        words,
        [True, False, True],
        PROV,
        kind=["positive", "negative", "hard"],
        pair_id=[-1, -1, 3],
    )


def test_access() -> None:
    ds = small()
    assert len(ds) == 3
    assert ds.codes.dtype == np.int8 and ds.offsets.tolist() == [0, 3, 3, 5]
    assert ds.lengths.tolist() == [3, 0, 2]
    assert ds.word(0).tolist() == [0, 1, 2] and ds.word(1).size == 0
    assert ds.symbols(2) == ("c", "a")
    words, labels = ds.batch([2, 0])
    assert [w.tolist() for w in words] == [[2, 0], [0, 1, 2]] and labels.tolist() == [True, True]
    assert words[0].dtype == np.int64
    assert ds.kind.tolist() == ["positive", "negative", "hard"]
    assert ds.pair_id.tolist() == [-1, -1, 3]
    assert ds.distance.tolist() == [-1, -1, -1] and ds.edits.tolist() == [0, 0, 0]
    assert ds.per_length() == {0: (0, 1), 2: (1, 0), 3: (1, 0)}
    with pytest.raises(ValueError):
        ds.codes[0] = 1  # read-only value


def test_subset_and_concat() -> None:
    ds = small()
    sub = ds.subset(np.array([False, True, True]))
    assert (
        len(sub) == 2
        and sub.word(1).tolist() == [2, 0]
        and sub.kind.tolist() == ["negative", "hard"]
    )
    both = Dataset.concat([ds, sub])
    assert len(both) == 5 and both.word(4).tolist() == [2, 0]
    assert ds.subset([]).codes.size == 0


def test_save_load_round_trip_is_byte_identical(tmp_path: Path) -> None:
    ds = small()
    ds.save(tmp_path / "a")
    back = Dataset.load(tmp_path / "a")
    assert back.alphabet == ds.alphabet and back.provenance == ds.provenance
    assert np.array_equal(back.codes, ds.codes) and np.array_equal(back.labels, ds.labels)
    for name in COLUMNS:
        assert np.array_equal(back.meta[name], ds.meta[name])
    back.save(tmp_path / "b")
    for name in ("examples.npz", "dataset.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    with np.load(tmp_path / "a" / "examples.npz") as npz:  # an ordinary .npz
        assert set(npz.files) == {"codes", "offsets", "labels", *COLUMNS}
    doc = json.loads((tmp_path / "a" / "dataset.json").read_text())
    assert doc["provenance"]["config"] == {"k": 1} and doc["alphabet"] == ["a", "b", "c"]


def test_invalid_values_are_rejected(tmp_path: Path) -> None:
    ds = small()
    with pytest.raises(ConfigError, match="offsets"):
        Dataset(ds.alphabet, ds.codes, np.array([0, 3, 5]), ds.labels, ds.meta, PROV)
    with pytest.raises(ConfigError, match="column 'kind'"):
        Dataset(
            ds.alphabet, ds.codes, ds.offsets, ds.labels, {**ds.meta, "kind": ds.kind[:2]}, PROV
        )
    with pytest.raises(ConfigError, match=r"no dataset\.json"):
        Dataset.load(tmp_path)
