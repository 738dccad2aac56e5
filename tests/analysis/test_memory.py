"""The mixers' first-letter memory: the gate-path retention against an explicit-loop reference,
S4D's closed form, the first-letter influence and signal against one forward pass per variant,
and the signal of an exact constructed recognizer, which does not decay."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.analysis.first_letter import (
    _mixer_log_gates,
    _through_mixer,
    first_letter_influence,
    first_letter_retention,
    first_letter_signal,
    memory_by_length,
)
from expressivity.analysis.memory import memory_summary
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


@pytest.mark.parametrize(("layout", "readout"), [("mamba", "eos"), ("s4d", "eos"),
                                                  ("jamba-2", "eos"), ("full", "cls")])
def test_signal_is_the_largest_distance_between_final_readout_vectors(layout, readout):
    model = Recognizer(ModelConfig(n_layers=2, d_model=16, n_heads=2, d_ff=32, layout=layout,
                                   readout=readout), alphabet_size=3, seed=4).eval()
    rng = np.random.default_rng(3)
    words = [rng.integers(0, 3, n) for n in (1, 2, 9)]
    got = first_letter_signal(model, words)
    relative = first_letter_signal(model, words, relative=True)
    for word, value, rel in zip(words, got, relative, strict=True):
        finals = []
        for c in range(3):
            variant = np.concatenate([[c], word[1:]])
            tokens, n = encode_batch([variant], 3)
            with torch.no_grad():
                finals.append(model.read_out(model.forward_hidden(tokens, n)[-1], n)[0].double())
        want = max((x - y).norm().item() for x in finals for y in finals)
        assert value == pytest.approx(want, abs=1e-5)
        scale = sum(x.norm().item() for x in finals) / len(finals)
        assert rel == pytest.approx(want / scale, abs=1e-5)
    with pytest.raises(ConfigError, match="length ≥ 1"):
        first_letter_signal(model, [np.zeros(0, np.int64)])


def test_an_exact_constructed_recognizer_keeps_its_first_letter_signal_at_every_length():
    """Theorem 16.1's FIRST recognizer holds the letter with gate 1: the same signal at 4 and at
    1,000 letters (a decaying state would shrink it), and the influence with it."""
    from expressivity.models.construct import construct_language

    model = construct_language("FIRST", None, "mamba")[0].model
    rng = np.random.default_rng(0)
    by_length = memory_by_length(model, [4, 1000], words=4)
    (_, influence_4, signal_4, rel_4), (_, influence_1000, signal_1000, rel_1000) = (
        by_length[4], by_length[1000])
    assert signal_4 > 0.5 and influence_4 > 0.5
    assert signal_1000 == pytest.approx(signal_4, rel=1e-4)
    assert rel_1000 == pytest.approx(rel_4, rel=1e-4)
    assert influence_1000 == pytest.approx(influence_4, rel=1e-4)
    assert first_letter_signal(model, [rng.integers(0, 2, 300)])[0] == pytest.approx(
        signal_4, rel=1e-4)


def test_the_summary_reads_the_runs_that_use_the_letter():
    import pandas as pd

    table = pd.DataFrame({
        "kept n=40": [0.0, -0.1, -0.2], "kept n=500": [-0.2, -0.3, -0.4],
        "influence n=40": [9.0, 0.0, 8.0], "influence n=500": [0.0, 0.0, 7.5],
        "signal n=40": [10.0, 0.0, 2.0], "signal n=500": [1.0, 0.0, 2.0],
        "relative n=40": [2.0, 0.0, 1.0], "relative n=500": [1.0, 0.0, 0.25],
    })
    text = "\n".join(memory_summary(table))
    assert "over the 3 runs: lowest -0.40, median -0.30, highest -0.20" in text
    assert "2 runs use the first letter at n = 40" in text
    assert "signal is 0.10–1.00 of its n = 40 value (median 0.55)" in text
    assert "relative signal 0.25–0.50 of it (median 0.38)" in text
    assert "kept -0.40–-0.20" in text and "1 of them still have influence" in text
    assert memory_summary(table.iloc[:0]) == []


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
    from expressivity.analysis.memory import memory_store
    from expressivity.errors import StoreError

    assert memory_store("runs/train.db", (4,), words=1, run_ids=set()).empty
    with pytest.raises(StoreError, match="no such lever"):  # `train` registers no sweep
        memory_main(["runs/train.db", "--out", str(out), "--lever", "slow"])
