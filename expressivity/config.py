"""Typed, validated construction of frozen config dataclasses from plain mappings (TOML, JSON).

Written here rather than taken from a library (issue #14 item 4 weighed dacite, cattrs and
pydantic): the coercer is about 80 lines, names the failing field by its dotted path
(``model.n_layers``), refuses booleans where numbers are expected (``True`` is an ``int`` to
``isinstance``, so a plain type check accepts it) and turns TOML lists into the tuples of frozen
dataclasses; a library would add a dependency and still need those rules around it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from expressivity.errors import ConfigError

T = TypeVar("T")


@functools.cache
def _type_hints(cls: type) -> dict[str, Any]:
    """`typing.get_type_hints`, once per class (it dominated expanding large sweeps)."""
    return typing.get_type_hints(cls)


def from_mapping(cls: type[T], data: Mapping[str, Any], where: str = "") -> T:
    """Build the frozen dataclass ``cls`` from ``data``, checking names and types.

    Unknown keys and values of the wrong type raise `ConfigError` naming the field
    (prefixed by ``where``, e.g. a file and table) and the allowed names or expected type.
    Nested dataclass fields accept nested mappings.
    """
    prefix = f"{where}: " if where else ""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{prefix}expected a table of {cls.__name__} fields, got {data!r}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}  # type: ignore[arg-type]
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(
            f"{prefix}unknown field(s) {', '.join(unknown)} for {cls.__name__}; "
            f"allowed: {', '.join(sorted(fields))}"
        )
    hints = _type_hints(cls)  # type: ignore[arg-type]
    kwargs = {
        name: _coerce(value, hints[name], f"{where}.{name}" if where else name)
        for name, value in data.items()
    }
    try:
        return cls(**kwargs)
    except ConfigError as err:
        raise ConfigError(f"{prefix}{err}") from None


def _coerce(value: Any, hint: Any, field: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in (a for a in args if a is not type(None)):
            try:
                return _coerce(value, arg, field)
            except ConfigError as err:
                errors.append(str(err))
        raise ConfigError(errors[0] if errors else f"{field}: invalid value {value!r}")
    if origin is typing.Literal:
        if value not in args:
            raise ConfigError(f"{field}: {value!r} is not one of {', '.join(map(repr, args))}")
        return value
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return value if isinstance(value, hint) else from_mapping(hint, value, field)
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{field}: expected a list, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_coerce(v, args[0], f"{field}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise ConfigError(f"{field}: expected {len(args)} items, got {len(value)}")
        pairs = enumerate(zip(args, value, strict=True))
        return tuple(_coerce(v, a, f"{field}[{i}]") for i, (a, v) in pairs)
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        if not isinstance(value, Mapping):
            raise ConfigError(f"{field}: expected a table, got {value!r}")
        return dict(value)
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{field}: expected true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{field}: expected an integer, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{field}: expected a number, got {value!r}")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(f"{field}: expected a string, got {value!r}")
        return value
    return value


def to_plain(value: Any) -> Any:
    """A JSON-ready copy of a (nested) config value: dataclasses → dicts, tuples → lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    return value


def stable_hash(value: Any, length: int = 16) -> str:
    """A short, stable SHA-256 hex digest of a config value's canonical JSON."""
    text = json.dumps(to_plain(value), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def parse_overrides(items: Iterable[str], option: str = "--set") -> dict[str, Any]:
    """``FIELD=VALUE`` strings as a mapping for `from_mapping`: VALUE is JSON when it parses
    (``test_lengths=[41,60]``, ``train_size=100``), else the text itself."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{option} expects FIELD=VALUE, got {item!r}")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out
