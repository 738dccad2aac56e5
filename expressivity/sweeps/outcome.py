"""A sweep's plan (its runs split by what the store holds) and outcome, and how both read."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.sweeps.grid import SweepSpec
from expressivity.training.spec import RunSpec

__all__ = ["SweepOutcome", "SweepPlan", "groups_text", "plan_text"]


@dataclass(frozen=True)
class SweepPlan:
    """A sweep's runs split by what the store already holds."""

    sweep: SweepSpec
    runs: tuple[RunSpec, ...]  # every distinct run of the sweep, in axis order
    completed: tuple[str, ...]  # run ids already completed (skipped)
    failed: tuple[str, ...]  # run ids that failed before (skipped unless retrying)
    todo: tuple[RunSpec, ...]  # runs to execute now
    #: the note on completed runs of other code (`sweeps.codes.check_plan_code`), if any
    code_note: str | None = None
    #: "until-recognized" (`sweeps.seeds`): runs waiting for an earlier seed of their cell
    waiting: tuple[RunSpec, ...] = ()
    #: "until-recognized": run ids not to run, an earlier seed having recognized their cell
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class SweepOutcome:
    """What one invocation of `run_sweep` did."""

    plan: SweepPlan
    completed: int = 0  # runs completed now
    failed: int = 0  # runs failed now
    interrupted: bool = False
    wall_time: float = 0.0

    @property
    def remaining(self) -> int:
        """Runs of the plan still to do (after an interruption)."""
        return len(self.plan.todo) - self.completed - self.failed


def plan_text(plan: SweepPlan) -> str:
    s = plan.sweep
    retry = len(set(plan.failed) & {r.run_id for r in plan.todo})
    return (
        f"sweep {s.name!r} ({s.path or 'in memory'}): {len(plan.runs)} runs "
        f"({' × '.join(_axis_texts(s)) or 'no axes'}); "
        f"{len(plan.completed)} completed, {len(plan.failed)} failed before"
        f"{f' (retrying {retry})' if retry else ''}; {len(plan.todo)} to run"
        + (_seed_text(plan) if s.seed_policy != "all" else "")
        + (f"\nnote: {plan.code_note}" if plan.code_note else "")
    )


def _seed_text(plan: SweepPlan) -> str:
    return (f" now; seed policy {plan.sweep.seed_policy!r}: {len(plan.skipped)} skipped (an "
            f"earlier seed recognized their cell), {len(plan.waiting)} waiting for an earlier "
            "seed of their cell (each runs only if that seed does not recognize it)")


def _plural(axis: str, n: int) -> str:
    return axis if "." in axis or n == 1 or axis.endswith("s") else axis + "s"


def _axis_texts(s: SweepSpec) -> list[str]:
    """"35 cells", "3 seeds", ... and "10 levers" (the ``[[lever]]`` tables), for the plan."""
    texts = [f"{len(v)} {_plural(k.removesuffix('s'), len(v))}" for k, v in s.axes]
    return [f"{len(s.levers)} {_plural('lever', len(s.levers))}"] * bool(s.levers) + texts


def groups_text(groups: list[tuple[RunSpec, ...]]) -> str:
    if not groups:
        return "ensembles: none to run"
    sizes = sorted((len(g) for g in groups), reverse=True)
    if sizes[0] == 1:
        return f"ensembles: off ({len(groups)} runs one by one)"
    shown = ", ".join(map(str, sizes[:12])) + (", ..." if len(sizes) > 12 else "")
    device = groups[0][0].train.device
    how = ("one batched model" if device.startswith("cuda")
           else "one model, member by member (bitwise the single runs)")
    return f"ensembles: {len(groups)} (members: {shown}); each trains as {how}"
