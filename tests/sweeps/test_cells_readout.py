"""Cells of other readouts: `` @cls`` labels a cell, round-trips, and gets no EOS prediction."""

from __future__ import annotations

from expressivity.analysis.classes import theory_layout
from expressivity.sweeps.cell_labels import cell_label, cell_layers, cell_readout, split_cell
from expressivity.sweeps.cells import run_cell
from expressivity.training import run_spec


def test_the_readout_labels_a_cell_and_reads_back() -> None:
    assert cell_label("window-1", "", readout="cls") == "window-1 @cls"
    label = cell_label("W1+CLS", "rope", 3, readout="mean")
    assert label == "W1+CLS+rope @mean [3 layers]"
    assert cell_readout(label) == "mean" and cell_layers(label) == 3
    assert split_cell(label) == ("W1+CLS", "rope", ())
    assert cell_readout("global") == "eos" and cell_label("global", "") == "global"


def test_runs_of_different_readouts_are_different_cells() -> None:
    cells = {run_cell(run_spec("PARITY", "window-1", "standard", model={"readout": r}))
             for r in ("eos", "cls", "mean")}
    assert cells == {"window-1", "window-1 @cls", "window-1 @mean"}
    assert run_cell(run_spec("PARITY", "global", "standard", model={"readout": "eos"})) == "global"


def test_no_eos_theory_predicts_another_readout() -> None:
    assert theory_layout("global") == "global"
    assert theory_layout("global @mean") is None and theory_layout("hybrid-1 @last") is None
    assert theory_layout("window-1") is None  # encoder atoms: no LTL[P, Y] fragment (unknown)
