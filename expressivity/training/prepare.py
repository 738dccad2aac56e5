"""From a `RunSpec` to what a run needs: resolved language, model and split configs, data splits."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: splits may be built twice, never wrong
    fcntl = None  # type: ignore[assignment]

from expressivity.config import stable_hash, to_plain
from expressivity.disk import disk_space
from expressivity.training.profiles import Profile, get_profile
from expressivity.training.spec import RunSpec

if TYPE_CHECKING:
    from expressivity.data.splits import DatasetSplits, SplitConfig
    from expressivity.models.config import ModelConfig
    from expressivity.resolve import Source

__all__ = [
    "Prepared", "check_spec", "dataset_hash", "derived_seed", "load_splits", "prepare",
    "verified_splits",
]

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
    from expressivity.training.step_penalty import check_step_penalty
    from expressivity.training.write_penalty import check_write_penalty

    profile = get_profile(spec.profile)
    model_config = profile.model_config(spec.layout, spec.model)
    t = spec.train
    check_step_penalty(t.step_penalty, model_config, t.step_penalty_cap, t.step_penalty_start,
                       t.steps, channels=t.step_penalty_channels, form=t.step_penalty_form)
    check_write_penalty(t.write_penalty, model_config, t.write_penalty_start, t.steps,
                        t.write_penalty_form)
    return profile, model_config, profile.split_config(spec.data)


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

    The key is the language's DFA hash, its name, the split config, the seed and the toolkit
    version, so every layout, model and learning rate of a sweep shares one build per
    (language, data seed, profile). A cached copy is verified on load (`verified_splits`); one
    that is unreadable or fails a check is rebuilt and replaced, never trusted. Processes that
    need the same splits at once build them once: the others wait on a lock file
    ``<cache_dir>/<key>.lock`` and load the result. In a development tree whose data generator
    changed, delete the cache directory (the version in the key does not see such a change).
    """
    from expressivity._version import __version__
    from expressivity.data.heldout import dfa_hash
    from expressivity.data.splits import make_splits

    inputs = {"dfa": dfa_hash(source.dfa), "name": source.name, "config": to_plain(config),
              "seed": seed, "version": __version__}
    key = stable_hash(inputs, length=20)
    if key in _MEMORY:
        _MEMORY.move_to_end(key)
        return _MEMORY[key]
    path = Path(cache_dir) / key if cache_dir is not None else None
    splits = verified_splits(path, inputs, source) if path is not None else None
    if splits is None:
        with _build_lock(path):
            if path is not None:  # another process may have built them while we waited
                splits = verified_splits(path, inputs, source, quiet=True)
            if splits is None:
                splits = make_splits(source.dfa, config, seed, name=source.name)
                if path is not None:
                    try:
                        _store(path, inputs, splits)
                    except OSError as err:  # a full disk: the cache is an aid, the run goes on
                        log.warning("split cache %s not written (%s); %s", path,
                                    err.strerror, disk_space(path.parent))
    _MEMORY[key] = splits
    while len(_MEMORY) > _MEMORY_SIZE:
        _MEMORY.popitem(last=False)
    return splits


_MANIFEST = "manifest.json"


def verified_splits(
    path: Path, inputs: dict[str, Any], source: Source, *, quiet: bool = False
) -> DatasetSplits | None:
    """The splits cached at ``path`` if they pass every check, else None (logged).

    Checks: the manifest names the same inputs (DFA hash, name, split config, seed, version);
    the splits hash to the manifest's `dataset_hash` (no word, label or metadata changed);
    every split was drawn from that DFA (its provenance); every label is the DFA's verdict on
    its word.
    """
    from expressivity.data.splits import DatasetSplits

    if not (path / _MANIFEST).exists():
        if path.exists() and not quiet:
            log.warning("rebuilding split cache %s: it has no manifest", path)
        return None
    try:
        manifest = json.loads((path / _MANIFEST).read_text("utf-8"))
        splits = DatasetSplits.load(path)
        problem = _cache_problem(manifest, splits, inputs, source)
    except Exception as err:  # a damaged cache is rebuilt, never trusted
        problem = f"unreadable ({type(err).__name__}: {err})"
    if problem:
        log.warning("rebuilding split cache %s: %s", path, problem)
        return None
    return splits


def _cache_problem(manifest: dict[str, Any], splits: DatasetSplits, inputs: dict[str, Any],
                   source: Source) -> str:
    """What is wrong with cached ``splits`` (empty when nothing is)."""
    if manifest.get("inputs") != json.loads(json.dumps(inputs)):
        return "its manifest is for other inputs"
    if manifest.get("dataset_hash") != dataset_hash(splits):
        return "its contents do not hash to its manifest's dataset hash"
    for name in splits:
        ds = splits[name]
        if ds.provenance.dfa_hash != inputs["dfa"]:
            return f"split {name} was drawn from another DFA"
        width = int(ds.lengths.max()) if len(ds) else 0
        codes = np.zeros((len(ds), width), dtype=np.int64)
        rows = np.repeat(np.arange(len(ds)), ds.lengths)
        cols = np.arange(ds.offsets[-1]) - np.repeat(ds.offsets[:-1], ds.lengths)
        codes[rows, cols] = ds.codes
        if not np.array_equal(source.dfa.accepts_codes(codes, ds.lengths), ds.labels):
            return f"split {name} has labels that are not the DFA's verdicts"
    return ""


def _store(path: Path, inputs: dict[str, Any], splits: DatasetSplits) -> None:
    """Write ``splits`` and their manifest to ``path`` atomically (replacing a bad copy)."""
    # unique per process and thread: a Dask worker runs several runs in one process
    tag = f"{os.getpid()}-{threading.get_ident()}"
    tmp = path.with_name(f"{path.name}.tmp{tag}")
    splits.save(tmp)
    doc = {"inputs": inputs, "dataset_hash": dataset_hash(splits)}
    (tmp / _MANIFEST).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", "utf-8")
    old = path.with_name(f"{path.name}.old{tag}")
    if path.exists():  # a copy that failed verification
        os.replace(path, old)
    try:
        os.replace(tmp, path)
    except OSError:  # another run cached the same splits meanwhile
        if not path.exists():
            raise
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def _build_lock(path: Path | None) -> Iterator[None]:
    """An exclusive lock on ``<path>.lock`` (POSIX ``flock``; none without a path or fcntl)."""
    if path is None or fcntl is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f"{path.name}.lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


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
