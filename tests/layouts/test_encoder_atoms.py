"""Every encoder atom kind: its mask rule (numpy, torch, one string or a padded batch) equals its
reference written from the spelling table, includes the query, and never reads padding."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.registry import KINDS

ENCODER = {k: v for k, v in KINDS.items() if isinstance(v, EncoderKind)}
TABLE = {"F", "W", "WD", "CLS", "SEP", "AT", "BW", "BR", "BG", "ST", "SF", "STE", "SFE", "SW",
         "SWS"}


def test_every_spelling_of_the_table_is_registered() -> None:
    assert set(ENCODER) == TABLE
    assert {k for k, v in ENCODER.items() if v.causal} == {"ST", "SF"}


def params_of(letter: str) -> list[tuple[int, ...]]:
    kind = ENCODER[letter]
    every = itertools.product(*[range(lo, hi + 1) for lo, hi in kind.small])
    return [p for p in every if kind.problem(p) is None]


CASES = [(k, p) for k in sorted(ENCODER) for p in params_of(k)]


def reference(letter: str, params: tuple[int, ...], length: int, seed: int) -> np.ndarray:
    kind = ENCODER[letter]
    return np.array([[m in kind.keys(n, length, params, seed) for m in range(length)]
                     for n in range(length)], dtype=bool)


@pytest.mark.parametrize(("letter", "params"), CASES)
def test_rule_equals_reference(letter: str, params: tuple[int, ...]) -> None:
    kind = ENCODER[letter]
    for length, seed in itertools.product(range(2, 13), (0, 3)):
        want = reference(letter, params, length, seed)
        assert want.diagonal().all(), "every encoder atom includes the query itself"
        idx = np.arange(length)
        got = np.broadcast_to(kind.allowed(idx[:, None], idx[None, :], params, seed, length),
                              want.shape)
        assert np.array_equal(got, want), (letter, params, length, seed)
        t = torch.arange(length)
        got_t = kind.allowed(t[:, None], t[None, :], params, seed, torch.tensor(length))
        assert np.array_equal(got_t.expand(length, length).numpy(), want)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(CASES), st.lists(st.integers(2, 12), min_size=1, max_size=4),
       st.integers(0, 100))
def test_padded_batch_is_each_strings_own_mask(case: tuple[str, tuple[int, ...]],
                                                lengths: list[int], seed: int) -> None:
    """In a batch padded to T tokens, string b's rows are its own mask; no key is padding."""
    letter, params = case
    kind = ENCODER[letter]
    t_sz = max(lengths) + 2
    idx = torch.arange(t_sz)
    length = torch.tensor(lengths).view(-1, 1, 1)
    batch = kind.allowed(idx[:, None], idx[None, :], params, seed, length)
    batch = batch.expand(len(lengths), t_sz, t_sz)
    for b, n_tokens in enumerate(lengths):
        own = reference(letter, params, n_tokens, seed)
        assert np.array_equal(batch[b, :n_tokens, :n_tokens].numpy(), own)
        assert not batch[b, :, n_tokens:].any(), "padding is never a key"
