"""Preset spellings as one typed value (layout_spec.Preset), read the same everywhere."""

from __future__ import annotations

import pytest

from expressivity.analysis.classes import theory_layout
from expressivity.layout_spec import PRESET_ARITY, Preset, parse_heads, parse_preset


@pytest.mark.parametrize(
    ("text", "preset"),
    [
        ("global", Preset("global")),
        ("Local-4", Preset("local", (4,))),
        ("hybrid-2:g=3", Preset("hybrid", (2,), 3)),
        (" dilated-2-3 ", Preset("dilated", (2, 3))),
        ("block-4", Preset("block", (4,))),
        ("longformer-2-1", Preset("longformer", (2, 1))),
        ("bigbird-2-2-1", Preset("bigbird", (2, 2, 1))),
        ("interleaved-1", Preset("interleaved", (1,))),
    ],
)
def test_presets_parse_to_values_that_print_back(text: str, preset: Preset) -> None:
    assert parse_preset(text) == preset
    assert parse_preset(str(preset)) == preset
    parse_heads(str(preset), 2, 4)  # the value is a valid spelling


@pytest.mark.parametrize("text", ["L3+R2+T1", "4xG,4xL1", "local", "local-1-2", "global-1",
                                  "local-1:g=2", "dilated-2", "window-3", ""])
def test_everything_else_is_not_a_preset(text: str) -> None:
    assert parse_preset(text) is None


def test_windows_and_the_theory_names() -> None:
    assert [parse_preset(f"{f}-3").window for f in ("local", "hybrid", "block")] == [3, 3, None]
    assert set(PRESET_ARITY) == {"global", "local", "hybrid", "interleaved", "longformer",
                                 "bigbird", "dilated", "block"}
    assert theory_layout("Hybrid-2:g=3") == "hybrid-2"
    assert theory_layout("global") == "global"
    assert theory_layout("dilated-2-2") == "dilated-2-2"
    assert theory_layout("nonsense") is None


def test_a_misspelled_preset_gets_a_suggestion() -> None:
    from expressivity.errors import ConfigError

    with pytest.raises(ConfigError, match=r"did you mean 'hybrid-1'\?"):
        parse_heads("hybird-1", 2, 4)
    with pytest.raises(ConfigError, match=r"did you mean 'local-2'\?"):
        parse_heads("locl-2", 2, 4)
