"""Spellings: presets as one typed value (layouts.Preset), read the same everywhere, and the
unsized layout a spelling parses to (rows of head patterns, sized on demand)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from expressivity.analysis.classes import theory_layout
from expressivity.errors import ConfigError
from expressivity.layouts import PRESET_ARITY, Preset, parse_heads, parse_preset, parse_spelling
from expressivity.layouts.encoders import ENCODER_ARITY


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
                                  "local-1:g=2", "dilated-2", "window-3-1", "swin",
                                  "longformer-enc-1-2", "bigbird-1-1-1-sep", ""])
def test_everything_else_is_not_a_preset(text: str) -> None:
    assert parse_preset(text) is None


def test_windows_and_the_theory_names() -> None:
    assert [parse_preset(f"{f}-3").window for f in ("local", "hybrid", "block")] == [3, 3, None]
    assert set(PRESET_ARITY) == {"global", "local", "hybrid", "interleaved", "longformer",
                                 "bigbird", "dilated", "block", "mamba", "mamba-signed", "s4d",
                                 "deltanet", "samba", "jamba", *ENCODER_ARITY}
    assert theory_layout("Hybrid-2:g=3") == "hybrid-2"
    assert theory_layout("global") == "global"
    assert theory_layout("dilated-2-2") == "dilated-2-2"
    assert theory_layout("nonsense") is None


def test_a_misspelled_preset_gets_a_suggestion() -> None:
    with pytest.raises(ConfigError, match=r"did you mean 'hybrid-1'\?"):
        parse_heads("hybird-1", 2, 4)
    with pytest.raises(ConfigError, match=r"did you mean 'local-2'\?"):
        parse_heads("locl-2", 2, 4)


# --- the unsized layout: rows of head patterns, sized on demand ---------------------------

_PATTERNS = ["G", "L1", "L3", "D2.2", "B4", "R2", "L2+T1", "G+T2"]


@st.composite
def _custom(draw: st.DrawFn) -> tuple[str, list[tuple[int, list[tuple[int | None, str]]]], int]:
    """A custom spelling with its structure: rows (repeat, groups (count, pattern)) over a
    common head count (None: one uncounted pattern filling the layer)."""
    heads = draw(st.integers(1, 4))
    rows = []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            groups: list[tuple[int | None, str]] = [(None, draw(st.sampled_from(_PATTERNS)))]
        else:
            cuts = sorted(draw(st.lists(st.integers(1, heads - 1), max_size=2, unique=True))
                          ) if heads > 1 else []
            sizes = [b - a for a, b in zip([0, *cuts], [*cuts, heads], strict=True)]
            groups = [(c, draw(st.sampled_from(_PATTERNS))) for c in sizes]
        rows.append((draw(st.integers(1, 2)), groups))
    text = ";".join(
        (f"{r}x({layer})" if r > 1 or (len(rows) > 1 and draw(st.booleans())) else layer)
        for r, groups in rows
        for layer in [",".join(p if c is None else f"{c}x{p}" for c, p in groups)])
    return text, rows, heads


def _expected(rows: list[tuple[int, list[tuple[int | None, str]]]], layers: int, heads: int
              ) -> list[list[str]] | None:
    out = [[p for c, p in groups for _ in range(heads if c is None else c)]
           for r, groups in rows for _ in range(r)]
    out = out * layers if len(out) == 1 else out
    return out if len(out) == layers else None


def _spelled(rows: tuple[tuple[tuple[object, ...], ...], ...]) -> list[list[str]]:
    return [["+".join(map(str, p)) for p in row] for row in rows]


@given(_custom(), st.integers(1, 5))
def test_sized_rows_expand_the_spelled_structure(case: tuple, layers: int) -> None:  # type: ignore[type-arg]
    text, rows, heads = case
    layout = parse_spelling(text)
    assert parse_spelling(text) is layout  # parsed once per spelling
    want = _expected(rows, layers, heads)
    if want is None:
        with pytest.raises(ConfigError,
                           match=r"spells \d+ layers but the model|but the model has \d+ layers"):
            layout.sized(layers, heads)
    else:
        assert _spelled(layout.sized(layers, heads)) == want
    if any(len(groups) > 1 or groups[0][0] is not None for _, groups in rows):
        with pytest.raises(ConfigError, match=r"heads but the model has|has \d+ heads but"):
            layout.sized(layout.smallest[0], heads + 1)


@pytest.mark.parametrize("text", ["global", "local-3", "hybrid-2", "hybrid-2:g=3", "interleaved-1",
                                  "bigbird-2-2-1", "block-4", "4xG,4xL1", "2x(8xG);3x(8xL2)",
                                  "L3+R2+T1", "G;L1;B2", "0xG,2xL1", "3x(L1);0x(G)"])
def test_the_smallest_size_shows_every_pattern(text: str) -> None:
    layout = parse_spelling(text)
    rows = layout.sized(*layout.smallest)
    assert set(layout.patterns) == {p for row in rows for p in row}
    assert layout.sized(*layout.smallest) == parse_heads(text, *layout.smallest)


@pytest.mark.parametrize(("text", "named"), [
    ("2xG;3xL1", "different head counts (2, 3): no model size fits"),
    ("0x(G)", "it spells 0 layers"), ("0xG", "a layer with 0 heads"),
    ("2000xG", "above the limit 1024"), ("2000x(G)", "repeats a layer 2000 times, above"),
    ("hybrid-1:g=0", "needs 1 <= g"), ("L.3", "unknown atom 'L.3'"),
])
def test_spellings_no_size_fits_are_errors_before_a_size(text: str, named: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(named)):
        parse_spelling(text)
