"""Checks of sweep values against the toolkit: field types, profiles, languages and layouts."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from expressivity.config import from_mapping, to_plain
from expressivity.errors import ConfigError, ExpressivityError
from expressivity.sweeps.locate import Locator
from expressivity.training.spec import RunSpec, TrainConfig

if TYPE_CHECKING:
    from expressivity.training.profiles import Profile

Where = Callable[[], str]


def _profile_object(name: str) -> Profile:
    from expressivity.training.profiles import get_profile

    return get_profile(name)


def profile(name: Any, where: Where) -> None:
    """Check that ``name`` is a known training profile."""
    if not isinstance(name, str):
        raise ConfigError(f"{where()}: profile must be a string, got {name!r}")
    try:
        _profile_object(name)
    except ExpressivityError as err:
        raise ConfigError(f"{where()}: {err}") from None


@cache
def _profile_defaults(name: str) -> tuple[tuple[str, Any], ...]:
    prof = _profile_object(name)
    train = to_plain(prof.train)
    train.pop("threads", None)
    train["lr"] = prof.learning_rates[0]
    return (("seed", prof.seeds[0]), *((f"train.{k}", v) for k, v in train.items()))


def profile_defaults(name: str) -> dict[str, Any]:
    """What a run on profile ``name`` starts from (as `training.spec.run_spec`): its first seed
    and its `TrainConfig` with its first learning rate, as dotted fields (``threads`` left out)."""
    return dict(_profile_defaults(name))


def value(name: str, v: Any, where: Where) -> None:
    """Check one value of the canonical dotted field ``name`` (type and range)."""
    head, _, rest = name.partition(".")
    try:
        if head == "train":
            from_mapping(TrainConfig, {rest: v}, "train")
        elif name in ("model", "data"):
            if not isinstance(v, dict):
                raise ConfigError(f"{name}: expected a table, got {v!r}")
        elif head in ("model", "data"):
            return  # checked against the profile's configs when the runs are resolved
        elif name == "profile":
            profile(v, where)
        else:
            from_mapping(RunSpec, {"language": "x", name: v})
            if name == "language":
                _known_language(v)
    except ConfigError as err:
        message = str(err)
        if message.startswith(where()):
            raise
        raise ConfigError(f"{where()}: {message}") from None


def _known_language(name: str) -> None:
    from expressivity.catalogue import get_language
    from expressivity.errors import CatalogueError

    try:
        get_language(name)
    except CatalogueError as err:
        if name.startswith(("ltl:", "ltlf:", "re:")):
            return  # a formula or regex: needs an alphabet, checked per run
        raise ConfigError(f"language: {err}{_prefix_hint(name)}") from None


def _prefix_hint(text: str) -> str:
    """A hint when ``text`` reads as a formula or a regex: a sweep names those by prefix."""
    from expressivity.automata.regex import compile_regex
    from expressivity.logic.parser import parse

    try:
        parse(text)
        return (f"; it reads as a formula: write \"ltl:{text}\" (or \"ltlf:{text}\" for "
                "LTLf's semantics) and give an alphabet")
    except ExpressivityError:
        pass
    symbols = sorted(set(re.findall(r"[a-z][A-Za-z0-9_]*", text)))
    try:
        compile_regex(text, ",".join(symbols) or "a")
    except ExpressivityError:
        return ""
    return f"; it reads as a regular expression: write \"re:{text}\" and give an alphabet"


def runs(resolved: Iterable[Mapping[str, Any]], loc: Locator) -> None:
    """Check what only a whole run decides: languages over alphabets, model/data, layouts."""
    checked: set[str] = set()
    for run in resolved:
        lang, alphabet = run.get("language"), run.get("alphabet")
        key = repr((lang, alphabet))
        if key not in checked:
            checked.add(key)
            _language_over(lang, alphabet, loc)
        prof = run["profile"]
        model = {k[6:]: v for k, v in run.items() if k.startswith("model.")}
        data = {k[5:]: v for k, v in run.items() if k.startswith("data.")}
        key = repr((prof, run.get("layout", "global"), sorted(model.items()), sorted(data.items())))
        if key not in checked:
            checked.add(key)
            _configs(prof, run.get("layout", "global"), model, data, loc)


def _language_over(lang: Any, alphabet: Any, loc: Locator) -> None:
    if lang is None:
        raise ConfigError(f"{loc.where('axes')}: every run needs a language (axis or [base])")
    from expressivity.catalogue import get_language
    from expressivity.errors import CatalogueError

    try:
        get_language(lang)
        known = True
    except CatalogueError:
        known = False
    if known and alphabet is None:
        return
    if alphabet is None:
        raise ConfigError(
            f"{_anywhere(loc, lang)}: language {lang!r} is not in the catalogue; a formula or "
            "regex (ltl:... / re:...) also needs an alphabet"
        )
    from expressivity.resolve import resolve

    try:
        resolve(lang, alphabet)
    except ExpressivityError as err:
        at = _anywhere(loc, alphabet if known else lang)
        raise ConfigError(f"{at}: language {lang!r} over {alphabet!r}: {err}") from None


def _configs(
    prof: str, layout: Any, model: dict[str, Any], data: dict[str, Any], loc: Locator
) -> None:
    obj = _profile_object(prof)
    try:
        obj.model_config(layout, model)
    except ConfigError as err:
        bad = [k for k in model if k in str(err)]
        raise ConfigError(f"{_anywhere(loc, bad[0] if bad else str(layout))}: {err}") from None
    try:
        obj.split_config(data)
    except ConfigError as err:
        bad = [k for k in data if k in str(err)] or list(data)
        raise ConfigError(f"{_anywhere(loc, bad[0] if bad else 'data')}: {err}") from None


def _anywhere(loc: Locator, text: str) -> str:
    """Position of the first occurrence of ``text`` (quoted, else bare) anywhere in the file."""
    for needle in (f'"{text}"', f"'{text}'", text):
        for i, line in enumerate(loc.lines):
            j = line.find(needle)
            if j >= 0:
                return f"{loc.path or '<string>'}:{i + 1}:{j + 1}"
    return f"{loc.path or '<string>'}:1:1"
