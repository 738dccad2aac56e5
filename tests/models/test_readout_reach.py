"""The reach of a read position: layer by layer through the masks, checked against gradients."""

from __future__ import annotations

import pytest
import torch

from expressivity.models.config import ModelConfig
from expressivity.models.layouts import parse_layout
from expressivity.models.readout_reach import reach, readout_problem
from expressivity.models.tokens import bos_id, eos_id
from expressivity.models.transformer import Recognizer


def test_reach_of_local_windows() -> None:
    layout = parse_layout("local-1", 2, 4)
    assert reach(layout, 6, 7) == {4, 5, 6}  # EOS of 5 symbols: two 1-local steps back
    assert reach(layout, 0, 7) == {0}
    with pytest.raises(ValueError):
        reach(layout, 7, 7)


@pytest.mark.parametrize(("text", "cls", "eos"), [
    ("global", False, True), ("hybrid-1", False, True), ("local-1", False, True),
    ("longformer-2-1", True, True), ("bigbird-2-2-1", True, True), ("block-1", False, False),
])
def test_which_readouts_causal_layouts_serve(text: str, cls: bool, eos: bool) -> None:
    layout = parse_layout(text, 2, 4)
    assert (readout_problem(layout, "cls") is None) is cls
    assert (readout_problem(layout, "eos") is None) is eos
    assert readout_problem(layout, "mean") is None and readout_problem(layout, "last") is None
    if not cls:
        why = readout_problem(layout, "cls")
        assert why is not None and "position 0 (BOS)" in why and "constant" in why


def dependence(text: str, row: int, length: int, seed: int = 0) -> set[int]:
    """Positions whose input vector moves the state at ``row`` after every block of a randomly
    initialised model (generic weights: a zero gradient only where no path exists)."""
    config = ModelConfig(n_layers=2, d_model=16, n_heads=2, d_ff=16, layout=text,
                         kernel="dense", readout="mean")  # mean: served by every layout
    model = Recognizer(config, 2, seed=seed).double()
    tokens = torch.tensor([[bos_id(2), *([0, 1] * length)[: length - 2], eos_id(2)]])
    lengths = torch.tensor([length - 2])
    x = model.embed_tokens(tokens).detach().requires_grad_(True)
    y = x
    for block in model.blocks:
        y = block(y, lengths)
    (grad,) = torch.autograd.grad(y[0, row].sum(), x)
    return {m for m in range(length) if grad[0, m].abs().max() > 0}


CAUSAL = ["global", "local-1", "local-2", "hybrid-1", "longformer-1-1", "bigbird-1-1-1",
          "dilated-1-2", "block-3", "interleaved-1"]
ENCODER = ["full", "window-1", "W0", "longformer-enc-1-sep", "bigbird-enc-2-1-1", "strided-2",
           "fixed-2-1", "swin-2", "SWS3", "WD1.2+AT4"]


@pytest.mark.parametrize("text", CAUSAL + ENCODER)
def test_reach_is_what_the_network_depends_on(text: str) -> None:
    layout = parse_layout(text, 2, 2)
    for length in (2, 3, 5, 8):
        for row in {0, length // 2, length - 1}:
            assert reach(layout, row, length) == dependence(text, row, length), (row, length)
