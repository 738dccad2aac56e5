"""Fixtures of the analysis tests: the hand-made results store (known answers) and its report."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from expressivity.analysis.example import write_example_store
from expressivity.analysis.report import Report
from expressivity.analysis.store_report import build_report
from expressivity.sweeps.store import ResultsStore


@pytest.fixture(scope="session")
def example_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand-made store of `expressivity.analysis.example` (48 runs, 24 cells)."""
    return write_example_store(tmp_path_factory.mktemp("store") / "example.db")


@pytest.fixture(scope="session")
def frames(example_db: Path) -> dict[str, object]:
    """runs, lengths and adversarial frames of the example store."""
    with ResultsStore(example_db, create=False) as store:
        return {
            "runs": store.runs(),
            "lengths": store.lengths(),
            "adversarial": store.adversarial(),
        }


@pytest.fixture(scope="session")
def report(example_db: Path) -> Report:
    """Every table of the example store."""
    return build_report(example_db)
