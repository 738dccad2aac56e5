"""Sweep specs: expansion as a Cartesian product with overrides, validation with positions, ids."""

from __future__ import annotations

import io
import re
import sys

import pytest

from expressivity.errors import ConfigError
from expressivity.sweeps.grid import expand
from expressivity.sweeps.spec import parse_sweep
from expressivity.training.spec import RunSpec
from tests.sweeps.conftest import SMALL


def test_expansion_is_the_product_in_axis_order_with_overrides() -> None:
    spec = parse_sweep(SMALL, "small.toml")
    runs = expand(spec)
    assert spec.grid_size == len(runs) == 8
    assert [(r.language, r.layout, r.seed) for r in runs[:4]] == [
        ("SUFFIX-a", "global", 0),
        ("SUFFIX-a", "global", 1),
        ("SUFFIX-a", "local-1", 0),
        ("SUFFIX-a", "local-1", 1),
    ]
    assert {r.train.steps for r in runs if r.layout == "global"} == {7}
    assert {r.train.steps for r in runs if r.layout == "local-1"} == {5}
    assert all(isinstance(r, RunSpec) and r.profile == "tiny" for r in runs)
    assert len({r.run_id for r in runs}) == 8


def test_dotted_nested_and_alias_fields() -> None:
    text = """
[sweep]
name = "x"
profile = "tiny"
[base]
model = { d_model = 16 }
data.test_per_length = 4
[axes]
language = ["LT-2"]
lr = [1e-3, 3e-3]
[axes.train]
batch_size = [8, 16]
[[override]]
where = { "train.lr" = [1e-3], "train.batch_size" = 8 }
set = { "model.n_layers" = 1, seed = 9 }
"""
    runs = parse_sweep(text).expand()
    assert [(r.train.lr, r.train.batch_size) for r in runs] == [
        (1e-3, 8), (1e-3, 16), (3e-3, 8), (3e-3, 16)
    ]
    assert runs[0].model == {"d_model": 16, "n_layers": 1} and runs[0].seed == 9
    assert runs[1].model == {"d_model": 16} and runs[1].seed == 0
    assert all(r.data == {"test_per_length": 4} for r in runs)


def test_run_ids_are_stable_across_formatting_and_change_only_with_values() -> None:
    a = parse_sweep(SMALL).expand()
    reformatted = "# a comment\n" + SMALL.replace('"train.steps" = 7', "train = { steps = 7 }")
    b = parse_sweep(reformatted).expand()
    assert [r.run_id for r in a] == [r.run_id for r in b]
    assert parse_sweep(SMALL).spec_hash == parse_sweep(reformatted).spec_hash
    c = parse_sweep(SMALL.replace("= 5 }", "= 6 }")).expand()
    changed = {r.run_id for r in a} ^ {r.run_id for r in c}
    assert len(changed) == 8  # the four local-1 runs, before and after
    assert all(RunSpec.from_dict(r.to_dict()).run_id == r.run_id for r in a)


def test_duplicate_runs_are_kept_once() -> None:
    text = SMALL.replace("seeds = [0, 1]", "seeds = [0, 1]\n\"train.lr\" = [1e-3, 2e-3]") + (
        '\n[[override]]\nwhere = { layout = "global" }\nset = { "train.lr" = 1e-3 }\n'
    )
    spec = parse_sweep(text)
    assert spec.grid_size == 16
    assert len(spec.expand()) == 12  # global runs collapse onto one learning rate


def _error(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        parse_sweep(text, "exp.toml")
    return str(info.value)


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("old", "new", "needle", "message"),
    [
        ("seeds = [0, 1]", "seedz = [0, 1]", "seedz", r"unknown field 'seedz'"),
        ("seeds = [0, 1]", '"train.lrr" = [1]', "train.lrr", r"unknown field 'train.lrr'"),
        ("seeds = [0, 1]", 'seeds = [0, "one"]', '"one"', r"seed: expected an integer"),
        ('"train.steps" = 7', '"train.steps" = -3', "-3", r"steps: must be > 0"),
        ('"PREFIX-a"]', '"PREFIX-q"]', "PREFIX-q", r"unknown language 'PREFIX-q'"),
        ('profile = "tiny"', 'profile = "huge"', "huge", r"profile 'huge'"),
        ("seeds = [0, 1]", "seeds = []", "seeds", r"non-empty list"),
        ("seeds = [0, 1]", "seeds = 3", "seeds", r"non-empty list"),
        ("set = {", "sett = {", "sett", r"unknown key .sett."),
        ('where = { layout', 'where = { layot', "layot", r"unknown field 'layot'"),
        ('"train.steps" = 5', '"train.threads" = 5', "train.threads", r"chosen by the executor"),
        ("[base]", "[bass]", "[bass]", r"unknown table \[bass\]"),
        ('name = "small"', 'name = "small"\ncolour = "red"', "colour", r"unknown field 'colour'"),
    ],
)
def test_errors_name_the_field_and_its_position(
    old: str, new: str, needle: str, message: str
) -> None:
    text = SMALL.replace(old, new)
    assert text != SMALL
    err = _error(text)
    assert re.search(message, err), err
    m = re.match(r"exp\.toml:(\d+):(\d+): ", err)
    assert m, err
    assert int(m.group(1)) == _line_of(text, needle), err


def test_unknown_layout_and_model_field_are_reported() -> None:
    err = _error(SMALL.replace('"local-1"]', '"lokal-1"]'))
    assert "lokal-1" in err and err.startswith("exp.toml:10:")
    err = _error(SMALL.replace('"train.steps" = 7', '"model.d_modle" = 7'))
    assert "d_modle" in err and err.startswith("exp.toml:6:")


def test_toml_syntax_error_has_a_position() -> None:
    assert re.match(r"exp\.toml:6:17: invalid TOML", _error(SMALL.replace("= 7", "= ")))


def test_formula_languages_need_an_alphabet() -> None:
    text = SMALL.replace('"PREFIX-a"]', '"ltl:Y a"]')
    assert "needs an alphabet" in _error(text)
    ok = parse_sweep(text.replace("[axes]", '[axes]\nalphabets = ["a,b"]'))
    assert {r.alphabet for r in ok.expand()} == {"a,b"}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_large_grid_shows_progress_while_expanding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15 item 8: a huge dry run shows progress instead of minutes of silence."""
    import expressivity.sweeps.grid as grid_module

    sweep = parse_sweep(SMALL)
    for threshold, shown in ((sweep.grid_size, True), (sweep.grid_size + 1, False)):
        monkeypatch.setattr(grid_module, "PROGRESS_AT", threshold)
        terminal = _Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        runs = sweep.expand()
        monkeypatch.undo()
        assert ("expanding the grid" in terminal.getvalue()) is shown
        assert [r.run_id for r in runs] == [r.run_id for r in parse_sweep(SMALL).expand()]


def test_a_bare_formula_gets_a_prefix_hint() -> None:
    err = _error(SMALL.replace('"PREFIX-a"]', '"G(a -> X b)"]'))
    assert 'write "ltl:G(a -> X b)"' in err and '"ltlf:G(a -> X b)"' in err
    err = _error(SMALL.replace('"PREFIX-a"]', '"(a b)* c"]'))
    assert 'write "re:(a b)* c"' in err


def test_logic_ltlf_reads_formula_languages_as_ltlf() -> None:
    languages = '"ltl:G(a -> X b)", "ltl:F a", "re:a*"]\nalphabets = ["a,b"]'
    text = SMALL.replace('"PREFIX-a"]', languages)
    from expressivity.errors import ExpressivityWarning

    with pytest.warns(ExpressivityWarning, match="did you mean --logic ltlf"):
        plain = parse_sweep(text)
    ltlf = parse_sweep(text.replace('profile = "tiny"', 'profile = "tiny"\nlogic = "ltlf"')
                       .replace('"ltl:G(', '"G('))  # bare formulas are formulas here
    languages = {r.language for r in ltlf.expand()}
    assert languages == {"SUFFIX-a", "ltlf:G(a -> X b)", "ltlf:F a", "re:a*"}
    assert plain.spec_hash != ltlf.spec_hash
    with pytest.warns(ExpressivityWarning):
        explicit = parse_sweep(text.replace('profile = "tiny"', 'profile = "tiny"\nlogic = "ltl"'))
    assert explicit.spec_hash == plain.spec_hash  # earlier sweeps keep their hash
    bad = SMALL.replace('profile = "tiny"', 'profile = "tiny"\nlogic = 1')
    assert "logic must be" in _error(bad)
