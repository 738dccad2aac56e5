"""Specs beside their twins: a table's runs by key, a pilot's lever beside its baseline."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from expressivity.sweeps.grid import lever_runs
from expressivity.sweeps.spec import load_sweep
from expressivity.training.spec import RunSpec

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


def runs_by_key(table: str) -> dict[tuple[str, str, int, str], RunSpec]:
    """A table's runs (experiments/<table>) by language, layout, seed and readout."""
    return {(r.language, r.layout, r.seed, str(r.model.get("readout"))): r
            for r in load_sweep(EXPERIMENTS / table).expand()}


def seed_0_run_ids(table: str, layouts: set[str]) -> set[str]:
    """The run ids of a table's seed-0 runs of ``layouts`` (experiments/<table>)."""
    return {r.run_id for r in load_sweep(EXPERIMENTS / table).expand()
            if r.layout in layouts and r.seed == 0}


def assert_train_twins(spec: str, baseline: str, lever: str,
                       changed: Mapping[str, tuple[Any, Any]]) -> list[RunSpec]:
    """Check that every run of ``lever`` in experiments/<spec> has a ``baseline`` twin of its
    language, layout and seed that differs only in the training keys ``changed`` (key →
    (lever's value, baseline's value)); return the baseline's runs."""
    levers = lever_runs(load_sweep(EXPERIMENTS / spec))
    twins = {(r.language, r.layout, r.seed): r for r in levers[baseline]}
    assert len(levers[lever]) == len(twins) == len(levers[baseline])
    for r in levers[lever]:
        twin = twins[(r.language, r.layout, r.seed)]
        train, twin_train = asdict(r.train), asdict(twin.train)
        assert {k: (train[k], twin_train[k]) for k in changed} == dict(changed)
        assert {k: v for k, v in train.items() if k not in changed} == {
            k: v for k, v in twin_train.items() if k not in changed}
        assert (r.model, r.data, r.seed) == (twin.model, twin.data, twin.seed)
    return levers[baseline]
