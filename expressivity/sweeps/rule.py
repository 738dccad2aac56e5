"""A sweep's decision rule (``[rule]``), written before its runs and judged from its store.

An ablation sweep is run to decide something: does this lever go into the next table? Stating
the decision in the spec, before any run, and letting `analysis.rule` judge it from the store
keeps the decision from being made after looking::

    [rule]                    # the decision this sweep was run for
    lever = "hard-step-1"     # the [[lever]] on trial
    baseline = "v7"           # the [[lever]] it must beat
    alpha = 0.05              # the exact McNemar test's threshold (two-sided)

The rule is met when, over the proven-yes cells of both levers (same language and layout;
a cell learned when some run of it is, by our criterion), the lever learns more cells than
the baseline with an exact McNemar p-value below ``alpha`` (`analysis.lever_pairing`), and
the lever holds every certified "no" cell it has. It is judged only once every run of both
levers is stored; before that it is pending.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from expressivity.errors import ConfigError
from expressivity.sweeps.locate import Locator

__all__ = ["RULE_FIELDS", "Rule", "parse_rule"]

#: The fields of a ``[rule]`` table, every one required.
RULE_FIELDS = ("lever", "baseline", "alpha")


@dataclass(frozen=True)
class Rule:
    """``lever`` must learn more proven-yes cells than ``baseline`` (exact McNemar p <
    ``alpha``) and hold every certified "no"."""

    lever: str
    baseline: str
    alpha: float

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must lie strictly between 0 and 1, not {self.alpha!r}")

    @property
    def text(self) -> str:
        """The rule in words, as a results page states it."""
        return (f"`{self.lever}` learns more proven-yes cells than `{self.baseline}` by our "
                f"criterion, exact McNemar p < {self.alpha:g} over the cells of both, and "
                f"holds every certified \"no\"")


def parse_rule(raw: Any, levers: Sequence[str], loc: Locator) -> Rule | None:
    """The ``[rule]`` table ``raw`` of a spec whose ``[[lever]]`` names are ``levers`` (None
    when the spec has none); a `ConfigError` at the offending line and column otherwise."""
    if raw is None:
        return None
    shape = 'a rule has lever = "...", baseline = "..." and alpha = a number in (0, 1)'
    if not isinstance(raw, dict):
        raise ConfigError(f"{loc.where('rule')}: use a [rule] table; {shape}")
    for key in raw:
        if key not in RULE_FIELDS:
            raise ConfigError(f"{loc.where('rule', key)}: [rule] unknown field {key!r}; "
                              f"allowed: {', '.join(RULE_FIELDS)}")
    for key in RULE_FIELDS:
        if key not in raw:
            raise ConfigError(f"{loc.where('rule')}: [rule] needs {key!r}; {shape}")
    if not levers:
        raise ConfigError(f"{loc.where('rule')}: [rule] compares two [[lever]] tables, and "
                          "this spec has none; add them or remove [rule]")
    names = ", ".join(repr(name) for name in levers)
    for key in ("lever", "baseline"):
        if raw[key] not in levers:
            raise ConfigError(f"{loc.where('rule', key, raw[key])}: [rule] {key} "
                              f"{raw[key]!r} is no [[lever]] of this spec; its levers: {names}")
    if raw["lever"] == raw["baseline"]:
        raise ConfigError(f"{loc.where('rule', 'baseline')}: [rule] baseline and lever are "
                          f"both {raw['lever']!r}; a lever is judged against another")
    alpha = raw["alpha"]
    if (isinstance(alpha, bool) or not isinstance(alpha, (int, float))
            or not math.isfinite(alpha) or not 0 < alpha < 1):
        raise ConfigError(f"{loc.where('rule', 'alpha')}: [rule] alpha must be a number "
                          f"strictly between 0 and 1 (such as 0.05), got {alpha!r}")
    return Rule(raw["lever"], raw["baseline"], float(alpha))
