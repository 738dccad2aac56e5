"""Judge a sweep's ``[rule]`` (`sweeps.rule`) from its store: met, not met, or pending.

The lever and its baseline are paired cell by cell as `lever_pairing.lever_pairs` pairs them
(proven-yes under both, unbounded depth, our criterion); the certified "no" cells held are the
lever's own, as `levers.lever_table` counts them. A rule whose levers' runs are not all
completed is *pending*: a decision read off part of a sweep is the one a rule is written to
prevent. Under the seed policy "until-recognized" the runs are those the policy makes: a seed
that an earlier seed of its cell made unnecessary is not waited for.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from expressivity.analysis.lever_pairing import lever_cells, lever_pairs, mcnemar_exact
from expressivity.analysis.levers import lever_table
from expressivity.sweeps.grid import SweepSpec, lever_runs
from expressivity.sweeps.rule import Rule
from expressivity.sweeps.seeds import split_by_seed

__all__ = ["RULE_COLUMNS", "decide", "judge_rule", "sweep_rules"]

#: Columns of `judge_rule`'s row (``only_baseline`` / ``only_lever``: the discordant cells).
RULE_COLUMNS = ("sweep", "rule", "verdict", "runs", "completed", "yes_cells", "baseline_learned",
                "lever_learned", "only_baseline", "only_lever", "p_value", "no_cells", "no_held")


def decide(rule: Rule, only_baseline: int, only_lever: int, no_cells: int, no_held: int) -> str:
    """The verdict, "met" or "not met: " and every reason, for the discordant proven-yes cells
    ``only_baseline`` (learned by the baseline alone) and ``only_lever``, and the lever's
    certified "no" cells."""
    p = mcnemar_exact(only_baseline, only_lever)
    failed = []
    if only_lever <= only_baseline:
        failed.append(f"`{rule.lever}` gains {only_lever} cells and loses {only_baseline}")
    if p >= rule.alpha:
        failed.append(f"p = {p:.2g} is not below {rule.alpha:g}")
    if no_held < no_cells:
        failed.append(f"{no_cells - no_held} of its {no_cells} certified \"no\" cells not held")
    return "not met: " + "; ".join(failed) if failed else "met"


def judge_rule(runs: pd.DataFrame, spec: SweepSpec) -> dict[str, object]:
    """One row (`RULE_COLUMNS`) judging ``spec.rule`` on the store's ``runs`` (a
    `ResultsStore.runs` frame as stored); ``spec`` must have a rule."""
    rule = spec.rule
    if rule is None:
        raise ValueError(f"sweep {spec.name!r} has no [rule] to judge")
    spec = replace(spec, levers=tuple(lever for lever in spec.levers  # the two on trial only
                                      if lever[0] in (rule.baseline, rule.lever)))
    ids = _required(runs, spec, (rule.baseline, rule.lever))
    done = set(runs.loc[runs["status"] == "completed", "run_id"]) & ids
    row: dict[str, object] = dict.fromkeys(RULE_COLUMNS)
    row.update({"sweep": spec.name, "rule": rule.text, "runs": len(ids), "completed": len(done)})
    if len(done) < len(ids):
        row["verdict"] = (f"pending: {len(done)} of the {len(ids)} runs of `{rule.baseline}` "
                          f"and `{rule.lever}` completed")
        return row
    cells = lever_cells(runs, spec)
    pair = lever_pairs({rule.baseline: cells[rule.baseline], rule.lever: cells[rule.lever]},
                       all_pairs=True).iloc[0]  # baseline first, whatever the spec's order
    only_base, only_lever = int(pair["only_a"]), int(pair["only_b"])
    mine = lever_table(runs, spec).set_index("lever").loc[rule.lever]
    no_cells, no_held = int(mine["no_cells"]), int(mine["no_held"])
    row.update({"yes_cells": int(pair["yes_cells"]),
                "baseline_learned": int(pair["both"]) + only_base,
                "lever_learned": int(pair["both"]) + only_lever,
                "only_baseline": only_base, "only_lever": only_lever, "p_value": pair["p_value"],
                "no_cells": no_cells, "no_held": no_held})
    row["verdict"] = decide(rule, only_base, only_lever, no_cells, no_held)
    return row


def _required(runs: pd.DataFrame, spec: SweepSpec, levers: tuple[str, str]) -> set[str]:
    """The run ids of ``levers`` that the sweep makes: every run, or under the seed policy
    "until-recognized" every run but those an earlier seed of their cell made unnecessary by
    recognizing it (`sweeps.seeds.split_by_seed`, from the completed runs of ``runs``)."""
    wanted = lever_runs(spec)
    if spec.seed_policy == "all":
        return {r.run_id for name in levers for r in wanted[name]}
    completed = runs[runs["status"] == "completed"]
    outcomes = dict(zip(completed["run_id"], completed["recognized"].astype(bool), strict=True))
    required: set[str] = set()
    for name in levers:
        todo = [r for r in wanted[name] if r.run_id not in outcomes]
        skipped = {r.run_id for r in split_by_seed(wanted[name], todo, outcomes).skipped}
        required |= {r.run_id for r in wanted[name]} - skipped
    return required


def sweep_rules(runs: pd.DataFrame, specs: dict[str, SweepSpec]) -> pd.DataFrame:
    """`judge_rule` of every sweep of ``specs`` (`levers.chosen_specs`) that states a rule;
    empty (with `RULE_COLUMNS`) when none does."""
    rows = [judge_rule(runs, spec) for spec in specs.values() if spec.rule is not None]
    return pd.DataFrame(rows, columns=list(RULE_COLUMNS))
