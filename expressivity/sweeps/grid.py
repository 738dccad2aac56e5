"""A sweep's grid of runs: `SweepSpec` (fixed values, axes, overrides, levers) and its runs.

`sweeps.spec` reads a sweep file into a `SweepSpec`; here the grid is expanded: every lever ×
axis combination (the first axis slowest) is resolved in order — the profile's defaults
(`TrainConfig`, first learning rate and first seed), ``[base]``, the lever's settings, the
axes, then each matching override (`where` tests the values before any override) — and made a
`RunSpec`. Runs that resolve to the same `RunSpec` are kept once (first wins); `lever_runs`
gives each lever's runs apart. `SweepSpec.spec_hash` identifies the sweep's content.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from expressivity.config import stable_hash, to_plain
from expressivity.errors import ConfigError, ExpressivityError
from expressivity.sweeps import validate
from expressivity.sweeps.rule import Rule
from expressivity.sweeps.spec_tables import CELLS_AXIS, Override
from expressivity.training.spec import RunSpec

__all__ = ["PROGRESS_AT", "SweepSpec", "expand", "lever_runs", "resolved"]


@dataclass(frozen=True)
class SweepSpec:
    """A named grid of runs: fixed values, axes (Cartesian product) and overrides."""

    name: str
    description: str = ""
    profile: str = "quick"
    base: tuple[tuple[str, Any], ...] = ()
    axes: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    overrides: tuple[Override, ...] = ()
    path: str = ""
    source: str = field(default="", compare=False, repr=False)
    group: int | str = "auto"  # members per ensemble: a number, "auto" or "off" (execution only)
    group_by: str = "shape"  # ensembles share the model shape ("shape") or also the language
    logic: str = "ltl"  # "ltlf": every formula language is read as LTLf (prefix ``ltlf:``)
    #: (name, settings) of each ``[[lever]]``: the grid is run once per lever (none: once)
    levers: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    #: the decision the levers were run for (``[rule]``), judged by `analysis.rule`
    rule: Rule | None = None
    #: "all" seeds of every cell, or each cell's seeds in order "until-recognized" (`sweeps.seeds`)
    seed_policy: str = "all"

    @property
    def grid_size(self) -> int:
        """Number of axis combinations, times the levers (before removing duplicate runs)."""
        size = max(1, len(self.levers))
        for _, values in self.axes:
            size *= len(values)
        return size

    @property
    def spec_hash(self) -> str:
        """Stable hash of the sweep's content (not of its file path or comments)."""
        content = {
            "name": self.name,
            "profile": self.profile,
            "base": [list(kv) for kv in self.base],
            "axes": [[k, list(v)] for k, v in self.axes],
            "overrides": [to_plain(o) for o in self.overrides],
        }
        if self.logic != "ltl":  # the hash of every earlier (LTL) sweep stays what it was
            content["logic"] = self.logic
        if self.levers:  # likewise for sweeps without [[lever]] tables
            content["levers"] = [[n, [list(kv) for kv in v]] for n, v in self.levers]
        if self.rule is not None:  # a rule changes no run; stated, it is a new registration
            content["rule"] = to_plain(self.rule)
        if self.seed_policy != "all":  # which runs are made: a new registration
            content["seed_policy"] = self.seed_policy
        return stable_hash(content)

    def expand(self) -> list[RunSpec]:
        """The distinct runs of the grid, in axis order (see `expand`)."""
        return expand(self)


#: Grids at least this large show a progress bar (on stderr, when it is a terminal) while expanding.
PROGRESS_AT = 20_000


def expand(spec: SweepSpec) -> list[RunSpec]:
    """The sweep's distinct `RunSpec` values, in axis order (first axis slowest).

    A grid of `PROGRESS_AT` combinations or more shows a progress bar on a terminal
    (expanding validates and hashes every run: about 0.2 ms each).
    """
    from tqdm import tqdm  # not tqdm.auto: it warns in a kernel without ipywidgets

    seen: dict[str, RunSpec] = {}
    spelling: dict[str, str] = {}
    combos = tqdm(resolved(spec), total=spec.grid_size, desc="expanding the grid", unit="run",
                  disable=spec.grid_size < PROGRESS_AT or not sys.stderr.isatty(), file=sys.stderr,
                  leave=False)
    for run in combos:
        if isinstance(run.get("language"), str):  # `lt-2` and `LT-2` are one language
            name = run["language"]
            if name not in spelling:
                spelling[name] = _catalogue_spelling(name)
            run = {**run, "language": spelling[name]}
        try:
            rs = RunSpec.from_dict(_nest(run))
        except ExpressivityError as err:
            raise ConfigError(f"{spec.path or '<string>'}: sweep {spec.name!r}: {err}") from None
        seen.setdefault(rs.run_id, rs)
    return list(seen.values())


def _catalogue_spelling(language: str) -> str:
    """The catalogue's own spelling of a catalogue name (names ignore case), else ``language``."""
    from expressivity.catalogue import get_language

    try:
        return get_language(language).name
    except ExpressivityError:
        return language


def lever_runs(spec: SweepSpec) -> dict[str, list[RunSpec]]:
    """The distinct runs of each lever of ``spec`` (its one grid as lever "" if it has none);
    a run that two levers share appears under both."""
    if not spec.levers:
        return {"": expand(spec)}
    return {name: expand(replace(spec, levers=((name, settings),)))
            for name, settings in spec.levers}


def resolved(spec: SweepSpec) -> Iterable[dict[str, Any]]:
    """Every lever × axis combination as a flat dotted dict, overrides applied, profile
    defaults first."""
    names = [k for k, _ in spec.axes]
    for _, lever in spec.levers or (("", ()),):
        for combo in itertools.product(*(values for _, values in spec.axes)):
            yield _one(spec, lever, dict(zip(names, combo, strict=True)))


def _one(spec: SweepSpec, lever: tuple[tuple[str, Any], ...], axes: dict[str, Any]
         ) -> dict[str, Any]:
    """One run: profile, [base], the lever's settings, the axes, then matching overrides."""
    if CELLS_AXIS in axes:
        language, layout = axes.pop(CELLS_AXIS)
        axes = {**axes, "language": language, "layout": layout}
    run: dict[str, Any] = {"profile": spec.profile, **dict(spec.base), **dict(lever), **axes}
    run = {**validate.profile_defaults(run["profile"]), **run}
    before = dict(run)
    for o in spec.overrides:
        if o.matches(before):
            run.update(o.values)
    return run


def _nest(run: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"train": {}, "model": {}, "data": {}}
    for key, value in run.items():
        head, _, rest = key.partition(".")
        if rest:
            out[head][rest] = value
        elif head in ("model", "data", "train"):
            out[head].update(value)
        else:
            out[head] = value
    return out
