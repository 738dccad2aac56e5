"""The key-count lemma of docs/theory.md §9, checked on the raw masks: for the heads whose
length-aware cells are predicted by their NoPE layout, every level set "N(h, n) ≥ j" of the
row's key count (as `models.scaling` counts it: the sink rule applied) is the j-fold nesting of
the head's own operator, ◇_K^j ⊤, for 2 ≤ j ≤ the largest count. A global token's row counts
the whole word, which no nesting of its operator sees; with one global token (`Lk+T1`,
Longformer) that count is the sentence "length ≥ m" = E((Y^{≤k})^m ⊤) of the layout's logic and
every other row's count a nesting of the window, which the last test checks.
"""

from __future__ import annotations

import pytest
import torch

from expressivity.layouts.spec import parse_atom
from expressivity.models.layouts import Pattern
from expressivity.models.scaling import mask_key_counts

MAX_TOKENS = 16  # BOS + up to 14 letters + EOS


def _pattern(spelling: str) -> Pattern:
    return Pattern(tuple(parse_atom(a, spelling) for a in spelling.split("+")))


def _chains(raw: torch.Tensor, depth: int) -> list[list[bool]]:
    """chain[j][n]: ◇_K^j ⊤ at row n, i.e. a path n > m₁ > … > m_j through the raw key sets
    K(n) (BOS, index 0, is a key where the pattern allows it)."""
    rows = raw.shape[0]
    chain = [[True] * rows]
    for _ in range(depth):
        prev = chain[-1]
        chain.append([any(prev[m] for m in torch.nonzero(raw[n]).flatten().tolist())
                      for n in range(rows)])
    return chain


@pytest.mark.parametrize("spelling", ["G", "L1", "L2", "L3", "L4", "D2.2", "D3.2", "D2.3",
                                      "B2", "B3", "B4"])
@pytest.mark.parametrize("tokens", range(2, MAX_TOKENS + 1))
def test_each_key_count_level_set_is_a_nesting_of_the_heads_operator(spelling, tokens):
    pattern = _pattern(spelling)
    t = torch.arange(tokens)
    raw = pattern.allowed(t[:, None], t[None, :], length=tokens)
    counts = mask_key_counts(pattern.mask(tokens))
    assert bool((counts >= 1).all())  # the sink rule: every row reads at least BOS
    top = int(counts[1:].max())
    chain = _chains(raw, top)
    for j in range(2, top + 1):
        for n in range(1, tokens):  # the symbol and EOS rows (theory positions 1..N+1)
            assert (int(counts[n]) >= j) == chain[j][n], (spelling, tokens, n, j)


def test_a_global_token_row_counts_the_whole_word() -> None:
    # The hub row 0 of T1 (BOS) reads every token, so its count is the word's length plus 2
    # at every length: no bounded nesting of the pattern's operators defines "N ≥ j" there.
    pattern = _pattern("L2+T1")
    counts = [int(mask_key_counts(pattern.mask(tokens))[0]) for tokens in range(3, 12)]
    assert counts == list(range(3, 12))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("tokens", range(3, MAX_TOKENS + 1))
def test_one_global_tokens_key_counts_are_definable_in_longformers_logic(k, tokens):
    # Rows 1..N+1 of `Lk+T1` read the window and BOS: "N ≥ j" is the window's (j−1)-fold chain
    # for j ≤ k + 1 and false beyond (the row reads at most k + 1 keys).
    # Row 0 (BOS) reads every token: "N ≥ j" is E of the window's (j−2)-fold chain, "some
    # position (EOS included) has j−2 window steps behind it", i.e. the word has ≥ j−2 letters.
    t = torch.arange(tokens)
    counts = mask_key_counts(_pattern(f"L{k}+T1").mask(tokens))
    window = _pattern(f"L{k}").allowed(t[:, None], t[None, :], length=tokens)
    top = int(counts.max())
    chain = _chains(window, top)
    for j in range(2, top + 1):
        for n in range(1, tokens):
            assert (int(counts[n]) >= j) == (j <= k + 1 and chain[j - 1][n]), (k, tokens, n, j)
        somewhere = any(chain[j - 2][p] for p in range(1, tokens))
        assert (int(counts[0]) >= j) == somewhere, (k, tokens, j)
