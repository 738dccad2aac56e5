"""How long a sweep will take, read off the wall times of matching runs in stores that exist.

The FLOP and token estimates of `sweeps.estimate` assume every run spends its whole step
budget; early stopping ends most runs far sooner, so a new sweep is better timed by the runs
that already trained the same kind of model. `reference_time` matches each planned run to the
completed runs of one or more reference stores, in three steps, and sums the median wall time
of its match:

1. the same profile, layout, number of layers, length-aware scale and readout;
2. else the same profile and number of layers (any layout);
3. else the same profile.

A run no reference store matches is counted as missing. Wall times are the stores' own (CPU
seconds of one run on its share of the machine, under whatever load it had), so the estimate
is as good as its references; the text says how many runs each step matched.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from expressivity.sweeps.store import ResultsStore
from expressivity.training.profiles import get_profile
from expressivity.training.spec import RunSpec

__all__ = ["ReferenceTime", "reference_time"]

#: (profile, layout, n_layers, attention_scale, readout) of a run.
_Key = tuple[str, str, int, str, str]


@cache
def _profile_layers(profile: str) -> int:
    return int(get_profile(profile).model.get("n_layers", 2))


def _key(profile: str, layout: str, model: dict[str, object]) -> _Key:
    layers = model.get("n_layers")
    return (profile, layout, int(layers) if isinstance(layers, int) else _profile_layers(profile),
            str(model.get("attention_scale", "none")), str(model.get("readout", "eos")))


@dataclass(frozen=True)
class ReferenceTime:
    """The summed median wall time of the planned runs' matches, and how they matched."""

    run_seconds: float
    matched: tuple[int, int, int]  # runs matched at steps 1, 2 and 3
    missing: int  # runs no reference matched (not in run_seconds)
    stores: tuple[str, ...]

    def text(self, jobs: int = 2) -> str:
        """Two lines for a dry run: run-hours, and wall hours at ``jobs`` runs in parallel."""
        hours = self.run_seconds / 3600
        exact, layers, profile = self.matched
        return (f"  from stores      {hours:,.1f} run-hours = {hours / jobs:,.1f} hours with "
                f"--jobs {jobs}, at the median wall time of matching completed runs in "
                f"{', '.join(self.stores)}\n"
                f"                   ({exact} runs matched by layout, depth, scale and readout, "
                f"{layers} by profile and depth, {profile} by profile; {self.missing} unmatched)")


def _references(stores: Iterable[str | Path]) -> list[tuple[_Key, float]]:
    found = []
    for path in stores:
        with ResultsStore(path, create=False) as store:
            runs = store.runs()
        done = runs[(runs["status"] == "completed") & (runs["wall_time"] > 0)]
        for spec, wall in zip(done["spec"], done["wall_time"], strict=True):
            d = json.loads(str(spec))
            found.append((_key(d["profile"], d["layout"], d.get("model") or {}), float(wall)))
    return found


def reference_time(runs: Sequence[RunSpec], stores: Sequence[str | Path]) -> ReferenceTime:
    """`ReferenceTime` of ``runs`` against the completed runs of ``stores`` (read only)."""
    by: list[defaultdict[tuple[object, ...], list[float]]] = [defaultdict(list) for _ in range(3)]
    for key, wall in _references(stores):
        by[0][key].append(wall)
        by[1][key[0], key[2]].append(wall)
        by[2][key[:1]].append(wall)
    medians = [{k: statistics.median(v) for k, v in level.items()} for level in by]
    seconds, matched, missing = 0.0, [0, 0, 0], 0
    for run in runs:
        key = _key(run.profile, run.layout, dict(run.model))
        for i, part in enumerate((key, (key[0], key[2]), key[:1])):
            if part in medians[i]:
                seconds += medians[i][part]
                matched[i] += 1
                break
        else:
            missing += 1
    return ReferenceTime(seconds, (matched[0], matched[1], matched[2]), missing,
                         tuple(str(s) for s in stores))
