"""Sweep specs: a TOML grid of runs (axes × overrides) read and validated into a `SweepSpec`.

A sweep file (``experiments/*.toml``)::

    [sweep]
    name = "quick"                    # required; names the sweep in the results store
    description = "..."
    profile = "quick"                 # default profile of every run (training.profiles)
    group = "auto"                    # members per ensemble: N, "auto" or "off" (sweeps.ensembles)
    group_by = "shape"                # or "language": ensembles never mix languages
    logic = "ltl"                     # or "ltlf": formula languages read as LTLf (logic.ltlf)
    seed_policy = "all"               # or "until-recognized": a cell's seeds in order, until
                                      # one recognizes it (sweeps.seeds)

    [base]                            # optional: fixed values for every run
    "train.steps" = 500               # any field by dotted name ...
    model = { n_layers = 2 }          # ... or as a (inline) table

    [axes]                            # the Cartesian product of these lists, in this order
    languages = ["SUFFIX-a", "PREFIX-a"]    # (the first axis varies slowest)
    layouts = ["global", "local-1", "hybrid-1"]
    seeds = [0, 1, 2]
    "train.lr" = [1e-4, 3e-4]

    [[override]]                      # applied, in file order, to every run matching `where`
    where = { layout = "local-1" }    # field = value, or field = [values] (any of them)
    set = { "train.steps" = 500 }     # field = value, as in [base]

    [[lever]]                         # optional: the grid once per lever, runs pooled (union)
    name = "ssmax"                    # names the lever in `lever_of` and the analysis tables
    set = { "model.attention_scale" = "ssmax" }   # applied after [base], before the axes

    [rule]                            # optional: the decision the levers were run for
    lever = "ssmax"                   # judged against the baseline (sweeps.rule,
    baseline = "baseline"             # analysis.rule): more proven-yes cells, exact McNemar
    alpha = 0.05                      # p < alpha, every certified "no" held

With ``[[lever]]`` tables the sweep is the union of one grid per lever (an ablation: one lever
at a time, then combinations); a lever with ``set = {}`` is the baseline. Without them it is
one grid. A ``[rule]`` states, before the runs, which lever must beat which; it changes no run
(`sweeps.rule`). Each table is read by `sweeps.spec_tables`.
Fields are the `RunSpec` fields ``language``, ``layout``, ``profile``, ``seed``, ``alphabet``,
``train.<TrainConfig field>``, ``model.<name>`` and ``data.<name>`` (model and data names are
the profile's `ModelConfig` / `SplitConfig` fields). Axis aliases: ``languages``, ``layouts``,
``seeds``, ``profiles``, ``alphabets``, ``lr`` / ``lrs`` / ``learning_rates`` (= ``train.lr``).
An axis ``cells = [["LT-1", "global"], ["PT-2", "hybrid-1"], ...]`` lists (language, layout)
pairs: one axis value per cell, for grids that are not a product of languages and layouts.
Axis presets: ``"train.lr" = "paper"`` is the papers' learning-rate grid (the ``paper``
profile's, {1e-4, 3e-4, 5e-4} [LC25, LC26]; `spec_tables.PRESETS`).
``train.threads`` is an execution setting chosen by the executor (``--jobs``), not part of a
run, so a spec may not set it; ``profile`` is set only in ``[sweep]`` or as an axis. A run's
values are resolved in this order: the profile's defaults (as `training.spec.run_spec`: its
`TrainConfig`, first learning rate and first seed; its step budget therefore comes from the
profile unless the spec sets ``train.steps``), ``[base]``, the axes, then each matching
override (`where` tests the values before any override). Runs that resolve to the same
`RunSpec` are kept once (first wins); the grid is expanded by `sweeps.grid`.

Every error raises `ConfigError` starting ``FILE:LINE:COLUMN:`` and naming the field or value.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from expressivity.errors import ConfigError
from expressivity.sweeps import validate
from expressivity.sweeps.grid import SweepSpec, resolved
from expressivity.sweeps.locate import Locator
from expressivity.sweeps.rule import parse_rule
from expressivity.sweeps.seeds import SEED_POLICIES
from expressivity.sweeps.spec_tables import (
    ALIASES,
    read_axes,
    read_levers,
    read_override,
    read_settings,
    section_table,
)

__all__ = ["in_ltlf", "load_sweep", "parse_sweep"]

_TABLES = {"sweep", "base", "axes", "override", "lever", "rule"}


def load_sweep(path: str | Path) -> SweepSpec:
    """Read, validate and return the sweep spec in a TOML file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"{p}: cannot read sweep spec: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"{p}: a sweep spec is UTF-8 text, but byte {err.start} is not UTF-8 "
            f"({err.object[err.start:err.start + 1]!r}); save the file as UTF-8"
        ) from None
    return parse_sweep(text, str(p))


def parse_sweep(text: str, path: str = "<string>") -> SweepSpec:
    """Parse and validate a sweep spec from TOML text; ``path`` names it in errors."""
    loc = Locator(text, path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        m = re.search(r"at line (\d+), column (\d+)", str(err))
        at = f"{path}:{m.group(1)}:{m.group(2)}" if m else path
        raise ConfigError(f"{at}: invalid TOML: {err}") from None
    for key in data:
        if key not in _TABLES:
            raise ConfigError(
                f"{loc.where(key)}: unknown table [{key}]; allowed: "
                "[sweep], [base], [axes], [[override]], [[lever]], [rule]"
            )
    head = section_table(data, "sweep", loc)
    for key in head:
        if key not in ("name", "description", "profile", "group", "group_by", "logic",
                       "seed_policy"):
            raise ConfigError(
                f"{loc.where('sweep', key)}: [sweep] unknown field {key!r}; "
                "allowed: name, description, profile, group, group_by, logic, seed_policy"
            )
    group = head.get("group", "auto")
    if not (group in ("auto", "off") or (type(group) is int and group >= 1)):
        raise ConfigError(f"{loc.where('sweep', 'group', group)}: [sweep] group must be a "
                          f"number >= 1, \"auto\" or \"off\", got {group!r}")
    group_by = head.get("group_by", "shape")
    if group_by not in ("shape", "language"):
        raise ConfigError(f"{loc.where('sweep', 'group_by', group_by)}: [sweep] group_by must "
                          f"be \"shape\" or \"language\", got {group_by!r}")
    logic = head.get("logic", "ltl")
    if logic not in ("ltl", "ltlf"):
        raise ConfigError(f"{loc.where('sweep', 'logic', logic)}: [sweep] logic must be "
                          f"\"ltl\" or \"ltlf\", got {logic!r}")
    seed_policy = head.get("seed_policy", "all")
    if seed_policy not in SEED_POLICIES:
        raise ConfigError(f"{loc.where('sweep', 'seed_policy', seed_policy)}: [sweep] "
                          f"seed_policy must be {' or '.join(map(repr, SEED_POLICIES))}, "
                          f"got {seed_policy!r}")
    for key in ("name", "description", "profile"):
        if key in head and not isinstance(head[key], str):
            raise ConfigError(f"{loc.where('sweep', key)}: [sweep] {key} must be a string")
    name = head.get("name", "").strip()
    if not name:
        raise ConfigError(f"{loc.where('sweep')}: [sweep] needs a non-empty name")
    profile = head.get("profile", "quick")
    validate.profile(profile, lambda: loc.where("sweep", "profile", profile))

    if logic == "ltlf":
        data = _read_as_ltlf(data)
    base = read_settings(section_table(data, "base", loc), "base", loc, None)
    axes = read_axes(section_table(data, "axes", loc), loc)
    raw = data.get("override", [])
    if not isinstance(raw, list):
        raise ConfigError(f"{loc.where('override')}: use [[override]] (an array of tables)")
    overrides = tuple(read_override(o, i, loc) for i, o in enumerate(raw))
    levers = read_levers(data.get("lever", []), loc)
    rule = parse_rule(data.get("rule"), [lever for lever, _ in levers], loc)
    spec = SweepSpec(name, head.get("description", ""), profile, base, axes, overrides, path, text,
                     group, group_by, logic, levers, rule, seed_policy)
    validate.runs(resolved(spec), loc)
    return spec


def _read_as_ltlf(data: dict[str, Any]) -> dict[str, Any]:
    """The spec's tables with every language value passed through `in_ltlf`."""

    def languages(table: Any) -> Any:
        if not isinstance(table, dict):
            return table
        out = {}
        for key, value in table.items():
            if ALIASES.get(key, key) == "language":
                if isinstance(value, list):
                    value = [in_ltlf(v) if isinstance(v, str) else v for v in value]
                elif isinstance(value, str):
                    value = in_ltlf(value)
            out[key] = value
        return out

    out = {**data, "base": languages(data.get("base", {})), "axes": languages(data.get("axes", {}))}
    if isinstance(data.get("override"), list):
        out["override"] = [
            {**o, "where": languages(o.get("where", {})), "set": languages(o.get("set", {}))}
            if isinstance(o, dict) else o
            for o in data["override"]
        ]
    return out


def in_ltlf(language: str) -> str:
    """A sweep language read with ``logic = "ltlf"``: a formula (``ltl:`` prefix or none)
    becomes ``ltlf:...``; catalogue names (they carry their own logic) and ``re:`` stay."""
    from expressivity.catalogue import find_language

    if language.startswith(("ltlf:", "re:")):
        return language
    if language.startswith("ltl:"):
        return "ltlf:" + language[len("ltl:"):].strip()
    if find_language(language) is not None:
        return language
    return "ltlf:" + language.strip()
