"""The recognizer: shapes, determinism, padding invariance, locality, kernels, devices."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from expressivity.errors import ConfigError
from expressivity.models import ModelConfig, Recognizer, encode_batch, vocab_size

LAYOUTS = ["global", "local-1", "local-2", "hybrid-1", "hybrid-2", "interleaved-1",
           "longformer-2-1", "bigbird-2-1-2", "dilated-2-2", "block-3", "2xG,L1+T1,R1"]
ALPHABET = 3


def batch(sizes: list[int], seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    rng = np.random.default_rng(seed)
    return encode_batch([rng.integers(0, ALPHABET, size=n) for n in sizes], ALPHABET)


def model(layout: str = "global", seed: int = 0, **overrides: object) -> Recognizer:
    config = ModelConfig.preset("cpu", layout=layout, **overrides)
    return Recognizer(config, ALPHABET, seed=seed).double()


@pytest.mark.parametrize("preset", ["paper", "cpu"])
def test_equal_parameter_counts_across_layouts(preset: str) -> None:
    counts = {lay: Recognizer(ModelConfig.preset(preset, layout=lay), ALPHABET).num_parameters()
              for lay in LAYOUTS if not (preset == "paper" and lay == "2xG,L1+T1,R1")}
    assert len(set(counts.values())) == 1, counts
    if preset == "paper":
        assert 240_000 < next(iter(counts.values())) < 260_000


def test_deterministic_for_a_seed_and_leaves_global_rng_alone() -> None:
    tokens, lengths = batch([0, 3, 7])
    state = torch.random.get_rng_state()
    a, b, c = model(seed=1), model(seed=1), model(seed=2)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert torch.equal(a(tokens, lengths), b(tokens, lengths))
    assert not torch.equal(a(tokens, lengths), c(tokens, lengths))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("positional", ["none", "rope", "alibi"])
def test_batched_eos_logits_equal_single_full_passes(layout: str, positional: str) -> None:
    """Padding never leaks, and the EOS-only last layer equals the full forward pass."""
    sizes = [0, 1, 4, 9, 2]
    tokens, lengths = batch(sizes)
    m = model(layout, positional=positional)
    logits = m(tokens, lengths)
    assert logits.shape == (len(sizes),)
    full = m.classify(m.forward_hidden(tokens, lengths)[-1][torch.arange(len(sizes)), lengths + 1])
    single = torch.cat([m(tokens[i : i + 1, : sizes[i] + 2], lengths[i : i + 1])
                        for i in range(len(sizes))])
    assert torch.allclose(logits, full, atol=1e-10)
    assert torch.allclose(logits, single, atol=1e-10)


@pytest.mark.parametrize("layout", ["local-1", "hybrid-2", "dilated-2-2", "block-4", "L2+R1"])
def test_banded_and_dense_kernels_agree_in_the_model(layout: str) -> None:
    tokens, lengths = batch([30, 17, 25])
    dense = model(layout, kernel="dense", positional="alibi")
    banded = model(layout, kernel="banded", positional="alibi")
    assert torch.allclose(dense(tokens, lengths), banded(tokens, lengths), atol=1e-10)
    auto = model(layout, banded_min_len=8, positional="alibi")
    assert torch.allclose(auto.forward_hidden(tokens, lengths)[-1],
                          dense.forward_hidden(tokens, lengths)[-1], atol=1e-10)


def perturb(tokens: torch.Tensor, index: int) -> torch.Tensor:
    out = tokens.clone()
    out[0, index] = (out[0, index] + 1) % ALPHABET
    return out


@pytest.mark.parametrize("k", [1, 2])
def test_local_model_reads_only_the_last_layers_times_k_symbols(k: int) -> None:
    """A strict k-local L-layer model at EOS depends on symbols N+1-kL .. N only."""
    m = model(f"local-{k}", norm="none")
    n_layers, n = m.config.n_layers, 12
    tokens, lengths = batch([n])
    base = m(tokens, lengths)
    reach = k * n_layers
    for index in range(1, n + 1):
        changed = m(perturb(tokens, index), lengths)
        if index < n + 1 - reach:
            assert torch.equal(changed, base), index
        else:
            assert not torch.equal(changed, base), index


def test_strict_states_do_not_see_their_own_or_later_tokens_through_attention() -> None:
    m = model("global", n_layers=1, norm="none")
    tokens, lengths = batch([6])
    before = m.forward_hidden(tokens, lengths)[-1]
    after = m.forward_hidden(perturb(tokens, 4), lengths)[-1]
    assert torch.equal(before[0, :4], after[0, :4])
    assert not torch.equal(before[0, 5], after[0, 5])


def test_weights_are_reachable_for_hand_construction() -> None:
    m = model("hybrid-1", norm="none", activation="relu")
    assert not any(isinstance(x, torch.nn.LayerNorm) for x in m.modules())
    attn = m.blocks[0].attn
    d_model, d_head = m.config.d_model, m.config.d_head
    assert attn.q.weight[attn.head_slice(1)].shape == (d_head, d_model)
    assert attn.o.weight[:, attn.head_slice(1)].shape == (d_model, d_head)
    assert isinstance(m.blocks[0].ffn.act, torch.nn.ReLU)
    assert m.embed.weight.shape == (vocab_size(ALPHABET), d_model)
    assert m.classifier.weight.shape == (1, d_model)


def test_positional_options_and_lm_head() -> None:
    tokens, lengths = batch([3, 5])
    for positional in ["sinusoidal", "learned"]:
        m = model(positional=positional, max_len=8, lm_head=True)
        assert m.lm_logits(tokens, lengths).shape == (2, 7, vocab_size(ALPHABET))
    with pytest.raises(ConfigError, match="max_len"):
        model(positional="learned", max_len=4)(tokens, lengths)
    with pytest.raises(ConfigError, match="lm_head"):
        model().lm_logits(tokens, lengths)


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="encode_batch"):
        model()(torch.zeros(3, dtype=torch.long), torch.zeros(3, dtype=torch.long))
    with pytest.raises(ConfigError, match="alphabet_size"):
        Recognizer(ModelConfig.preset("cpu"), 0)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")
def test_moves_between_cpu_and_cuda() -> None:
    tokens, lengths = batch([0, 5, 40])
    m = model("hybrid-1", kernel="auto", banded_min_len=16, positional="alibi")
    expected = m(tokens, lengths)
    on_gpu = m.to("cuda")
    got = on_gpu(tokens.cuda(), lengths.cuda())
    assert got.device.type == "cuda"
    assert torch.allclose(got.cpu(), expected, atol=1e-8)
    back = on_gpu.to("cpu")
    assert torch.allclose(back(tokens, lengths), expected, atol=1e-10)
