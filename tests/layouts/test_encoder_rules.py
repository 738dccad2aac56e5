"""Encoder mask rules against explicit loops written straight from the table of issue 32."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.layouts import encoder_rules as em

Rule = Callable[[np.ndarray, np.ndarray], np.ndarray]


def loops(length: int, keys: Callable[[int, int], bool]) -> np.ndarray:
    """The reference: ``for n, for m`` over ``length`` tokens, keys confined to the string."""
    return np.array([[keys(n, m) for m in range(length)] for n in range(length)], dtype=bool)


def vectorised(length: int, rule: Rule) -> np.ndarray:
    idx = np.arange(length)
    return np.broadcast_to(rule(idx[:, None], idx[None, :]), (length, length))


def torch_form(length: int, rule: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
               ) -> np.ndarray:
    idx = torch.arange(length)
    return rule(idx[:, None], idx[None, :]).expand(length, length).numpy()


lengths = st.integers(2, 14)  # N + 2 tokens: N = 0 .. 12
small = st.integers(1, 5)


def check(length: int, rule: Callable[..., object], keys: Callable[[int, int], bool]) -> None:
    want = loops(length, keys)
    assert np.array_equal(vectorised(length, rule), want)  # type: ignore[arg-type]
    assert np.array_equal(torch_form(length, rule), want)  # type: ignore[arg-type]
    assert all(want[n, n] for n in range(length)), "every encoder rule includes the query"


@settings(max_examples=60, deadline=None)
@given(lengths, st.integers(0, 5))
def test_window(length: int, r: int) -> None:
    check(length, lambda n, m: em.window_allowed(n, m, r), lambda n, m: abs(n - m) <= r)


@settings(max_examples=60, deadline=None)
@given(lengths, st.integers(0, 4), small)
def test_dilated_window(length: int, r: int, d: int) -> None:
    check(length, lambda n, m: em.dilated_window_allowed(n, m, r, d),
          lambda n, m: any(m == n + j * d for j in range(-r, r + 1)))


@settings(max_examples=60, deadline=None)
@given(lengths, st.integers(0, 16))
def test_global_token(length: int, i: int) -> None:
    def keys(n: int, m: int) -> bool:
        return m == n or (i < length and (n == i or m == i))

    check(length, lambda n, m: em.token_allowed(n, m, i), keys)


@settings(max_examples=60, deadline=None)
@given(lengths, small)
def test_block_window(length: int, b: int) -> None:
    def keys(n: int, m: int) -> bool:
        block = {j: [x for x in range(length) if j * b <= x < (j + 1) * b] for j in range(length)}
        near = block.get(n // b - 1, []) + block[n // b] + block.get(n // b + 1, [])
        return m in near

    check(length, lambda n, m: em.block_window_allowed(n, m, b), keys)


@settings(max_examples=60, deadline=None)
@given(lengths, small, small)
def test_global_blocks(length: int, b: int, g: int) -> None:
    def keys(n: int, m: int) -> bool:
        hubs = set(range(g * b))
        return m == n or n in hubs or m in hubs

    check(length, lambda n, m: em.global_blocks_allowed(n, m, b, g), keys)


@settings(max_examples=60, deadline=None)
@given(lengths, small, small, st.integers(0, 2**31))
def test_random_blocks(length: int, b: int, r: int, seed: int) -> None:
    last = length - 1
    n_blocks = last // b + 1
    table = em.random_blocks(n_blocks, r, seed)
    assert table.shape == (n_blocks, min(r, n_blocks))
    for row in table:  # distinct blocks of the string
        assert len(set(row.tolist())) == len(row) and row.min() >= 0 and row.max() < n_blocks

    def keys(n: int, m: int) -> bool:
        return m == n or m // b in set(table[n // b].tolist())

    check(length, lambda n, m: em.random_blocks_allowed(n, m, b, r, seed, last), keys)


def test_random_blocks_are_seeded() -> None:
    """Same seed: same draw; the draw depends on the seed (for some seed among a few)."""
    a = em.random_blocks(9, 2, 7)
    assert np.array_equal(a, em.random_blocks(9, 2, 7))
    assert any(not np.array_equal(a, em.random_blocks(9, 2, s)) for s in range(8, 12))
    with pytest.raises(ValueError):
        em.random_blocks(0, 1, 0)


@settings(max_examples=60, deadline=None)
@given(lengths, small, st.booleans())
def test_strided(length: int, l: int, causal: bool) -> None:
    """Child et al. 2019 §4.2 as sets: A¹ = {t, ..., i} with t = max(0, i - l) and
    A² = {j : (i - j) mod l = 0}, both j <= i when causal (the union is exactly the rule's)."""
    def keys(n: int, m: int) -> bool:
        a1 = max(0, n - l) <= m <= n if causal else abs(n - m) <= l
        a2 = (n - m) % l == 0 and (m <= n or not causal)
        return a1 or a2

    check(length, lambda n, m: em.strided_allowed(n, m, l, causal=causal), keys)


@settings(max_examples=60, deadline=None)
@given(lengths, small, st.integers(1, 5), st.booleans())
def test_fixed(length: int, l: int, c: int, causal: bool) -> None:
    """Child et al. 2019 §4.2: A¹ = {j : ⌊j/l⌋ = ⌊i/l⌋}, A² = {j : j mod l ∈ {l - c, ..., l}}."""
    c = min(c, l)

    def keys(n: int, m: int) -> bool:
        a1 = m // l == n // l
        a2 = m % l in range(l - c, l + 1)
        return (a1 or a2) and (m <= n or not causal)

    check(length, lambda n, m: em.fixed_allowed(n, m, l, c, causal=causal), keys)


def swin_windows(length: int, size: int, shift: int) -> list[list[int]]:
    """Swin's own construction in 1-D: roll by -shift, cut windows of ``size`` in the rolled
    order, and split each window where the roll wrapped (its attention mask)."""
    pad = -length % size  # Swin pads to a multiple of the window
    order = np.roll(np.arange(length + pad), -shift)
    windows = []
    for w in range(0, length + pad, size):
        chunk = order[w:w + size].tolist()
        # the mask's regions: tokens that were rolled across the end form their own window
        for part in ([x for x in chunk if x >= shift], [x for x in chunk if x < shift]):
            part = [x for x in part if x < length]
            if part:
                windows.append(part)
    return windows


@settings(max_examples=80, deadline=None)
@given(lengths, st.integers(1, 6), st.booleans())
def test_swin_follows_the_roll_and_mask(length: int, size: int, shifted: bool) -> None:
    shift = em.swin_shift(size) if shifted else 0
    where = {x: i for i, w in enumerate(swin_windows(length, size, shift)) for x in w}
    check(length, lambda n, m: em.swin_allowed(n, m, size, shifted=shifted),
          lambda n, m: where[n] == where[m])


def test_swin_even_shift_is_the_contract_formula() -> None:
    """For even M the shifted windows are ⌊(n + s)/M⌋ (the spelling table's formula); for odd M
    Swin's first window has ⌊M/2⌋ tokens, not ⌈M/2⌉."""
    idx = np.arange(20)
    for size in (2, 4, 6):
        s = size // 2
        want = (idx[:, None] + s) // size == (idx[None, :] + s) // size
        assert np.array_equal(em.swin_allowed(idx[:, None], idx[None, :], size, shifted=True),
                              want)
    three = em.swin_allowed(idx[:, None], idx[None, :], 3, shifted=True)
    assert three[0].tolist()[:3] == [True, False, False]  # first window [0, 1)
    assert three[1].tolist()[:5] == [False, True, True, True, False]  # then [1, 4)


@settings(max_examples=30, deadline=None)
@given(lengths)
def test_full(length: int) -> None:
    check(length, em.full_allowed, lambda n, m: True)
