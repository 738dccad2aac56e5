"""A sweep's seed policy: every seed of a cell, or its seeds in order until one recognizes it.

With ``[sweep] seed_policy = "until-recognized"`` the runs of one cell (runs equal but for
their seed) are made one seed at a time, in the order the spec lists the seeds: a run waits
until every earlier seed of its cell is stored, runs if none of them recognized the language,
and is skipped if one did. The verdict of every cell is then the one "all" gives: a cell is
recognized when some run recognizes it (our criterion), and a cell that seed s recognizes is
recognized whatever its later seeds do, while a cell no seed recognizes runs every seed. The
papers' criterion (some run perfect on the test set) follows too, since a recognizing run is
perfect on the test set; so does every certified "no" (held means no run recognizes it: every
seed runs). What reads only the seeds that ran is what averages over a cell's runs (mean
accuracies, the fraction of recognizing runs).

A failed run counts as not recognizing (its next seed runs), unless it is to be retried. The
runner (`sweeps.runner`) makes the ready runs (`seed_rounds`), plans again and goes on until
nothing waits; each round is resumable like any sweep. Runs reused from other stores
(``--reuse``) are taken the same way, round by round (`taken_in_rounds`): a store of all seeds
gives a sweep of this policy only the runs the policy makes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from expressivity.training.spec import RunSpec

if TYPE_CHECKING:
    from expressivity.sweeps.outcome import SweepPlan

__all__ = ["SEED_POLICIES", "SeedSplit", "cell_key", "plan_outcomes", "seed_rounds",
           "split_by_seed", "taken_in_rounds"]

#: The values of ``[sweep] seed_policy``: every seed, or seeds in order until one recognizes.
SEED_POLICIES = ("all", "until-recognized")


@dataclass(frozen=True)
class SeedSplit:
    """The runs to do of an "until-recognized" sweep, by what their cells' earlier seeds gave."""

    ready: tuple[RunSpec, ...]  # every earlier seed of the cell stored, none recognizing
    waiting: tuple[RunSpec, ...]  # some earlier seed of the cell not stored yet
    skipped: tuple[RunSpec, ...]  # an earlier seed of the cell recognized it


def cell_key(run: RunSpec) -> str:
    """What the runs of one cell share: the run id of ``run`` with its seed set to 0."""
    return run.run_id if run.seed == 0 else replace(run, seed=0).run_id


def split_by_seed(
    runs: Sequence[RunSpec], todo: Sequence[RunSpec], outcomes: Mapping[str, bool]
) -> SeedSplit:
    """``todo`` (runs of ``runs``, the sweep's runs in axis order) split by `SeedSplit`;
    ``outcomes`` maps the run id of every stored run that counts (completed, or failed and not
    to be retried) to whether it recognized its language."""
    to_do = {r.run_id for r in todo}
    earlier: dict[str, list[str]] = {}
    ready: list[RunSpec] = []
    waiting: list[RunSpec] = []
    skipped: list[RunSpec] = []
    for run in runs:
        before = earlier.setdefault(cell_key(run), [])
        if run.run_id in to_do:
            if any(outcomes.get(b) for b in before):
                skipped.append(run)
            elif all(b in outcomes for b in before):
                ready.append(run)
            else:
                waiting.append(run)
        before.append(run.run_id)
    return SeedSplit(tuple(ready), tuple(waiting), tuple(skipped))


def taken_in_rounds(
    runs: Sequence[RunSpec], outcomes: Mapping[str, bool], offered: Mapping[str, bool]
) -> list[str]:
    """The run ids of ``offered`` (run id → its verdict, in another store) that the rounds of
    "until-recognized" reach before anything must be trained: each round takes the ready runs
    on offer, as if made, until no ready run is (``outcomes`` as in `split_by_seed`)."""
    known = dict(outcomes)
    taken: list[str] = []
    todo = [r for r in runs if r.run_id not in known]
    while True:
        new = [r.run_id for r in split_by_seed(runs, todo, known).ready if r.run_id in offered]
        if not new:
            return taken
        known.update({i: offered[i] for i in new})
        taken.extend(new)
        todo = [r for r in todo if r.run_id not in known]


def seed_rounds(plan: SweepPlan, recognized: Mapping[str, bool]) -> SweepPlan:
    """``plan`` under its sweep's seed policy: with "until-recognized", only the runs ready
    now stay to do (`split_by_seed`; ``recognized`` gives the verdict of each
    completed run, failed runs not to do count as not recognizing)."""
    if plan.sweep.seed_policy == "all":
        return plan
    split = split_by_seed(plan.runs, plan.todo, plan_outcomes(plan, recognized))
    return replace(plan, todo=split.ready, waiting=split.waiting,
                   skipped=tuple(r.run_id for r in split.skipped))


def plan_outcomes(plan: SweepPlan, recognized: Mapping[str, bool],
                  offered: Mapping[str, bool] | None = None) -> dict[str, bool]:
    """Run id → recognized, of the plan's completed runs and of its failed runs not to do
    (as not recognizing; those ``offered`` by another store are left out: reuse replaces them)."""
    to_do = {r.run_id for r in plan.todo}
    return {**{f: False for f in plan.failed if f not in to_do and f not in (offered or {})},
            **{c: bool(recognized.get(c)) for c in plan.completed}}
