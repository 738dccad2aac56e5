"""A small hand-made results store with known answers, for tests, notebooks and demos.

**Not experimental results.** Every number below was written by hand to exercise the analysis
(each verdict of the predicted-vs-observed table occurs, one run fails, one language has an
alphabet override, the grid has holes); the sweep is named `EXAMPLE_SWEEP` and every run's
``extra`` says ``{"hand_made": true}`` so that no figure drawn from it can pass for a real run.

Each run is tested at lengths 41–44 with 10 strings per length, and on two adversarial
families ("hard" and "adversarial") of 2 examples each. Test outcomes (correct per length):

====  ================  ==========  ===
code  per length        accuracy    N*
====  ================  ==========  ===
P     10, 10, 10, 10    1.000       44
A     10, 10, 9, 10     0.975       42
C     10, 9, 8, 7       0.850       41
B     8, 7, 6, 5        0.650       40 (the training maximum)
====  ================  ==========  ===

Adversarial outcomes: ``+`` = 2/2 and 2/2 (1.0), ``-`` = 2/2 and 0/2 (0.5); ``x`` = a failed run.
"""

from __future__ import annotations

from pathlib import Path

from expressivity.sweeps.store import ResultsStore
from expressivity.training.spec import AdversarialMetric, LengthMetric, RunRecord, RunSpec

__all__ = ["EXAMPLE_OUTCOMES", "EXAMPLE_SWEEP", "example_records", "write_example_store"]

EXAMPLE_SWEEP = "example-hand-made"
LENGTHS = (41, 42, 43, 44)
_PATTERNS = {
    "P": (10, 10, 10, 10),
    "A": (10, 10, 9, 10),
    "C": (10, 9, 8, 7),
    "B": (8, 7, 6, 5),
}

#: (language, alphabet override, layout) → outcome of seed 0 and seed 1, e.g. "P+" or "x".
EXAMPLE_OUTCOMES: dict[tuple[str, str, str], tuple[str, str]] = {
    ("SUFFIX-a", "", "global"): ("B-", "C-"),
    ("SUFFIX-a", "", "local-1"): ("P+", "P+"),
    ("SUFFIX-a", "", "hybrid-1"): ("P+", "A-"),
    ("SUFFIX-ab", "", "global"): ("B-", "B-"),
    ("SUFFIX-ab", "", "local-1"): ("P+", "A+"),
    ("PREFIX-a", "", "global"): ("P+", "P-"),
    ("PREFIX-a", "", "local-1"): ("B-", "B-"),
    ("PREFIX-a", "", "hybrid-1"): ("P-", "P-"),  # perfect on random strings, fooled by pairs
    ("LT-2", "", "global"): ("C-", "B-"),
    ("LT-2", "", "local-1"): ("A-", "C-"),
    ("LT-2", "", "hybrid-1"): ("P+", "C-"),
    ("LT-2", "", "hybrid-2"): ("P+", "A+"),  # classify: unknown
    ("RDP-1", "a,b0,b1", "global"): ("B-", "B-"),
    ("RDP-1", "a,b0,b1", "hybrid-1"): ("P+", "P+"),
    ("DYCK-(1,2)", "", "global"): ("B-", "B-"),
    ("DYCK-(1,2)", "", "local-1"): ("B-", "B-"),
    ("DYCK-(1,2)", "", "hybrid-1"): ("P+", "C-"),  # beyond the prediction
    ("PARITY", "", "global"): ("B-", "x"),
    ("PARITY", "", "local-1"): ("B-", "B-"),
    ("PARITY", "", "hybrid-1"): ("C-", "B-"),
    ("PARITY", "", "hybrid-2"): ("x", "x"),  # no completed runs
    ("CNT", "", "global"): ("C-", "C-"),
    ("CNT", "", "local-1"): ("B-", "B-"),
    ("CNT", "", "hybrid-1"): ("C-", "C-"),
}


def _record(spec: RunSpec, outcome: str) -> RunRecord:
    if outcome == "x":
        return RunRecord(
            spec.run_id, spec, "failed", error="hand-made failure: loss is nan",
            extra={"hand_made": True},
        )
    lengths = tuple(
        LengthMetric(n, 10, c, true_pos=5, true_neg=c - 5, false_pos=10 - c)
        for n, c in zip(LENGTHS, _PATTERNS[outcome[0]], strict=True)
    )
    adversarial = (
        AdversarialMetric("adversarial", 2, 2 if outcome[1] == "+" else 0),
        AdversarialMetric("hard", 2, 2),
    )
    return RunRecord(
        spec.run_id, spec, "completed", lengths=lengths, adversarial=adversarial,
        train_accuracy=1.0, val_accuracy=1.0, steps=100, wall_time=1.0, n_parameters=1000,
        tokens_per_second=1e4,
        extra={"hand_made": True, "short_words": {"n": 511, "correct": 511, "max_length": 8}},
    )


def example_records() -> list[RunRecord]:
    """The hand-made `RunRecord`s of `EXAMPLE_OUTCOMES` (profile "tiny", seeds 0 and 1)."""
    records = []
    for (language, alphabet, layout), outcomes in EXAMPLE_OUTCOMES.items():
        for seed, outcome in enumerate(outcomes):
            spec = RunSpec(language, layout, "tiny", seed, alphabet or None)
            records.append(_record(spec, outcome))
    return records


def write_example_store(path: str | Path) -> Path:
    """Write the hand-made store to ``path`` (replacing an older one) and return the path."""
    path = Path(path)
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)
    records = example_records()
    with ResultsStore(path) as store:
        store.register_sweep(
            EXAMPLE_SWEEP, "hand-made", "expressivity/analysis/example.py",
            "hand-made example results (not a real run)", [r.run_id for r in records],
        )
        for record in records:
            store.record(record)
    return path
