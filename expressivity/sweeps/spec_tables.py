"""The tables of a sweep spec read one by one: field names made canonical, values checked.

`expressivity.sweeps.spec` parses a sweep file and hands each table here: ``[base]`` and a
lever's ``set`` (`read_settings`), ``[axes]`` (`read_axes`, presets and the ``cells`` axis
included), each ``[[override]]`` (`read_override`) and the ``[[lever]]`` array
(`read_levers`). Every error is a `ConfigError` at the file's line and column (`Locator`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from functools import partial
from typing import Any

from expressivity.errors import ConfigError
from expressivity.sweeps import validate
from expressivity.sweeps.locate import Locator
from expressivity.training.profiles import get_profile
from expressivity.training.spec import TrainConfig

__all__ = ["ALIASES", "CELLS_AXIS", "PRESETS", "TOP_FIELDS", "TRAIN_FIELDS", "Override",
           "canonical", "flatten", "read_axes", "read_cells", "read_levers", "read_override",
           "read_settings", "section_table"]

#: Axis and field aliases → canonical dotted field names.
ALIASES: Mapping[str, str] = {
    "languages": "language",
    "layouts": "layout",
    "seeds": "seed",
    "profiles": "profile",
    "alphabets": "alphabet",
    "lr": "train.lr",
    "lrs": "train.lr",
    "learning_rate": "train.lr",
    "learning_rates": "train.lr",
}
#: Named axis values: (field, preset name) → the values it stands for.
PRESETS: Mapping[tuple[str, str], tuple[Any, ...]] = {
    ("train.lr", "paper"): get_profile("paper").learning_rates,
}
TOP_FIELDS = ("language", "layout", "profile", "seed", "alphabet")
TRAIN_FIELDS = tuple(f.name for f in fields(TrainConfig) if f.name != "threads")


@dataclass(frozen=True)
class Override:
    """Set ``values`` on every run whose resolved fields match all of ``where``."""

    where: tuple[tuple[str, tuple[Any, ...]], ...]
    values: tuple[tuple[str, Any], ...]

    def matches(self, run: Mapping[str, Any]) -> bool:
        """Whether a run (dotted field → value) matches every condition."""
        return all(run.get(key) in accepted for key, accepted in self.where)


#: The internal name of the ``cells`` axis (each value a (language, layout) pair).
CELLS_AXIS = "cells"


def read_cells(values: Any, loc: Locator) -> tuple[tuple[str, str], ...]:
    where = loc.where("axes", "cells")
    if not isinstance(values, list) or not values or not all(
            isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)
            for v in values):
        raise ConfigError(f"{where}: [axes] cells must be a non-empty list of [language, "
                          "layout] pairs, e.g. cells = [[\"LT-1\", \"global\"]]")
    for language, layout in values:
        validate.value("language", language, partial(loc.where, "axes", "cells", language))
        validate.value("layout", layout, partial(loc.where, "axes", "cells", layout))
    return tuple((language, layout) for language, layout in values)


def read_levers(raw: Any, loc: Locator) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    shape = "a lever has `name = \"...\"` and `set = {...}`"
    if not isinstance(raw, list):
        raise ConfigError(f"{loc.where('lever')}: use [[lever]] (an array of tables); {shape}")
    out: dict[str, tuple[tuple[str, Any], ...]] = {}
    for i, lever in enumerate(raw):
        at = f"[[lever]] #{i + 1}"
        if not isinstance(lever, dict) or set(lever) - {"name", "set"} or not isinstance(
                lever.get("name"), str) or not isinstance(lever.get("set", {}), dict):
            raise ConfigError(f"{loc.where('lever', index=i)}: {at}: {shape}")
        name = lever["name"].strip()
        if not name or name in out:
            raise ConfigError(f"{loc.where('lever', 'name', index=i)}: {at}: the name must be "
                              f"non-empty and unique, got {lever['name']!r}")
        out[name] = read_settings(lever.get("set", {}), "lever", loc, i)
    return tuple(out.items())


def section_table(data: Mapping[str, Any], name: str, loc: Locator) -> dict[str, Any]:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{loc.where('', name)}: {name} must be a table [{name}]")
    return table


def canonical(key: str, section: str, loc: Locator, index: int | None) -> str:
    """The canonical dotted field name of ``key``; ConfigError naming it if unknown."""
    name = ALIASES.get(key, key)
    head, _, rest = name.partition(".")
    ok = (
        (not rest and name in TOP_FIELDS)
        or (not rest and name in ("model", "data"))
        or (head == "train" and rest in TRAIN_FIELDS)
        or (head in ("model", "data") and rest and "." not in rest)
    )
    if name == "model.layout":
        raise ConfigError(
            f"{loc.where(section, key, index=index)}: [{section}] set the attention layout with "
            "`layout`, not model.layout"
        )
    if name == "train.threads":
        raise ConfigError(
            f"{loc.where(section, key, index=index)}: [{section}] train.threads is chosen by the "
            "executor (threads per job = cores // --jobs), not by the spec"
        )
    if not ok:
        raise ConfigError(
            f"{loc.where(section, key, index=index)}: [{section}] unknown field {key!r}; allowed: "
            f"{', '.join(TOP_FIELDS)}, train.<{'|'.join(TRAIN_FIELDS)}>, model.<name>, data.<name> "
            f"(aliases: {', '.join(ALIASES)})"
        )
    return name


def flatten(table: Mapping[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    """Nested TOML tables → dotted keys; ``model``/``data`` tables are kept whole."""
    for key, value in table.items():
        full = f"{prefix}{key}"
        if isinstance(value, dict) and ALIASES.get(full, full) not in ("model", "data"):
            yield from flatten(value, full + ".")
        else:
            yield full, value


def read_settings(
    table: Mapping[str, Any], section: str, loc: Locator, index: int | None
) -> tuple[tuple[str, Any], ...]:
    out: dict[str, Any] = {}
    for key, value in flatten(table):
        name = canonical(key, section, loc, index)
        if name == "profile" and section != "axes":
            raise ConfigError(
                f"{loc.where(section, key, index=index)}: [{section}] cannot set profile; "
                "use [sweep] profile or a profiles axis"
            )
        validate.value(name, value, partial(loc.where, section, key, value, index=index))
        if name in ("model", "data"):
            for sub, v in value.items():
                out[f"{name}.{sub}"] = v
        else:
            out[name] = value
    return tuple(out.items())


def read_axes(table: Mapping[str, Any], loc: Locator) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    axes: dict[str, tuple[Any, ...]] = {}
    for key, values in flatten(table):
        if key == "cells":
            axes[CELLS_AXIS] = read_cells(values, loc)
            continue
        name = canonical(key, "axes", loc, None)
        if isinstance(values, str) and (name, values) in PRESETS:
            values = list(PRESETS[(name, values)])
        if not isinstance(values, list) or not values:
            raise ConfigError(
                f"{loc.where('axes', key)}: [axes] {key} must be a non-empty list of values "
                "(put a single fixed value under [base]); presets: "
                + ", ".join(f'{f} = "{n}"' for f, n in PRESETS)
            )
        if name in axes:
            raise ConfigError(f"{loc.where('axes', key)}: [axes] {name} is given twice")
        for v in values:
            validate.value(name, v, partial(loc.where, "axes", key, v))
        axes[name] = tuple(values)
    return tuple(axes.items())


def read_override(raw: Any, index: int, loc: Locator) -> Override:
    at = f"[[override]] #{index + 1}"
    shape = "an override has `set = {...}` and optionally `where = {...}`"
    if not isinstance(raw, dict):
        raise ConfigError(f"{loc.where('override', index=index)}: {at}: {shape}")
    for key in raw:
        if key not in ("where", "set"):
            raise ConfigError(
                f"{loc.where('override', key, index=index)}: {at} unknown key {key!r}; {shape}"
            )
    if "set" not in raw:
        raise ConfigError(f"{loc.where('override', index=index)}: {at} has no `set`; {shape}")
    where_raw = raw.get("where", {})
    if not isinstance(where_raw, dict) or not isinstance(raw["set"], dict):
        raise ConfigError(f"{loc.where('override', index=index)}: {at} where/set must be tables")
    where: dict[str, tuple[Any, ...]] = {}
    for key, value in flatten(where_raw):
        name = canonical(key, "override", loc, index)
        accepted = tuple(value) if isinstance(value, list) else (value,)
        for v in accepted:
            validate.value(name, v, partial(loc.where, "override", key, v, index=index))
        where[name] = accepted
    values = read_settings(raw["set"], "override", loc, index)
    return Override(tuple(where.items()), values)
