"""Layout presets, the custom spelling, canonical forms and errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.errors import ConfigError
from expressivity.models.layouts import Atom, Pattern, parse_layout

PRESET_CANONICAL = [
    ("global", 5, 8, "8xG"),
    ("local-2", 5, 8, "8xL2"),
    ("hybrid-1", 5, 8, "4xG,4xL1"),
    ("hybrid-4:g=2", 2, 8, "2xG,6xL4"),
    ("interleaved-2", 3, 4, "1x(4xG);1x(4xL2);1x(4xG)"),
    ("longformer-3-2", 2, 4, "4xL3+T2"),
    ("bigbird-3-2-1", 2, 4, "4xL3+R2+T1"),
    ("dilated-4-2", 2, 4, "4xD4.2"),
    ("block-8", 2, 4, "4xB8"),
    ("  Hybrid-2 ", 1, 2, "1xG,1xL2"),
    ("2x(4xG);3x(L1)", 5, 4, "2x(4xG);3x(4xL1)"),
    ("G,L1+T1,L1+t1,R2", 1, 4, "1xG,2xL1+T1,1xR2"),
]


@pytest.mark.parametrize(("text", "layers", "heads", "canonical"), PRESET_CANONICAL)
def test_canonical_form(text: str, layers: int, heads: int, canonical: str) -> None:
    layout = parse_layout(text, layers, heads)
    assert (layout.n_layers, layout.n_heads) == (layers, heads)
    assert layout.canonical() == canonical
    assert parse_layout(canonical, layers, heads) == layout


def test_hybrid_splits_every_layer() -> None:
    layout = parse_layout("hybrid-3", 4, 6)
    for row in layout.layers:
        assert [str(p) for p in row] == ["G"] * 3 + ["L3"] * 3


def test_union_is_order_free_and_deduplicated() -> None:
    a = parse_layout("T1+L2+L2", 1, 1).layers[0][0]
    assert a == Pattern((Atom("L", (2,)), Atom("T", (1,))))
    assert a.band is None and not a.causal
    assert parse_layout("L2+D1.3+B4", 1, 1).layers[0][0].band == 3


def test_random_heads_get_distinct_reproducible_seeds() -> None:
    layout = parse_layout("R2", 2, 2, seed=5)
    seeds = {p.seed for row in layout.layers for p in row}
    assert len(seeds) == 4
    assert parse_layout("R2", 2, 2, seed=5) == layout
    assert parse_layout("R2", 2, 2, seed=6) != layout


def test_groups_collect_heads_by_pattern() -> None:
    groups = parse_layout("G,L1,G,L1", 1, 4).groups(0)
    assert [(str(p), h) for p, h in groups] == [("G", [0, 2]), ("L1", [1, 3])]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty layout"),
        ("hybrid-2:g=4", "1 <= g <= n_heads - 1"),
        ("local", "takes 1 number"),
        ("local-0", ">= 1"),
        ("Q3", "unknown atom 'Q3'"),
        ("L", "takes 1 number"),
        ("2xG,1xL1", "has 3 heads but the model has 4"),
        ("4xG;4xL1", "spells 2 layers but the model has 3"),
        ("globall", "unknown atom"),
    ],
)
def test_errors_name_field_value_and_hint(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match="layout") as err:
        parse_layout(text, 3, 4)
    assert message in str(err.value)
    assert "spelling such as" in str(err.value)


ATOMS = st.sampled_from(["G", "L1", "L3", "D2.2", "B4", "R1", "T1", "T2"])
PATTERNS = st.lists(ATOMS, min_size=1, max_size=3).map("+".join)


@settings(max_examples=40)
@given(st.lists(st.lists(PATTERNS, min_size=3, max_size=3), min_size=2, max_size=2))
def test_canonical_round_trip(rows: list[list[str]]) -> None:
    text = ";".join(",".join(row) for row in rows)
    layout = parse_layout(text, 2, 3)
    assert parse_layout(layout.canonical(), 2, 3) == layout
