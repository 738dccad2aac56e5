"""The mixers' first-letter memory: the gate-path retention against an explicit-loop reference,
S4D's closed form, and the first-letter influence against one forward pass per variant."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.analysis.memory import (
    _mixer_log_gates,
    _through_mixer,
    first_letter_influence,
    first_letter_retention,
    memory_by_length,
)
from expressivity.errors import ConfigError
from expressivity.models.config import ModelConfig
from expressivity.models.ssm.mixers import DiagonalSSM
from expressivity.models.tokens import encode_batch
from expressivity.models.transformer import Recognizer


def _model(layout: str, layers: int = 2, seed: int = 0, **kw: object) -> Recognizer:
    config = ModelConfig(n_layers=layers, d_model=16, n_heads=2, d_ff=32, layout=layout, **kw)
    return Recognizer(config, alphabet_size=2, seed=seed)


def _reference(model: Recognizer, word: np.ndarray) -> float:
    """The same path maximum by explicit loops: per layer the factor of every (query j, key s)
    pair from the gates and masks, then max over paths, layer by layer."""
    tokens, n = encode_batch([word], model.alphabet_size)
    states = model.forward_hidden(tokens, n)
    t_sz = tokens.shape[1]
    best = [-math.inf] * t_sz
    best[1] = 0.0
    for block, x in zip(model.blocks, states[:-1], strict=True):
        attn = block.attn
        mixed = {i for heads in attn.mixer_heads for i in heads}
        masks = [p.mask(t_sz, strict=model.config.strict) for i, p in enumerate(attn.patterns)
                 if i not in mixed]
        gates = [_mixer_log_gates(m, block.ln1(x)) for m in attn.mixers]
        new = []
        for j in range(t_sz):
            top = best[j]
            for s in range(j + 1):
                if any(bool(m[j, s]) for m in masks):
                    top = max(top, best[s])
                for g, width in gates:
                    if j - s < width:
                        top = max(top, best[s])
                    else:
                        factor = g[0, s + width:j + 1].double().sum(0).max().item()
                        top = max(top, best[s] + factor)
            new.append(top)
        best = new
    return best[t_sz - 1] / math.log(10)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 9), st.integers(1, 4), st.integers(1, 3), st.integers(0, 2**16))
def test_through_mixer_is_the_max_over_keys_of_the_gate_products(t_sz, width, channels, seed):
    gen = torch.Generator().manual_seed(seed)
    best = torch.randn(2, t_sz, generator=gen, dtype=torch.float64)
    best[torch.rand(2, t_sz, generator=gen) < 0.3] = -math.inf
    gates = -torch.rand(2, t_sz, channels, generator=gen, dtype=torch.float64)
    got = _through_mixer(best, gates, width)
    for b in range(2):
        for j in range(t_sz):
            want = -math.inf
            for s in range(j + 1):
                if j - s < width:
                    want = max(want, best[b, s].item())
                else:
                    kept = gates[b, s + width:j + 1].sum(0).max().item()
                    want = max(want, best[b, s].item() + kept)
            assert got[b, j].item() == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("layout", ["mamba", "mamba-signed", "s4d", "samba-1", "jamba-2"])
def test_retention_matches_the_explicit_loop_reference(layout):
    model = _model(layout, layers=2, seed=3)
    rng = np.random.default_rng(1)
    for n in (1, 3, 7):
        word = rng.integers(0, 2, n)
        got = first_letter_retention(model, [word])[0]
        assert got == pytest.approx(_reference(model, word), abs=1e-6)


def test_one_s4d_layer_keeps_its_slowest_channel_to_the_power_of_the_length():
    """S4D has no conv: the first letter (token 1) reaches EOS (token n + 1) through n gates."""
    model = _model("s4d", layers=1)
    (mixer,) = model.blocks[0].attn.mixers
    assert isinstance(mixer, DiagonalSSM)
    slowest = mixer.gate().abs().log().max().item()
    for n in (1, 5, 40):
        got = first_letter_retention(model, [np.zeros(n, dtype=np.int64)])[0]
        assert got == pytest.approx(n * slowest / math.log(10), rel=1e-5)


def test_global_attention_keeps_the_letter_whole_and_an_empty_path_is_minus_infinity():
    assert first_letter_retention(_model("global", layers=1), [np.zeros(9, np.int64)])[0] == 0
    # one layer of radius-1 windows: EOS (token 10) sees token 9 only, not the first letter
    assert first_letter_retention(_model("local-1", layers=1), [np.zeros(9, np.int64)])[0] \
        == -math.inf


def test_influence_is_the_spread_of_the_logits_over_first_letters():
    model = _model("mamba", layers=2, seed=5).eval()
    rng = np.random.default_rng(2)
    words = [rng.integers(0, 2, n) for n in (1, 4, 11)]
    got = first_letter_influence(model, words)
    for word, value in zip(words, got, strict=True):
        logits = []
        for c in range(2):
            variant = np.concatenate([[c], word[1:]])
            with torch.no_grad():
                logits.append(model(*encode_batch([variant], 2)).item())
        assert value == pytest.approx(max(logits) - min(logits), abs=1e-5)


def test_bad_input_is_a_clear_error():
    model = _model("mamba")
    with pytest.raises(ConfigError, match="one length"):
        first_letter_retention(model, [np.zeros(3, np.int64), np.zeros(4, np.int64)])
    with pytest.raises(ConfigError, match="readout"):
        first_letter_retention(_model("mamba", readout="cls"), [np.zeros(3, np.int64)])
    with pytest.raises(ConfigError, match="lengths from 1"):
        memory_by_length(model, [0])
    with pytest.raises(ConfigError, match="words per length"):
        memory_by_length(model, [4], words=0)
    assert set(memory_by_length(model, [2, 5], words=2)) == {2, 5}


@pytest.mark.parametrize("layout", ["mamba", "mamba-signed"])
def test_the_measured_gates_are_the_gates_of_the_models_own_forward(layout, monkeypatch):
    """`_mixer_log_gates` recomputes the conv and the gates: they must be the forward's."""
    model = _model(layout, layers=2, seed=7)
    seen: list[torch.Tensor] = []
    for block in model.blocks:
        (mixer,) = block.attn.mixers
        real = mixer.gates

        def record(u: torch.Tensor, real=real) -> tuple[torch.Tensor, ...]:
            out = real(u)
            seen.append(out[0].abs().flatten(2))
            return out

        monkeypatch.setattr(mixer, "gates", record)
    tokens, n = encode_batch([np.array([0, 1, 1, 0, 1])], 2)
    states = model.forward_hidden(tokens, n)
    assert len(seen) == 2
    for block, x, forward in zip(model.blocks, states[:-1], list(seen), strict=True):
        logs, width = _mixer_log_gates(block.attn.mixers[0], block.ln1(x))
        assert width == block.attn.mixers[0].conv1d.kernel_size[0]
        torch.testing.assert_close(logs.exp(), forward)


def test_the_store_table_measures_mixer_runs_and_skips_attention_runs(
    tmp_path, monkeypatch, capsys
):
    from expressivity.analysis.memory import main as memory_main
    from expressivity.cli import main

    monkeypatch.chdir(tmp_path)
    for layout in ("mamba", "local-1"):
        assert main(["train", "FIRST", "--layout", layout, "--profile", "tiny", "-q",
                     "--steps", "3"]) == 0
    capsys.readouterr()
    out = tmp_path / "memory.md"
    assert memory_main(["runs/train.db", "--out", str(out), "--words", "2"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "runs digest" in text and "over the 1 runs" in text
    assert "--words 2`" in text  # the command line reproduces the table
    rows = [line for line in text.splitlines() if line.startswith("| FIRST")]
    assert len(rows) == 1 and "| mamba |" in rows[0]  # the local-1 run has no mixer
