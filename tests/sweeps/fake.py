"""Test double for `training.train`: instant, deterministic records for sweep and cluster tests.

`fake_train` has the signature of the real ``train`` (plus keywords that steer it, bound
with `functools.partial`, which stays picklable) and returns a plausible `RunRecord` derived
from the run id, without torch: ``sleep`` seconds per run, failed records for languages in
``fail`` and an exception, as a crashing trainer would raise, for languages in ``crash``.
It lives under tests/ on purpose: its records are made up and must never reach a results table.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from pathlib import Path

from expressivity.training.spec import AdversarialMetric, LengthMetric, RunRecord, RunSpec

__all__ = ["fake_train"]


def fake_train(
    spec: RunSpec,
    *,
    out_dir: str | Path | None = None,
    quiet: bool = False,
    resume: bool = True,
    sleep: float = 0.0,
    fail: Collection[str] = (),
    crash: Collection[str] = (),
) -> RunRecord:
    """A deterministic fake run: accuracy from the run id, failures on request."""
    start = time.perf_counter()
    time.sleep(sleep)
    if spec.language in crash:
        raise RuntimeError(f"fake trainer crashed on {spec.language}")
    if spec.language in fail:
        return RunRecord(
            spec.run_id,
            spec,
            "failed",
            error="fake failure: loss is nan",
            wall_time=time.perf_counter() - start,
        )
    h = int(spec.run_id, 16)
    perfect = h % 3 == 0
    lengths = tuple(
        LengthMetric(n, 8, 8 if perfect or n < 44 + h % 5 else 5 + (h + n) % 3)
        for n in range(41, 49)
    )
    return RunRecord(
        spec.run_id,
        spec,
        "completed",
        lengths=lengths,
        adversarial=(AdversarialMetric("pairs", 4, 4 if perfect else 2),),
        train_accuracy=1.0,
        val_accuracy=1.0 if perfect else 0.9,
        steps=spec.train.steps,
        wall_time=time.perf_counter() - start,
        n_parameters=1000,
        tokens_per_second=1e4,
        checkpoint=str(Path(out_dir) / "fake.pt") if out_dir else "",
        extra={"fake": True, "threads": spec.train.threads,
               "short_words": {"n": 511, "correct": 511 if perfect else 509, "max_length": 8}},
    )


def fake_ensemble(
    specs: list[RunSpec],
    *,
    out_dir: str | Path | None = None,
    quiet: bool = False,
    oom_above: int | None = None,
    log: str | Path | None = None,
) -> list[RunRecord]:
    """`fake_train` for each member; `MemoryError` when the group is larger than
    ``oom_above``; appends the group size to the file ``log`` (one line per call)."""
    if oom_above is not None and len(specs) > oom_above:
        raise MemoryError(f"fake: {len(specs)} members do not fit")
    if log is not None:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{len(specs)}\n")
    return [fake_train(s, out_dir=out_dir, quiet=quiet) for s in specs]
