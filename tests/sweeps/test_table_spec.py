"""experiments/table.toml (the table v2, issue 36): its runs carry the protocol it states."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from expressivity.algebra.classify import has_mixers
from expressivity.analysis.classes import theory_layout
from expressivity.sweeps.cells import spec_cell
from expressivity.sweeps.spec import load_sweep

SPEC = Path(__file__).resolve().parents[2] / "experiments" / "table.toml"
ENCODERS = {"full", "window-1", "longformer-enc-1", "bigbird-enc-2-1-1", "strided-2", "swin-2"}


def test_the_table_runs_the_chosen_protocol_on_every_family() -> None:
    spec = load_sweep(SPEC)
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
            else:  # left unscaled only where scaling would leave the cell without theory
                assert scale == "none" and theory_layout(f"{r.layout}+log-n") is None, r.layout
    readouts = {(lay, ro) for _, lay, ro in per_cell if lay in ENCODERS}
    assert readouts == {("full", "eos"), ("window-1", "cls"), ("window-1", "eos"),
                        ("longformer-enc-1", "cls"), ("bigbird-enc-2-1-1", "cls"),
                        ("strided-2", "eos"), ("swin-2", "mean")}
