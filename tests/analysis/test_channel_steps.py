"""`analysis.channel_steps` against an explicit loop over channels, and on a store."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from expressivity.analysis.channel_steps import FLIP, SHUT, channel_steps
from expressivity.models.tokens import encode_batch
from expressivity.models.transformer import Recognizer
from expressivity.training.step_penalty import paying_channels, record_step_sizes, selective_mixers
from tests.small_models import small_model


def _explicit(model: Recognizer, fraction: float, words: list[np.ndarray]) -> list[dict]:
    """Each word alone, each channel by itself: the reference the batched rows must equal."""
    per_mixer: list[list[list[float]]] = []  # mixer -> channel -> Δ at every letter
    model.train()
    record_step_sizes(model)
    for word in words:
        tokens, lengths = encode_batch([word], 3)
        with torch.no_grad():
            model(tokens, lengths)
        for i, mixer in enumerate(selective_mixers(model)):
            assert mixer.step_sizes is not None
            delta = mixer.step_sizes[0, 1:len(word) + 1]  # (n, E)
            if len(per_mixer) <= i:
                per_mixer.append([[] for _ in range(delta.shape[1])])
            for e in range(delta.shape[1]):
                per_mixer[i][e] += delta[:, e].tolist()
            mixer.step_sizes = None
    record_step_sizes(model, on=False)
    rows = []
    for i, (mixer, channels) in enumerate(zip(selective_mixers(model), per_mixer, strict=True)):
        k = paying_channels(len(channels), fraction)
        for group, chosen in (("paying", range(k)), ("free", range(k, len(channels)))):
            if not chosen:
                continue
            values = [v for e in chosen for v in channels[e]]
            shut = sum(max(channels[e]) < SHUT for e in chosen)
            flip = sum(any(2 * math.exp(-v * a) - 1 < FLIP
                           for v in channels[e] for a in torch.exp(mixer.A_log[e]).tolist())
                       for e in chosen) if mixer.signed else None
            rows.append({"mixer": i, "group": group, "channels": len(chosen),
                         "mean Δ": sum(values) / len(values), "shut": shut, "flip": flip})
    return rows


@pytest.mark.parametrize("layout", ["mamba-signed", "mamba", "jamba-2"])
@pytest.mark.parametrize("fraction", [1.0, 0.5, 0.25])
def test_the_rows_are_the_explicit_count_over_channels(layout: str, fraction: float) -> None:
    model = small_model(layout, seed=1)
    with torch.no_grad():  # some channels shut, some flipping, the rest as drawn
        for mixer in selective_mixers(model):
            mixer.dt_proj.bias[::5] = -30.0  # Δ ≈ 1e-13 at every letter: shut
            mixer.dt_proj.bias[1::7] = 6.0  # Δ ≈ 6: a signed gate near −1
    rng = np.random.default_rng(0)  # the words channel_steps draws
    words = [rng.integers(0, 3, 12) for _ in range(3)]
    model.eval()
    rows = channel_steps(model, 3, fraction, words=3, length=12)
    assert model.training is False  # the mode it was in is restored
    reference = _explicit(model, fraction, words)
    assert [{**r, "mean Δ": 0} for r in rows] == [{**r, "mean Δ": 0} for r in reference]
    for row, ref in zip(rows, reference, strict=True):
        assert math.isclose(float(row["mean Δ"]), float(ref["mean Δ"]), rel_tol=1e-9)
    assert any(int(r["shut"]) > 0 for r in rows)  # the check is not vacuous
    if layout == "mamba-signed":
        assert any(int(r["flip"]) > 0 for r in rows)
    else:
        assert all(r["flip"] is None for r in rows)
    assert all(m.step_sizes is None and not m.record_steps for m in selective_mixers(model))


def test_the_store_page_measures_the_penalized_runs(tmp_path: Path, monkeypatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from expressivity.analysis.channel_steps import main as steps_main
    from expressivity.cli import main

    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "pilot.toml"
    spec.write_text('[sweep]\nname = "pilot"\nprofile = "tiny"\n\n[base]\n'
                    '"train.steps" = 3\n"train.patience" = 0\n\n[axes]\n'
                    'languages = ["LAST"]\nlayouts = ["mamba-signed"]\nseeds = [0]\n\n'
                    '[[lever]]\nname = "plain"\nset = {}\n\n'
                    '[[lever]]\nname = "half"\nset = { "train.step_penalty" = 1.0, '
                    '"train.step_penalty_channels" = 0.5 }\n', encoding="utf-8")
    assert main(["sweep", str(spec), "--db", "pilot.db", "--no-progress"]) == 0
    capsys.readouterr()
    out = tmp_path / "steps.md"
    assert steps_main(["pilot.db", "--out", str(out), "--words", "2", "--length", "10"]) == 0
    assert "1 runs measured" in capsys.readouterr().out  # the unpenalized run is left out
    text = out.read_text(encoding="utf-8")
    assert "runs digest" in text and "--words 2 --length 10`" in text
    rows = [line for line in text.splitlines() if line.startswith("| LAST")]
    assert len(rows) == 2  # the tiny profile's one mixer: paying and free
    assert "| paying |" in rows[0] and "| free |" in rows[1]
