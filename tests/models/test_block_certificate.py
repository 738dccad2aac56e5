"""docs/theory.md §6: every block-b model gives ε and a^(b−1) the same output (the "no"
certificate of even length / PARITY with block layouts), whatever its weights.

The catalogue run's EVEN-LENGTH × block-4 model was perfect on lengths 41-100 yet, as this
predicts, rejected ε with exactly the logit it gave aaa (see the README's full table)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from expressivity.models import ModelConfig, Recognizer, encode_batch


@pytest.mark.parametrize("b", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_first_block_hides_the_length_from_block_heads(b: int, seed: int) -> None:
    config = ModelConfig.preset("cpu", layout=f"block-{b}", n_layers=2, d_model=32, n_heads=2,
                                d_ff=64)
    model = Recognizer(config, 2, seed=seed).eval()
    words = [np.zeros(0, dtype=np.int64), np.zeros(b - 1, dtype=np.int64),
             np.ones(b - 1, dtype=np.int64)]
    tokens, lengths = encode_batch(words, 2)
    with torch.no_grad():
        out = model(tokens, lengths)
    assert torch.equal(out[0], out[1]) and torch.equal(out[0], out[2])
    # the tie is the block pattern's doing: global heads on the same weights tell them apart
    seen = Recognizer(ModelConfig.preset("cpu", layout="global", n_layers=2, d_model=32,
                                         n_heads=2, d_ff=64), 2, seed=seed).eval()
    with torch.no_grad():
        assert not torch.equal(*seen(tokens, lengths)[:2])
