"""`expressivity classify --layouts LAYOUT@READOUT` (docs/theory.md §13)."""

from __future__ import annotations

import json

from expressivity.cli import main


def test_encoder_rows_in_the_table(capsys):
    assert main(["classify", "Y a", "-a", "a,b,c", "--layouts", "global@cls hybrid-1",
                 "--depth", "2"]) == 0
    out = capsys.readouterr().out
    assert "encoder (docs/theory.md §13)" in out
    rows = [line for line in out.splitlines() if line.startswith("global@cls |")]
    assert len(rows) == 2  # any depth, and at 2 layers
    assert all("| no |" in r for r in rows)  # a causal CLS row reads only BOS: ab / ε


def test_encoder_json(capsys):
    assert main(["classify", "Y a", "-a", "a,b", "--layouts", "global@mean", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (row,) = data["encoders"][0]
    assert row["layout"] == "global@mean" and row["readout"] == "mean"
    assert row["answer"] in ("yes", "no", "unknown")


def test_bad_readout_is_a_clear_error(capsys):
    assert main(["classify", "Y a", "-a", "a,b", "--layouts", "global@first"]) != 0
    err = capsys.readouterr().err
    assert "readout: unknown value 'first'; choose one of eos, cls, mean, last" in err
    assert "Traceback" not in err
