"""Token ids and batch layout ``[BOS, w, EOS, PAD...]``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from expressivity.errors import AlphabetError
from expressivity.models.tokens import bos_id, encode_batch, eos_id, pad_id, vocab_size


def test_ids_follow_the_alphabet_size() -> None:
    assert (bos_id(3), eos_id(3), pad_id(3), vocab_size(3)) == (3, 4, 5, 6)


def test_encode_batch_layout() -> None:
    tokens, lengths = encode_batch([np.array([0, 1]), np.array([], dtype=int), np.array([2])], 3)
    assert tokens.dtype == torch.long and lengths.dtype == torch.long
    assert tokens.tolist() == [[3, 0, 1, 4], [3, 4, 5, 5], [3, 2, 4, 5]]
    assert lengths.tolist() == [2, 0, 1]
    assert (tokens[torch.arange(3), lengths + 1] == eos_id(3)).all()


def test_empty_batch() -> None:
    tokens, lengths = encode_batch([], 2)
    assert tokens.shape == (0, 2) and lengths.shape == (0,)


def test_out_of_range_code_names_word_and_code() -> None:
    with pytest.raises(AlphabetError, match="word 1 contains code 3"):
        encode_batch([np.array([0]), np.array([1, 3])], 3)
