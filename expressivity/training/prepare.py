"""From a `RunSpec` to what a run needs: resolved language, model and split configs, data splits."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from expressivity.config import stable_hash, to_plain
from expressivity.disk import disk_space
from expressivity.training.profiles import Profile, get_profile
from expressivity.training.spec import RunSpec

if TYPE_CHECKING:
    from expressivity.data.splits import DatasetSplits, SplitConfig
    from expressivity.models.config import ModelConfig
    from expressivity.resolve import Source

__all__ = ["Prepared", "check_spec", "dataset_hash", "derived_seed", "load_splits", "prepare"]

log = logging.getLogger(__name__)
_MEMORY: OrderedDict[str, DatasetSplits] = OrderedDict()  # recently built splits, by cache key
_MEMORY_SIZE = 8


@dataclass(frozen=True)
class Prepared:
    """A resolved run: profile, language source, validated configs and the data splits."""

    spec: RunSpec
    profile: Profile
    source: Source
    model_config: ModelConfig
    split_config: SplitConfig
    splits: DatasetSplits
    dataset_hash: str
    data_seconds: float

    @property
    def max_train_length(self) -> int:
        """The longest training length (the N* floor)."""
        return int(self.split_config.train_lengths[1])

    def resolved_config(self) -> dict[str, Any]:
        """Plain JSON of everything that determines the run (stored in checkpoints and records)."""
        return {
            "spec": self.spec.to_dict(),
            "language": self.source.name,
            "alphabet": list(self.source.alphabet.symbols),
            "model": self.model_config.to_dict(),
            "data": to_plain(self.split_config),
            "dataset_hash": self.dataset_hash,
        }


def check_spec(spec: RunSpec) -> tuple[Profile, ModelConfig, SplitConfig]:
    """Validate a spec cheaply (no language, no data): `ConfigError` names the bad field."""
    profile = get_profile(spec.profile)
    return profile, profile.model_config(spec.layout, spec.model), profile.split_config(spec.data)


def prepare(spec: RunSpec, *, cache_dir: str | os.PathLike[str] | None = None) -> Prepared:
    """Resolve the language and configs of ``spec`` and build (or load) its data splits.

    The splits depend only on the language, split config and seed, so runs differing in
    layout, model or learning rate share them: they are kept in memory for the process and,
    with ``cache_dir``, on disk under ``cache_dir/<key>/``.
    """
    from expressivity.resolve import resolve

    profile, model_config, split_config = check_spec(spec)
    source = resolve(spec.language, spec.alphabet)
    start = time.perf_counter()
    splits = load_splits(source, split_config, spec.seed, cache_dir=cache_dir)
    return Prepared(
        spec=spec,
        profile=profile,
        source=source,
        model_config=model_config,
        split_config=split_config,
        splits=splits,
        dataset_hash=dataset_hash(splits),
        data_seconds=time.perf_counter() - start,
    )


def load_splits(
    source: Source,
    config: SplitConfig,
    seed: int,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
) -> DatasetSplits:
    """`make_splits` with a memory cache and an optional on-disk cache (same arrays either way).

    The key is the language's DFA, the split config, the seed and the toolkit version; in a
    development tree whose data generator changed, delete the cache directory.
    """
    from expressivity._version import __version__
    from expressivity.data.heldout import dfa_hash
    from expressivity.data.splits import DatasetSplits, make_splits

    key = stable_hash({"dfa": dfa_hash(source.dfa), "name": source.name, "config": config,
                       "seed": seed, "version": __version__}, length=20)
    if key in _MEMORY:
        _MEMORY.move_to_end(key)
        return _MEMORY[key]
    path = Path(cache_dir) / key if cache_dir is not None else None
    splits = None
    if path is not None and (path / "splits.json").exists():
        try:
            splits = DatasetSplits.load(path)
        except Exception as err:  # a damaged cache is rebuilt, never trusted
            log.warning("ignoring unreadable split cache %s: %s", path, err)
    if splits is None:
        splits = make_splits(source.dfa, config, seed, name=source.name)
        if path is not None:
            # unique per process and thread: a Dask worker runs several runs in one process
            tmp = path.with_name(f"{key}.tmp{os.getpid()}-{threading.get_ident()}")
            try:
                splits.save(tmp)
                os.replace(tmp, path)
            except OSError as err:  # another run cached them meanwhile, or a full disk
                if not path.exists():  # the cache is an aid: the run goes on without it
                    log.warning("split cache %s not written (%s); %s", path, err.strerror,
                                disk_space(path.parent))
            shutil.rmtree(tmp, ignore_errors=True)
    _MEMORY[key] = splits
    while len(_MEMORY) > _MEMORY_SIZE:
        _MEMORY.popitem(last=False)
    return splits


def dataset_hash(splits: DatasetSplits) -> str:
    """SHA-256 (16 hex digits) of every split's words, labels and metadata, in split order."""
    h = hashlib.sha256()
    for name in splits:
        ds = splits[name]
        h.update(name.encode())
        h.update(ds.provenance.dfa_hash.encode())
        for arr in (ds.codes, ds.offsets, ds.labels, *(ds.meta[k] for k in sorted(ds.meta))):
            h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()[:16]


def derived_seed(seed: int, *purpose: int) -> int:
    """An independent 63-bit seed for one purpose of a run (model init, batch order, ...)."""
    state = np.random.SeedSequence([seed, *purpose]).generate_state(2, dtype=np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1]))
