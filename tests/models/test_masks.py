"""Attention masks cell by cell against the definitions of docs/theory.md §1 and masks.py."""

from __future__ import annotations

import pytest
import torch

from expressivity.models import masks


def table(rows: str) -> list[list[bool]]:
    return [[c == "1" for c in row] for row in rows.split()]


# Literal tables: row n = query token n (BOS = 0), column m = key; 1 = may attend.
CASES = {
    "global strict T=4": (masks.global_mask(4), "1000 1000 1100 1110"),
    "global non-strict T=4": (masks.global_mask(4, strict=False), "1000 1100 1110 1111"),
    "1-local strict T=5": (masks.local_mask(5, 1), "10000 10000 01000 00100 00010"),
    "2-local strict T=6": (masks.local_mask(6, 2), "100000 100000 010000 011000 001100 000110"),
    "2-local non-strict T=5": (
        masks.local_mask(5, 2, strict=False), "10000 01000 01100 01110 00111"
    ),
    "dilated k=2 d=2 T=7": (
        masks.dilated_mask(7, 2, 2),
        "1000000 1000000 1000000 0100000 0010000 0101000 0010100",
    ),
    "block 3 T=7": (
        masks.block_mask(7, 3), "1000000 1000000 0100000 1000000 0001000 0001100 1000000"
    ),
    "global tokens (0,) T=4": (masks.global_tokens_mask(4), "1111 1000 1000 1000"),
    "global tokens (0,2) T=5": (
        masks.global_tokens_mask(5, (0, 2)),
        "11111 10100 11111 10100 10100",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_literal_tables(name: str) -> None:
    mask, expected = CASES[name]
    assert mask.dtype == torch.bool
    assert mask.tolist() == table(expected)


def sink(rows: list[list[bool]]) -> list[list[bool]]:
    return [r if any(r) else [m == 0 for m in range(len(r))] for r in rows]


def theory_local(length: int, k: int, strict: bool) -> list[list[bool]]:
    """[LC26]: max(1, n-k) <= m < n (m <= n non-strict), BOS sink for empty rows."""
    return sink([[max(1, n - k) <= m < n or (not strict and m == n) for m in range(length)]
                 for n in range(length)])


@pytest.mark.parametrize("length", [2, 3, 6, 11])
@pytest.mark.parametrize("k", [1, 2, 3, 7])
@pytest.mark.parametrize("strict", [True, False])
def test_local_matches_definition(length: int, k: int, strict: bool) -> None:
    assert masks.local_mask(length, k, strict=strict).tolist() == theory_local(length, k, strict)


@pytest.mark.parametrize("length", [2, 5, 9])
@pytest.mark.parametrize("strict", [True, False])
def test_global_matches_definition(length: int, strict: bool) -> None:
    expected = sink([[m < n or (not strict and m == n) for m in range(length)]
                     for n in range(length)])
    assert masks.global_mask(length, strict=strict).tolist() == expected


@pytest.mark.parametrize(("k", "d"), [(1, 1), (2, 3), (3, 2)])
def test_dilated_matches_definition(k: int, d: int) -> None:
    length = 12
    expected = sink([[m >= 1 and any(m == n - i * d for i in range(1, k + 1))
                      for m in range(length)] for n in range(length)])
    assert masks.dilated_mask(length, k, d).tolist() == expected
    if d == 1:
        assert torch.equal(masks.dilated_mask(length, k, 1), masks.local_mask(length, k))


@pytest.mark.parametrize("block", [1, 2, 4])
def test_block_matches_definition(block: int) -> None:
    length = 10
    expected = sink([[1 <= m < n and m // block == n // block for m in range(length)]
                     for n in range(length)])
    assert masks.block_mask(length, block).tolist() == expected


def test_local_window_reaching_bos_excludes_it() -> None:
    """Position 2 of a 4-local head sees only position 1: BOS is a key only for empty rows."""
    mask = masks.local_mask(8, 4)
    assert mask[2].nonzero().flatten().tolist() == [1]
    assert mask[1].nonzero().flatten().tolist() == [0]


@pytest.mark.parametrize("r", [1, 2, 5])
def test_random_rows(r: int) -> None:
    length = 20
    mask = masks.random_mask(length, r, seed=7)
    assert mask[0].nonzero().flatten().tolist() == [0]
    assert mask[1].nonzero().flatten().tolist() == [0]
    for n in range(2, length):
        keys = mask[n].nonzero().flatten()
        assert len(keys) == min(r, n - 1)
        assert keys.min() >= 1 and keys.max() < n


def test_random_is_seeded_and_prefix_consistent() -> None:
    a = masks.random_mask(30, 2, seed=3)
    assert torch.equal(a, masks.random_mask(30, 2, seed=3))
    assert not torch.equal(a, masks.random_mask(30, 2, seed=4))
    assert torch.equal(masks.random_mask(12, 2, seed=3), a[:12, :12])


def test_every_row_has_a_key() -> None:
    for mask in [masks.global_mask(9), masks.local_mask(9, 3), masks.dilated_mask(9, 2, 4),
                 masks.block_mask(9, 4), masks.random_mask(9, 1, seed=0)]:
        assert mask.any(-1).all()


def test_add_sink_only_touches_empty_rows() -> None:
    raw = torch.tensor([[False, False], [False, True]])
    assert masks.add_sink(raw).tolist() == [[True, False], [False, True]]
    assert raw.tolist() == [[False, False], [False, True]]  # input untouched


def test_plot_mask_returns_a_figure() -> None:
    fig = masks.plot_mask(masks.local_mask(6, 2), title="2-local")
    assert fig.axes[0].get_title() == "2-local"
    with pytest.raises(ValueError, match=r"\(T, T\)"):
        masks.plot_mask(torch.zeros(3))
