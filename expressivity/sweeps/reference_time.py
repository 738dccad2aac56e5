"""How long a sweep will take, read off the wall times of matching runs in stores that exist.

The FLOP and token estimates of `sweeps.estimate` assume every run spends its whole step
budget; early stopping ends most runs far sooner, so a new sweep is better timed by the runs
that already trained the same kind of model. `reference_time` matches each planned run to the
completed runs of one or more reference stores, in three steps, and sums the median wall time
of its match:

1. the same profile, layout, number of layers, length-aware scale and readout, and the same
   training and data settings (the run spec's ``train`` and ``data``: step budget, learning
   rate, stopping rules, training lengths...) and state-space scan (``model.ssm_scan``: the
   "fused" one trains the selective mixers a quarter faster);
2. else the same as 1 but any training and data settings;
3. else the same profile and number of layers (any layout);
4. else the same profile.

Step 1 exists because the settings move wall time as much as the layout does: a run with the
plateau rule off and three times longer training words is timed by its own kind, not by the
short runs of the standard protocol (the table's mixers took 10-18 s a run; the same mixers
with lengths 0-120 and no plateau rule, minutes).

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

#: (profile, layout, n_layers, attention_scale, readout, training and data settings) of a run.
_Key = tuple[str, str, int, str, str, str]


@cache
def _profile_layers(profile: str) -> int:
    return int(get_profile(profile).model.get("n_layers", 2))


def _key(spec: dict[str, object]) -> _Key:
    """The matching key of a run spec as a plain dict (`RunSpec.to_dict`, as stores keep it);
    its settings are ``train`` (less how it is executed: threads, device) and ``data``."""
    profile, layout = str(spec["profile"]), str(spec["layout"])
    model, train = spec.get("model") or {}, spec.get("train") or {}
    assert isinstance(model, dict) and isinstance(train, dict)
    train = {k: v for k, v in train.items() if k not in ("threads", "device")}
    kind: dict[str, object] = {"train": train, "data": spec.get("data") or {}}
    if model.get("ssm_scan", "chunked") != "chunked":  # a scan moves a mixer's step time
        kind["scan"] = model["ssm_scan"]
    settings = json.dumps(kind, sort_keys=True)
    layers = model.get("n_layers")
    return (profile, layout, int(layers) if isinstance(layers, int) else _profile_layers(profile),
            str(model.get("attention_scale", "none")), str(model.get("readout", "eos")),
            settings)


def _parts(key: _Key) -> tuple[tuple[object, ...], ...]:
    """The keys of the four matching steps, closest first."""
    return key, key[:5], (key[0], key[2]), key[:1]


@dataclass(frozen=True)
class ReferenceTime:
    """The summed median wall time of the planned runs' matches, and how they matched."""

    run_seconds: float
    matched: tuple[int, int, int, int]  # runs matched at steps 1, 2, 3 and 4
    missing: int  # runs no reference matched (not in run_seconds)
    stores: tuple[str, ...]

    def text(self, jobs: int = 2) -> str:
        """Two lines for a dry run: run-hours, and wall hours at ``jobs`` runs in parallel."""
        hours = self.run_seconds / 3600
        same, exact, layers, profile = self.matched
        return (f"  from stores      {hours:,.1f} run-hours = {hours / jobs:,.1f} hours with "
                f"--jobs {jobs}, at the median wall time of matching completed runs in "
                f"{', '.join(self.stores)}\n"
                f"                   ({same} runs matched by layout, depth, scale, readout and "
                f"training settings, {exact} by layout, depth, scale and readout only, "
                f"{layers} by profile and depth, {profile} by profile; {self.missing} unmatched)")


def _references(stores: Iterable[str | Path]) -> list[tuple[_Key, float]]:
    found = []
    for path in stores:
        with ResultsStore(path, create=False) as store:
            runs = store.runs()
        done = runs[(runs["status"] == "completed") & (runs["wall_time"] > 0)]
        for spec, wall in zip(done["spec"], done["wall_time"], strict=True):
            found.append((_key(json.loads(str(spec))), float(wall)))
    return found


def reference_time(runs: Sequence[RunSpec], stores: Sequence[str | Path]) -> ReferenceTime:
    """`ReferenceTime` of ``runs`` against the completed runs of ``stores`` (read only)."""
    by: list[defaultdict[tuple[object, ...], list[float]]] = [defaultdict(list) for _ in range(4)]
    for key, wall in _references(stores):
        for level, part in zip(by, _parts(key), strict=True):
            level[part].append(wall)
    medians = [{k: statistics.median(v) for k, v in level.items()} for level in by]
    seconds, matched, missing = 0.0, [0, 0, 0, 0], 0
    for run in runs:
        for i, part in enumerate(_parts(_key(run.to_dict()))):
            if part in medians[i]:
                seconds += medians[i][part]
                matched[i] += 1
                break
        else:
            missing += 1
    return ReferenceTime(seconds, (matched[0], matched[1], matched[2], matched[3]), missing,
                         tuple(str(s) for s in stores))
