"""The one-matching-key probe against the model's own first-layer attention weights."""

from __future__ import annotations

import math

import pytest
import torch

from expressivity.analysis.key_probe import one_key_probe
from expressivity.errors import ConfigError
from expressivity.models import ModelConfig, Recognizer, encode_batch
from expressivity.models.scaling import length_factor


def _model(scale: str) -> Recognizer:
    config = ModelConfig(n_layers=1, d_model=8, n_heads=2, d_ff=8,
                         attention_scale=scale)  # type: ignore[arg-type]
    model = Recognizer(config, 3, seed=7)
    with torch.no_grad():  # sharper than the initialisation, and distinct s per head
        model.blocks[0].attn.q.weight.mul_(40.0)
        if model.blocks[0].attn.length_scale is not None:
            model.blocks[0].attn.length_scale.copy_(torch.tensor([0.5, 3.0]))
    return model


@pytest.mark.parametrize("scale", ["none", "log-n", "ssmax"])
def test_the_probe_predicts_the_eos_weight_on_a_lone_key(scale: str) -> None:
    model = _model(scale)
    probes = one_key_probe(model, key=0, other=1)
    attn = model.blocks[0].attn
    for n_other in (3, 20):
        word = [1] * (n_other // 2) + [0] + [1] * (n_other - n_other // 2)
        tokens, lengths = encode_batch([torch.tensor(word).numpy()], 3)
        with torch.no_grad():
            x = model.blocks[0].ln1(model.embed_tokens(tokens))[0]  # (T, d)
            eos = int(lengths[0]) + 1
            q, k = attn.q(x[eos]), attn.k(x[:eos])  # keys: BOS and the word (strict, global)
            for probe in probes:
                cut = attn.head_slice(probe.head)
                z = (k[:, cut] @ q[cut]) / math.sqrt(attn.d_head)
                lone = 1 + n_other // 2
                assert float(z[lone] - z[lone + 1]) == pytest.approx(probe.margin, rel=1e-5)
                s = attn.length_scale[probe.head:probe.head + 1] if scale == "ssmax" else None
                # the probe's idealisation: the n letters alone (BOS left out), n - 1 equal others
                factor = 1.0 if scale == "none" else float(
                    length_factor(torch.tensor([eos - 1]), torch.float32, s)[..., 0])
                letters = torch.softmax(z[1:] * factor, 0)
                assert float(letters[lone - 1]) == pytest.approx(probe.weight(eos - 1), rel=1e-4)
    assert [p.s for p in probes] == ([0.5, 3.0] if scale == "ssmax" else [1.0, 1.0])
    assert all(p.s_delta == p.s * p.margin for p in probes)
    assert all(not p.tends_to_one for p in probes) if scale == "none" else True


def test_the_probe_needs_nope_and_real_symbols() -> None:
    with pytest.raises(ConfigError, match="symbol code 5"):
        one_key_probe(_model("none"), key=5, other=1)
    rope = Recognizer(ModelConfig(n_layers=1, d_model=8, n_heads=2, d_ff=8, positional="rope"),
                      3)
    with pytest.raises(ConfigError, match="NoPE"):
        one_key_probe(rope, key=0, other=1)


def test_a_trained_runs_checkpoint_is_probed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from expressivity.analysis.key_probe import probe_checkpoint
    from expressivity.checkpoint import checkpoint_path
    from expressivity.training import run_spec, train

    spec = run_spec("LT-1", "global", profile="tiny", steps=20, patience=0,
                    model={"attention_scale": "ssmax"})
    assert train(spec, out_dir=tmp_path, quiet=True).status == "completed"
    path = checkpoint_path(tmp_path, spec.run_id)
    probes = probe_checkpoint(path, "a", "b")
    assert len(probes) == 2 and all(p.scale == "ssmax" and p.s != 1.0 for p in probes)
    with pytest.raises(ConfigError, match="not in the run's alphabet"):
        probe_checkpoint(path, "z", "b")
