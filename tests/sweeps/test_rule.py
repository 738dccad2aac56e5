"""A sweep's [rule]: parsed and validated at its line and column; it changes no run."""

from __future__ import annotations

import pytest

from expressivity.errors import ConfigError
from expressivity.sweeps.rule import Rule
from expressivity.sweeps.spec import parse_sweep
from tests.sweeps.test_levers import SPEC

RULE = """
[rule]
lever = "hard"
baseline = "baseline"
alpha = 0.025
"""


def _line(text: str, needle: str) -> int:
    """The 1-based line of the first line of ``text`` that contains ``needle``."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_rule_is_read_and_changes_no_run() -> None:
    plain = parse_sweep(SPEC, "a.toml")
    ruled = parse_sweep(SPEC + RULE, "a.toml")
    assert plain.rule is None
    assert ruled.rule == Rule("hard", "baseline", 0.025)
    assert [r.run_id for r in ruled.expand()] == [r.run_id for r in plain.expand()]
    # stated, a rule is a new registration of the same runs; absent, every hash stays
    assert ruled.spec_hash != plain.spec_hash
    assert parse_sweep(SPEC + "\n# a comment\n", "b.toml").spec_hash == plain.spec_hash
    assert "`hard` learns more proven-yes cells than `baseline`" in ruled.rule.text
    assert "p < 0.025" in ruled.rule.text


@pytest.mark.parametrize(("body", "needle", "message"), [
    ('lever = "hard"\nbaseline = "baseline"\nalpha = 0.05\npower = 0.8\n', "power",
     "unknown field 'power'; allowed: lever, baseline, alpha"),
    ('lever = "hard"\nbaseline = "baseline"\n', "[rule]", "needs 'alpha'"),
    ('lever = "harder"\nbaseline = "baseline"\nalpha = 0.05\n', "harder",
     "lever 'harder' is no [[lever]] of this spec; its levers: 'baseline', 'ssmax', 'hard'"),
    ('lever = "hard"\nbaseline = "v7"\nalpha = 0.05\n', '"v7"',
     "baseline 'v7' is no [[lever]]"),
    ('lever = "hard"\nbaseline = "hard"\nalpha = 0.05\n', "baseline =",
     "baseline and lever are both 'hard'"),
    ('lever = "hard"\nbaseline = "baseline"\nalpha = 0\n', "alpha",
     "alpha must be a number strictly between 0 and 1 (such as 0.05), got 0"),
    ('lever = "hard"\nbaseline = "baseline"\nalpha = 1.5\n', "alpha", "got 1.5"),
    ('lever = "hard"\nbaseline = "baseline"\nalpha = true\n', "alpha", "got True"),
    ('lever = "hard"\nbaseline = "baseline"\nalpha = nan\n', "alpha", "got nan"),
    ('lever = "hard"\nbaseline = "baseline"\nalpha = "0.05"\n', "alpha", "got '0.05'"),
])
def test_a_bad_rule_is_named_at_its_line(body: str, needle: str, message: str) -> None:
    text = SPEC + "\n[rule]\n" + body
    with pytest.raises(ConfigError) as err:
        parse_sweep(text, "a.toml")
    assert message in str(err.value)
    line = _line(text[text.index("[rule]"):], needle) + _line(text, "[rule]") - 1
    assert str(err.value).startswith(f"a.toml:{line}:")


def test_a_rule_needs_levers_and_a_table() -> None:
    grid = SPEC[:SPEC.index("[[lever]]")]
    with pytest.raises(ConfigError, match=r"compares two \[\[lever\]\] tables, and this spec "
                                          r"has none"):
        parse_sweep(grid + RULE, "a.toml")
    with pytest.raises(ConfigError, match=r"use a \[rule\] table"):
        parse_sweep(SPEC + '\n[[rule]]\nlever = "hard"\n', "a.toml")


def test_a_rule_value_checks_its_alpha() -> None:
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        Rule("a", "b", 1.0)
