"""Masks shown as grids: the grid is the mask, cell by cell; bad requests are ConfigErrors."""

from __future__ import annotations

import pytest
import torch

from expressivity.errors import ConfigError
from expressivity.models.layouts import parse_layout
from expressivity.models.mask_view import layout_masks, mask_grid, token_labels


def cells(grid: str) -> list[list[int]]:
    """The 0/1 cells of a `mask_grid` (its header and row labels dropped)."""
    return [[int(x) for x in line.split()[1:]] for line in grid.splitlines()[1:]]


def test_grid_is_the_mask() -> None:
    gen = torch.Generator().manual_seed(0)
    mask = torch.rand(7, 7, generator=gen) > 0.5
    grid = mask_grid(mask)
    assert cells(grid) == mask.int().tolist()
    lines = grid.splitlines()
    assert lines[0].split() == token_labels(7) == ["BOS", "w1", "w2", "w3", "w4", "w5", "EOS"]
    assert [line.split()[0] for line in lines[1:]] == token_labels(7)
    assert all(line == line.rstrip() for line in lines)


def test_layout_masks_are_the_models_masks() -> None:
    views = layout_masks("hybrid-1", 6, n_layers=2, n_heads=4)
    layout = parse_layout("hybrid-1", 2, 4)
    assert [v.pattern for v in views] == ["G", "L1"]
    for view in views:
        for layer, head in view.heads:
            assert torch.equal(view.mask, layout.layers[layer][head].mask(6))
    assert views[0].heads == ((0, 0), (0, 1), (1, 0), (1, 1))
    assert "layer 0 heads 0-1, layer 1 heads 0-1" in views[0].describe()


@pytest.mark.parametrize(("kwargs", "what"), [
    ({"length": 1}, "--length"), ({"length": 5000}, "--length"),
    ({"length": 5, "layer": 2}, "--layer"), ({"length": 5, "layer": -1}, "--layer"),
])
def test_bad_requests(kwargs: dict[str, int], what: str) -> None:
    with pytest.raises(ConfigError, match=what):
        layout_masks("global", **kwargs)  # type: ignore[arg-type]
