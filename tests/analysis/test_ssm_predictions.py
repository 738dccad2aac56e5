"""Table predictions of SSM cells: their mixer class unbounded; at a depth, only a construction."""

from __future__ import annotations

from expressivity.analysis.classes import predictions, theory_layout


def test_ssm_cells_are_predicted_by_their_mixer_class() -> None:
    assert theory_layout("samba-1") == "samba-1" and theory_layout("MS") == "MS"
    df = predictions(["PARITY", "TOMITA-6"], ["mamba", "mamba-signed", "jamba-2"], n_layers=2)
    got = {(r.language, r.layout): (r.predicted, r.predicted_at_depth)
           for r in df.itertuples()}
    assert got[("PARITY", "mamba")] == ("no", "no")
    assert got[("PARITY", "jamba-2")] == ("no", "no")
    # yes at 2 layers: Theorem 16.1's one-layer flip channel (tests/analysis/test_mixer_depth.py)
    assert got[("PARITY", "mamba-signed")] == ("yes", "yes")
    assert got[("TOMITA-6", "mamba-signed")] == ("no", "no")  # Z3: not a 2-group language
