"""`expressivity classify`."""

from __future__ import annotations

import json

from expressivity.cli import COMMANDS, main


def test_classify_is_registered():
    assert "classify" in COMMANDS


def test_table_for_a_catalogue_name(capsys):
    assert main(["classify", "LT-2"]) == 0
    out = capsys.readouterr().out
    assert "LT-2 over Σ = {a,b,c}" in out
    assert "locally_r_trivial      yes" in out
    assert "hybrid-1" in out and "global" in out


def test_json_for_a_formula(capsys):
    assert main(["classify", "P(b & P a)", "--alphabet", "a,b,c", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["classes"]["j_trivial"] == {"member": True, "witness": None}
    assert data["recognizers"]["global"]["status"] == "yes"
    assert data["formulas"]["LTL[P]"] == "P(P a & b)"


def test_regex_with_custom_windows(capsys):
    assert main(["classify", "(a b)*", "-a", "a,b", "--ks", "1,3"]) == 0
    out = capsys.readouterr().out
    assert "local-3" in out and "hybrid-3" in out and "local-2" not in out


def test_errors_are_reported(capsys):
    assert main(["classify", "P a"]) == 2  # no alphabet
    assert "alphabet" in capsys.readouterr().err
    assert main(["classify", "LT-1", "--ks", "0"]) == 2


def test_json_shape_is_uniform(capsys):
    assert main(["classify", "LT-2", "--json", "--max-depth", "1", "--ks", "1,2"]) == 0
    data = json.loads(capsys.readouterr().out)
    for cls, entry in data["classes"].items():
        assert set(entry) == {"member", "witness"}, cls
        assert isinstance(entry["member"], bool)
        assert (entry["witness"] is None) == entry["member"], cls
    for layout, entry in data["recognizers"].items():
        assert {"status", "reason", "witness", "depth"} <= set(entry), layout


def test_unknown_verdicts_say_which_bound_was_reached(capsys):
    assert main(["classify", "LT-2", "--max-depth", "1", "--ks", "2"]) == 0
    out = capsys.readouterr().out
    line = next(row for row in out.splitlines() if row.startswith("hybrid-2"))
    assert "unknown (depth bound reached at depth 1)" in line
    assert "not definable" not in line


def test_depth_answers_for_exactly_l_layers(capsys):
    """TOMITA-7 = ¬P(a ∧ P(b ∧ P(a ∧ P b))): global needs 4 layers, so 2 layers say no."""
    assert main(["classify", "TOMITA-7", "--ks", "1", "--depth", "2"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines()[::-1] if line.startswith("global "))
    assert row.split()[1:4] == ["yes", "4", "no"], row
    assert "not at depth 3" in row


def test_depth_json(capsys):
    assert main(["classify", "P(b & Y a)", "-a", "a,b,c", "--ks", "1", "--depth", "2",
                 "--json"]) == 0
    depth = json.loads(capsys.readouterr().out)["depth"]
    assert depth["n_layers"] == 2
    hybrid = depth["layouts"]["hybrid-1"]
    assert (hybrid["unbounded"], hybrid["min_depth"], hybrid["at_depth"]) == ("yes", 2, "yes")
    assert hybrid["certificate"]["depth"] == 1 and hybrid["proof"]["formula"] == "P(b & Y a)"
    assert depth["layouts"]["global"]["status"] == "never"


def test_depth_out_of_range(capsys):
    assert main(["classify", "LT-1", "--depth", "-1"]) == 2
    assert "--depth" in capsys.readouterr().err


def test_depth_with_mixer_layouts(capsys):
    """SSM layouts at --depth: yes where Theorem 16.1's (mamba) or 16.4's (s4d) recognizer fits
    (checked against the construction itself), no after an unbounded no, unknown where no
    construction applies or it needs more layers."""
    from expressivity.models.construct.build import construct_language

    assert main(["classify", "TOMITA-2", "--ks", "1", "--depth", "1", "--json",
                 "--layouts", "mamba mamba-signed s4d"]) == 0
    layouts = json.loads(capsys.readouterr().out)["depth"]["layouts"]
    # the selective mixer reads TOMITA-2's events from its conv taps: one layer (window events)
    assert construct_language("TOMITA-2", None, "mamba")[0].model.config.n_layers == 1
    assert (layouts["mamba"]["min_depth"], layouts["mamba"]["at_depth"]) == ("≤1", "yes")
    # S4D has no convolution: its recognizer has 2 layers, and at 1 "unknown" is the answer
    assert construct_language("TOMITA-2", None, "s4d")[0].model.config.n_layers == 2
    assert layouts["s4d"]["at_depth"] == "unknown"
    assert main(["classify", "PT-2", "--ks", "1", "--depth", "1", "--json",
                 "--layouts", "mamba"]) == 0  # P(b & P a): P nested, two layers
    assert construct_language("PT-2", None, "mamba")[0].model.config.n_layers == 2
    assert json.loads(capsys.readouterr().out)["depth"]["layouts"]["mamba"]["at_depth"] == \
        "unknown"
    assert main(["classify", "TOMITA-2", "--ks", "1", "--depth", "2",
                 "--layouts", "mamba s4d"]) == 0
    table = capsys.readouterr().out.split("depth: exactly 2 layers")[1]
    rows = {line.split()[0]: line.split() for line in table.splitlines()
            if line.split()[:1] in (["mamba"], ["s4d"])}
    assert rows["mamba"][1:4] == ["yes", "≤1", "yes"]
    assert rows["s4d"][1:4] == ["yes", "≤2", "yes"]
    assert main(["classify", "PARITY", "--ks", "1", "--depth", "2", "--json",
                 "--layouts", "mamba"]) == 0
    mamba = json.loads(capsys.readouterr().out)["depth"]["layouts"]["mamba"]
    assert (mamba["unbounded"], mamba["min_depth"], mamba["at_depth"]) == ("no", "∞", "no")


def test_depth_with_mixer_layouts_reads_the_formula_as_classified(capsys):
    """--at start changes the language, and with it the construction the mixer rows measure:
    the rows follow the classification's reading, not the formula's default anchor."""
    from expressivity.models.construct.build import construct_language

    text = "P(a & !Y true) & b"
    depths = {at: construct_language(text, "a,b", "mamba", at=at)[0].model.config.n_layers
              for at in ("eos", "start")}
    assert depths["eos"] < depths["start"]  # so one depth separates the two readings
    at_depth = {}
    for at in ("eos", "start"):
        assert main(["classify", text, "--alphabet", "a,b", "--at", at, "--ks", "1",
                     "--depth", str(depths["eos"]), "--json", "--layouts", "mamba"]) == 0
        at_depth[at] = json.loads(capsys.readouterr().out)["depth"]["layouts"]["mamba"]
    assert at_depth["eos"]["min_depth"] == f"≤{depths['eos']}"
    assert at_depth["eos"]["at_depth"] == "yes"
    assert at_depth["start"]["at_depth"] == "unknown"
    assert f"needs {depths['start']} layers" in at_depth["start"]["reason"]
