"""Readouts: each reads its positions (explicit per-string reference); ensembles read alike."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.errors import ConfigError
from expressivity.models import ModelConfig, Recognizer, encode_batch
from expressivity.models.readout import READOUTS, pool, readout_rows
from tests.models.ensemble_check import assert_members_are_their_single_models

ALPHABET = 2


def _config(readout: str, layout: str = "hybrid-1", **kw: object) -> ModelConfig:
    return ModelConfig.from_dict({"n_layers": 2, "d_model": 16, "n_heads": 2, "d_ff": 32,
                                  "layout": layout, "readout": readout, **kw})


def _reference(model: Recognizer, word: np.ndarray) -> torch.Tensor:
    """The logit of one word alone (no padding), read at the readout's positions by hand:
    the final states of BOS (0), the symbols (1..N) and EOS (N + 1)."""
    tokens, lengths = encode_batch([word], ALPHABET)
    states = model.forward_hidden(tokens, lengths)[-1][0]  # (N + 2, d)
    n = len(word)
    assert states.shape[0] == n + 2
    read = {"eos": states[n + 1], "cls": states[0], "last": states[n],
            "mean": states.sum(0) / (n + 2)}[model.config.readout]
    return model.classify(read[None])[0]


@pytest.mark.parametrize("readout", READOUTS)
@pytest.mark.parametrize("layout", ["global", "hybrid-1", "longformer-1-1"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), sizes=st.lists(st.integers(0, 9), min_size=1, max_size=5))
def test_each_readout_reads_its_positions(readout: str, layout: str, seed: int,
                                          sizes: list[int]) -> None:
    if readout == "cls" and layout != "longformer-1-1":  # causal: row 0 reads only itself
        with pytest.raises(ConfigError, match="depends on no symbol"):
            _config(readout, layout)
        return
    model = Recognizer(_config(readout, layout), ALPHABET, seed=seed % 7)
    rng = np.random.default_rng(seed)
    words = [rng.integers(0, ALPHABET, n) for n in sizes]
    tokens, lengths = encode_batch(words, ALPHABET)
    with torch.no_grad():
        logits = model(tokens, lengths)  # padded batch, fast last layer
        for word, logit in zip(words, logits, strict=True):
            torch.testing.assert_close(logit, _reference(model, word), rtol=1e-5, atol=1e-6)


def test_readouts_differ_and_eos_is_the_default() -> None:
    assert ModelConfig().readout == "eos"
    tokens, lengths = encode_batch([np.array([0, 1, 1]), np.array([1])], ALPHABET)
    with torch.no_grad():
        logits = {r: Recognizer(_config(r, "longformer-1-1"), ALPHABET, seed=1)(tokens, lengths)
                  for r in READOUTS}  # a global token at BOS: every readout is served
    for a in READOUTS:
        for b in READOUTS:
            if a < b:
                assert not torch.allclose(logits[a], logits[b]), (a, b)


def test_last_reads_bos_on_the_empty_word() -> None:
    lengths = torch.tensor([0, 3])
    rows = readout_rows("last", lengths)
    assert rows is not None and rows.tolist() == [0, 3]
    assert readout_rows("mean", lengths) is None
    with pytest.raises(ValueError, match="choose one of"):
        readout_rows("max", lengths)


def test_pool_excludes_padding() -> None:
    states = torch.arange(2 * 5 * 1, dtype=torch.float32).view(2, 5, 1)
    out = pool(states, torch.tensor([1, 3]))  # positions 0..2 and 0..4
    assert out.flatten().tolist() == [1.0, 7.0]


def test_an_unknown_readout_is_a_config_error_listing_the_choices() -> None:
    with pytest.raises(ConfigError, match="readout: 'max' is not one of 'eos', 'cls', 'mean', "
                                          "'last'"):
        _config("max")  # from a mapping (TOML, JSON)
    with pytest.raises(ConfigError, match="readout: invalid value 'max'; choose one of "
                                          "eos, cls, mean, last"):
        ModelConfig(readout="max")  # type: ignore[arg-type]


@pytest.mark.parametrize("readout", READOUTS)
def test_ensemble_members_read_out_as_their_single_models(readout: str) -> None:
    layouts = (["global", "local-1", "bigbird-2-1-1"] if readout != "cls"  # cls: row 0 global
               else ["longformer-1-1", "bigbird-2-1-1", "longformer-enc-1"])
    assert_members_are_their_single_models([_config(readout, layout) for layout in layouts],
                                           ALPHABET)
