"""experiments/table.toml, table-v3.toml and table-v4.toml (the table, issue 36): their runs
carry the protocol they state."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from expressivity.algebra.classify import has_mixers
from expressivity.analysis.classes import theory_layout
from expressivity.sweeps.cells import spec_cell
from expressivity.sweeps.spec import load_sweep

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
#: Causal layouts each spec leaves unscaled: the v2 and v3 ran Longformer and BigBird without
#: length-aware logits, whose theory (docs/theory.md §9) came with the v4.
UNSCALED = {"table.toml": {"longformer-2-1", "bigbird-2-2-1"},
            "table-v3.toml": {"longformer-2-1", "bigbird-2-2-1"}, "table-v4.toml": set()}
ENCODERS = {"full", "window-1", "longformer-enc-1", "bigbird-enc-2-1-1", "strided-2", "swin-2"}


@pytest.mark.parametrize("name", sorted(UNSCALED))
def test_the_table_runs_the_chosen_protocol_on_every_family(name: str) -> None:
    spec = load_sweep(EXPERIMENTS / name)
    runs = list({r.run_id: r for r in spec.expand()}.values())
    assert len(runs) == 26 * (11 * 3 + (7 + 5) * 2)  # causal cells × 3 seeds, the others × 2
    per_cell = Counter((r.language, r.layout, r.model.get("readout", "eos")) for r in runs)
    for (_, layout, _), seeds in per_cell.items():
        assert seeds == (2 if has_mixers(layout) or layout in ENCODERS else 3), layout
    for r in runs:
        readout = r.model.get("readout", "eos")
        scale = r.model.get("attention_scale", "none")
        layers = r.model["n_layers"]
        if has_mixers(r.layout):
            assert (layers, scale, readout) == (2, "none", "eos"), r.layout
        elif r.layout in ENCODERS:
            assert (layers, scale) == (2, "none"), r.layout
        else:  # causal attention: 4 layers, EOS, length-aware exactly where §9 proves it safe
            assert (layers, readout) == (4, "eos"), r.layout
            cell = spec_cell(r)
            assert cell.scale == scale and cell.layers == 4
            if scale == "log-n":  # a scaled cell keeps the proven prediction of its layout
                assert theory_layout(cell.label) == r.layout, cell.label
            else:  # left unscaled: the layouts whose scaled theory came after this spec
                assert scale == "none" and r.layout in UNSCALED[name], r.layout
    scaled = {r.layout for r in runs if r.model.get("attention_scale", "none") != "none"}
    assert not scaled & UNSCALED[name]
    assert all(theory_layout(f"{x}+log-n") is not None for x in UNSCALED[name])  # now proved
    readouts = {(lay, ro) for _, lay, ro in per_cell if lay in ENCODERS}
    assert readouts == {("full", "eos"), ("window-1", "cls"), ("window-1", "eos"),
                        ("longformer-enc-1", "cls"), ("bigbird-enc-2-1-1", "cls"),
                        ("strided-2", "eos"), ("swin-2", "mean")}
