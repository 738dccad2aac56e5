"""The `Dataset` value: ragged encoded words, labels, per-example metadata and provenance.

Storage is open and byte-reproducible: ``examples.npz`` (a zip of ``.npy`` arrays with fixed
timestamps, readable by ``numpy.load``) beside ``dataset.json`` (alphabet, provenance and the
generator config, keys sorted). The same seed gives byte-identical files.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from expressivity.alphabet import Alphabet, Word
from expressivity.errors import ConfigError

__all__ = ["COLUMNS", "KINDS", "Dataset", "DatasetProvenance"]

#: Example kinds: sampled members, uniform non-members, perturbed positives, edit-distance-1
#: hard negatives, and members/non-members of fragment-fooling adversarial pairs.
KINDS = ("positive", "negative", "perturbed", "hard", "adversarial")
#: Per-example metadata columns (besides codes/offsets/labels) and their dtypes.
COLUMNS: Mapping[str, str] = {
    "split": "<U16",
    "kind": "<U12",
    "edits": "int16",  # edits applied to make a perturbed/hard negative (0 otherwise)
    "distance": "int32",  # edit distance to the language (0 for members, -1 if not computed)
    "pair_id": "int64",  # shared by the two words of a pair (-1 if unpaired)
    "family": "<U8",  # adversarial family: lc25, lc26, type ("" otherwise)
    "fragment": "<U24",  # the fragment a pair fools, e.g. LTL[P] ("" otherwise)
    "depth": "int32",  # formula depth up to which the pair agrees (-1 otherwise)
}
_NPZ = "examples.npz"
_JSON = "dataset.json"
_FORMAT = 1


@dataclass(frozen=True)
class DatasetProvenance:
    """Where a dataset came from: enough to regenerate it byte for byte."""

    language: str
    dfa_hash: str  # sha256 of the canonical minimal DFA (see `splits.dfa_hash`)
    seed: int
    config: str  # the generator config as canonical JSON
    version: str  # toolkit version
    split: str = ""

    def __post_init__(self) -> None:
        try:
            plain = json.loads(self.config)
        except json.JSONDecodeError:
            raise ConfigError(f"provenance config must be JSON, got {self.config!r}") from None
        object.__setattr__(self, "config", json.dumps(plain, sort_keys=True, separators=(",", ":")))


@dataclass(frozen=True, eq=False)
class Dataset:
    """Labelled words over ``alphabet``: word ``i`` is ``codes[offsets[i]:offsets[i+1]]``."""

    alphabet: Alphabet
    codes: np.ndarray  # (total symbols,) int8 (int16 for |Σ| > 127)
    offsets: np.ndarray  # (n + 1,) int64, offsets[0] == 0
    labels: np.ndarray  # (n,) bool: membership
    meta: Mapping[str, np.ndarray]  # the COLUMNS, each (n,)
    provenance: DatasetProvenance
    lengths: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n = self.labels.shape[0]
        offsets = np.asarray(self.offsets, dtype=np.int64)
        if offsets.shape != (n + 1,) or offsets[0] != 0 or offsets[-1] != self.codes.shape[0]:
            raise ConfigError(f"offsets must be (n+1,) from 0 to {self.codes.shape[0]}")
        meta = {}
        for name, dtype in COLUMNS.items():
            col = np.asarray(self.meta[name], dtype=dtype) if name in self.meta else None
            if col is None or col.shape != (n,):
                raise ConfigError(f"metadata column {name!r} must have shape ({n},)")
            meta[name] = col
        arrays = {"codes": self.codes, "offsets": offsets, "labels": self.labels.astype(bool)}
        for name, arr in [*arrays.items(), *meta.items()]:
            arr = np.ascontiguousarray(arr)
            arr.setflags(write=False)
            if name in arrays:
                object.__setattr__(self, name, arr)
            else:
                meta[name] = arr
        object.__setattr__(self, "meta", meta)
        lengths = np.diff(offsets)
        lengths.setflags(write=False)
        object.__setattr__(self, "lengths", lengths)

    # ------------------------------------------------------------ access
    def __len__(self) -> int:
        return int(self.labels.shape[0])

    @property
    def split(self) -> np.ndarray:
        """Per-example split name."""
        return self.meta["split"]

    @property
    def kind(self) -> np.ndarray:
        """Per-example kind (one of `KINDS`)."""
        return self.meta["kind"]

    @property
    def edits(self) -> np.ndarray:
        """Edits applied to make a perturbed or hard negative (0 otherwise)."""
        return self.meta["edits"]

    @property
    def distance(self) -> np.ndarray:
        """Exact edit distance to the language (0 for members, -1 where not computed)."""
        return self.meta["distance"]

    @property
    def pair_id(self) -> np.ndarray:
        """Id shared by the two words of a hard or adversarial pair (-1 if unpaired)."""
        return self.meta["pair_id"]

    @property
    def fragment(self) -> np.ndarray:
        """The fragment an adversarial pair fools, e.g. ``LTL[P]`` ("" otherwise)."""
        return self.meta["fragment"]

    def word(self, i: int) -> np.ndarray:
        """The symbol codes of example ``i`` (a read-only view)."""
        return self.codes[self.offsets[i] : self.offsets[i + 1]]

    def symbols(self, i: int) -> Word:
        """Example ``i`` as a tuple of symbol names."""
        return self.alphabet.decode(self.word(i))

    def batch(self, indices: Sequence[int] | np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """The words (int64 arrays for `models.tokens.encode_batch`) and labels of ``indices``."""
        idx = np.asarray(indices, dtype=np.int64)
        return [self.word(int(i)).astype(np.int64) for i in idx], self.labels[idx]

    def subset(self, indices: Sequence[int] | np.ndarray) -> Dataset:
        """The examples at ``indices`` (or a boolean mask), in that order, as a new dataset."""
        idx = np.asarray(indices)
        idx = np.flatnonzero(idx) if idx.dtype == bool else idx.astype(np.int64)
        lengths = self.lengths[idx]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        # position j of the new codes comes from old start of its example + offset within it
        take = np.arange(offsets[-1]) + np.repeat(self.offsets[idx] - offsets[:-1], lengths)
        return Dataset(
            self.alphabet,
            self.codes[take],
            offsets,
            self.labels[idx],
            {k: v[idx] for k, v in self.meta.items()},
            self.provenance,
        )

    def keys(self) -> set[bytes]:
        """Each word's ``tobytes()`` key, as used for exclusion (disjointness) checks."""
        return {self.word(i).tobytes() for i in range(len(self))}

    def per_length(self) -> dict[int, tuple[int, int]]:
        """``{length: (members, non-members)}`` for every length present."""
        total = np.bincount(self.lengths)
        pos = np.bincount(self.lengths, weights=self.labels).astype(np.int64)
        return {n: (int(pos[n]), int(total[n] - pos[n])) for n in np.flatnonzero(total).tolist()}

    # ------------------------------------------------------------ construction
    @classmethod
    def from_words(
        cls,
        alphabet: Alphabet,
        words: Iterable[np.ndarray],
        labels: Sequence[bool] | np.ndarray,
        provenance: DatasetProvenance,
        **columns: Sequence[Any] | np.ndarray,
    ) -> Dataset:
        """Build from a list of code arrays; missing metadata columns take their defaults."""
        words = [np.asarray(w) for w in words]
        n = len(words)
        dtype = np.int8 if len(alphabet) <= 127 else np.int16
        codes = np.concatenate(words).astype(dtype) if n else np.empty(0, dtype=dtype)
        lengths = np.fromiter((w.size for w in words), dtype=np.int64, count=n)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        meta = {name: np.asarray(columns.get(name, _default(name, n))) for name in COLUMNS}
        return cls(alphabet, codes, offsets, np.asarray(labels, dtype=bool), meta, provenance)

    @classmethod
    def concat(
        cls, parts: Sequence[Dataset], provenance: DatasetProvenance | None = None
    ) -> Dataset:
        """The examples of ``parts`` one after another (same alphabet)."""
        if not parts:
            raise ConfigError("concat needs at least one dataset")
        alphabet = parts[0].alphabet
        if any(p.alphabet != alphabet for p in parts):
            raise ConfigError("cannot concatenate datasets over different alphabets")
        lengths = np.concatenate([p.lengths for p in parts])
        return cls(
            alphabet,
            np.concatenate([p.codes for p in parts]),
            np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            np.concatenate([p.labels for p in parts]),
            {k: np.concatenate([p.meta[k] for p in parts]) for k in COLUMNS},
            provenance or parts[0].provenance,
        )

    # ------------------------------------------------------------ storage
    def save(self, directory: str | Path) -> Path:
        """Write ``examples.npz`` and ``dataset.json`` into ``directory`` (created if needed)."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        arrays = {"codes": self.codes, "offsets": self.offsets, "labels": self.labels, **self.meta}
        with zipfile.ZipFile(out / _NPZ, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name, arr in arrays.items():
                buf = io.BytesIO()
                np.lib.format.write_array(buf, np.asarray(arr), allow_pickle=False)
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zf.writestr(info, buf.getvalue())
        doc = {
            "format": _FORMAT,
            "alphabet": list(self.alphabet.symbols),
            "size": len(self),
            "provenance": {
                **self.provenance.__dict__,
                "config": json.loads(self.provenance.config),
            },
        }
        (out / _JSON).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return out

    @classmethod
    def load(cls, directory: str | Path) -> Dataset:
        """Read a dataset written by `save`."""
        src = Path(directory)
        try:
            doc = json.loads((src / _JSON).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{src} holds no {_JSON}; is it a dataset directory?") from None
        if doc.get("format") != _FORMAT:
            raise ConfigError(f"{src / _JSON}: unsupported dataset format {doc.get('format')!r}")
        prov = dict(doc["provenance"])
        prov["config"] = json.dumps(prov["config"], sort_keys=True, separators=(",", ":"))
        with np.load(src / _NPZ, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        meta = {k: arrays[k] for k in COLUMNS}
        return cls(
            Alphabet(tuple(doc["alphabet"])),
            arrays["codes"],
            arrays["offsets"],
            arrays["labels"],
            meta,
            DatasetProvenance(**prov),
        )


def _default(name: str, n: int) -> np.ndarray:
    if name in ("distance", "pair_id", "depth"):
        return np.full(n, -1, dtype=COLUMNS[name])
    if name == "edits":
        return np.zeros(n, dtype=np.int16)
    return np.full(n, "", dtype=COLUMNS[name])
