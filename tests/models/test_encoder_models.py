"""Models with encoder layouts: attention equals an explicit loop over each string's own keys,
a padded batch computes what each string computes alone, every readout is served or refused
with its reason, and ensemble members are their single models."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.errors import ConfigError
from expressivity.models import ModelConfig, Recognizer, encode_batch
from expressivity.models.blocks import SelfAttention
from expressivity.models.layouts import Pattern, parse_layout
from tests.models.ensemble_check import assert_members_are_their_single_models
from tests.small_models import small_config

ALPHABET = 2
PRESETS = ["full", "window-1", "window-2", "longformer-enc-1", "longformer-enc-1-sep",
           "bigbird-enc-2-1-1", "strided-2", "fixed-2-1", "strided-enc-2", "fixed-enc-2-1",
           "swin-2", "swin-3"]
CUSTOM = ["WD1.2+AT3", "2xF,2xW0+SEP", "BW1+BR1.2", "SW2+L1", "STE3;SFE3.2", "W1+T1"]


def config(layout: str, readout: str = "eos", **kw: object) -> ModelConfig:
    return small_config(layout, readout=readout, **kw)


def reference_keys(pattern: Pattern, n: int, length: int, strict: bool = True) -> list[int]:
    """Row n's keys straight from the atoms' references (`AtomKind.keys`), the sink rule last."""
    keys = {n} if not strict else set()
    for atom in pattern.atoms:
        keys |= atom.spec.keys(n, length, atom.params, pattern.seed)
    return sorted(k for k in keys if k < length) or [0]


@pytest.mark.parametrize("layout", PRESETS + CUSTOM)
def test_attention_is_the_explicit_loop_over_each_strings_keys(layout: str) -> None:
    cfg = config(layout, kernel="dense")
    torch.manual_seed(0)
    attn = SelfAttention(cfg, parse_layout(layout, 2, 4, seed=5).layers[1]).double()
    lengths = torch.tensor([0, 3, 7, 5])
    t_sz = int(lengths.max()) + 2
    x = torch.randn(4, t_sz, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    got = attn(x, lengths)
    q, k, v = (attn._split(lin(x)) for lin in (attn.q, attn.k, attn.v))
    heads = []
    for h, pattern in enumerate(attn.patterns):
        rows = torch.zeros(4, t_sz, attn.d_head, dtype=torch.float64)
        for b, n_sym in enumerate(lengths.tolist()):
            for n in range(n_sym + 2):  # real rows; padding rows are never read
                keys = reference_keys(pattern, n, n_sym + 2)
                w = torch.softmax(q[b, h, n] @ k[b, h, keys].T / attn.d_head ** 0.5, -1)
                rows[b, n] = w @ v[b, h, keys]
        heads.append(rows)
    want_heads = torch.stack(heads, 1)  # (B, H, T, D)
    want = attn.o(want_heads.transpose(1, 2).reshape(4, t_sz, -1))
    for b, n_sym in enumerate(lengths.tolist()):
        torch.testing.assert_close(got[b, : n_sym + 2], want[b, : n_sym + 2])
    assert torch.isfinite(got).all(), "padding rows are finite (the sink rule after padding)"


@pytest.mark.parametrize("readout", ["eos", "cls", "mean", "last"])
@pytest.mark.parametrize("layout", PRESETS + CUSTOM)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**16), sizes=st.lists(st.integers(0, 11), min_size=2, max_size=4))
def test_a_padded_batch_is_each_string_alone(layout: str, readout: str, seed: int,
                                             sizes: list[int]) -> None:
    try:
        cfg = config(layout, readout)
    except ConfigError as err:  # refused: the read position reaches no symbol
        assert readout == "cls" and "depends on no symbol" in str(err)
        assert all(a.causal for p in parse_layout(layout, 2, 4).layers[-1] for a in p.atoms)
        return
    model = Recognizer(cfg, ALPHABET, seed=seed % 5)
    rng = np.random.default_rng(seed)
    words = [rng.integers(0, ALPHABET, n) for n in sizes]
    tokens, lengths = encode_batch(words, ALPHABET)
    with torch.no_grad():
        batch = model(tokens, lengths)
        for word, logit in zip(words, batch, strict=True):
            alone = model(*encode_batch([word], ALPHABET))[0]
            torch.testing.assert_close(logit, alone, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("layout", "readout"), [
    ("strided-2", "cls"), ("fixed-2-1", "cls"), ("global", "cls"), ("W0", "eos"),
    ("W0", "cls"), ("SWS2", "cls"), ("SW1", "eos"),
])
def test_readouts_a_layout_cannot_serve_are_refused_with_the_reason(layout: str,
                                                                     readout: str) -> None:
    with pytest.raises(ConfigError, match=r"depends on no symbol .* constant"):
        config(layout, readout)


@pytest.mark.parametrize(("layout", "readout"), [
    ("swin-2", "cls"), ("W0", "mean"), ("W0", "last"), ("W1", "cls"), ("longformer-2-1", "cls"),
    ("SWS2", "eos"),
])
def test_served_readouts(layout: str, readout: str) -> None:
    assert config(layout, readout).readout == readout


@pytest.mark.parametrize(("layout", "match"), [
    ("BW0", "needs numbers >= 1"), ("BR0.1", "needs numbers >= 1"), ("SF2.3", "1 <= c <= l"),
    ("SFE1.2", "1 <= c <= l"), ("fixed-2-3", "1 <= c <= l"), ("W-1", "unknown atom"),
    ("WD1.0", "needs numbers >= 0, >= 1"), ("SW0", "needs numbers >= 1"),
    ("AT2000", "beyond the model's max_len = 1024"), ("window-x", "preset 'window'"),
])
def test_impossible_encoder_atoms_are_located_layout_errors(layout: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as err:
        config(layout)
    assert "Grammar:" in str(err.value) and "encoder presets" in str(err.value)


@pytest.mark.parametrize("readout", ["eos", "cls", "mean"])
def test_ensemble_members_are_their_single_models(readout: str) -> None:
    layouts = ["longformer-enc-1-sep", "bigbird-enc-2-1-1", "swin-2"]
    assert_members_are_their_single_models(
        [config(layout, readout, mask_seed=i) for i, layout in enumerate(layouts)], ALPHABET)
