"""Attention maps reproduce the attention sublayer; probes find what the construction wrote."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from expressivity.extraction import extract
from expressivity.extraction.agreement import balanced_words
from expressivity.extraction.inspect import attention_maps, probe_subformulas
from expressivity.extraction.plots import (
    plot_attention,
    plot_dfa_pair,
    plot_distance,
    plot_probes,
)
from expressivity.models import ModelConfig, Recognizer
from expressivity.models.construct import construct_language
from expressivity.models.tokens import encode_batch


@pytest.mark.parametrize("layout,positional", [
    ("global", "none"), ("hybrid-1", "rope"), ("local-2", "alibi"), ("2xG,2xL1", "learned"),
])
def test_attention_maps_reproduce_the_attention_sublayer(layout: str, positional: str) -> None:
    config = ModelConfig.preset("cpu", layout=layout, positional=positional, n_layers=2)
    model = Recognizer(config, 3, seed=1).eval()
    word = np.array([0, 2, 1, 1, 0, 2])
    maps = attention_maps(model, word)
    t_sz = len(word) + 2
    assert maps.weights.shape == (2, 4, t_sz, t_sz)
    np.testing.assert_allclose(maps.weights.sum(-1), 1.0, rtol=1e-5)
    tokens, lengths = encode_batch([word], 3)
    states = model.forward_hidden(tokens, lengths)
    with torch.no_grad():
        for layer, block in enumerate(model.blocks):
            attn, x = block.attn, block.ln1(states[layer])
            v = attn._split(attn.v(x))[0]  # (H, T, D)
            mixed = torch.from_numpy(maps.weights[layer]).to(v.dtype) @ v
            got = attn.o(mixed.transpose(0, 1).reshape(t_sz, -1))
            want = attn(x, lengths)[0]
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    assert maps.tokens == ("BOS", "0", "2", "1", "1", "0", "2", "EOS")


def test_constructed_attention_is_where_the_formula_looks() -> None:
    cm, source = construct_language("LT-2")  # layer 0: Y a (1-local), layer 1: P(b & Y a)
    maps = attention_maps(cm.model, source.alphabet.encode(list("cab")), source.alphabet)
    assert maps.tokens == ("BOS", "c", "a", "b", "EOS") and maps.patterns == (("L1",), ("G",))
    local = maps.weights[0, 0]
    assert all(local[n, n - 1] > 0.99 for n in range(1, 5))  # each position reads its predecessor
    assert maps.weights[1, 0, 4, 3] > 0.99  # EOS finds the b preceded by a
    assert isinstance(plot_attention(maps), Figure)


def test_probes_find_each_subformula_at_the_layer_that_writes_it() -> None:
    cm, source = construct_language("LT-2")
    codes, lengths = balanced_words(source.dfa, np.arange(1, 13), 24, np.random.default_rng(0))
    words = [c[:n] for c, n in zip(codes, lengths, strict=True)]
    table = probe_subformulas(cm.model, cm.formula, source.alphabet, words)
    first = table.first_layer()
    assert first == {"b": 0, "a": 0, "Y a": 1, "b & Y a": 1, "P(b & Y a)": 2}
    assert table.accuracy[table.subformulas.index("P(b & Y a)"), 1] < 0.95
    assert (table.baseline < 1.0).all() and table.n_positions > 100
    frame = table.frame()
    assert list(frame.columns[:3]) == ["x0", "x1", "x2"]
    assert isinstance(plot_probes(table), Figure)


def test_figures_of_an_extraction() -> None:
    cm, source = construct_language("SUFFIX-a")
    result = extract(cm.model, source.dfa, length_bound=8, classify_result=False)
    assert isinstance(plot_dfa_pair(result.dfa, source.dfa), Figure)
    assert isinstance(plot_distance(result), Figure)
