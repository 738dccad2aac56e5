"""Cells of a results store: a run's layout plus its positional encoding, and their theory."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from expressivity.analysis.classes import predictions, theory_layout
from expressivity.analysis.schema import layout_order
from expressivity.cli import main
from expressivity.models.config import ModelConfig
from expressivity.sweeps.cell_labels import (
    SCALED,
    Cell,
    cell_label,
    cell_layers,
    cell_order,
    cell_scale,
    split_cell,
)
from expressivity.sweeps.cells import encoding_label, run_cell, spec_cell, with_cells
from expressivity.sweeps.store import ResultsStore
from expressivity.training.spec import RunSpec
from tests.sweeps.fake import fake_train

ENCODINGS = [
    ({}, ""),
    ({"positional": "rope"}, "rope"),
    ({"positional": "alibi"}, "alibi"),
    ({"positional": "periodic-rope", "periods": (2,)}, "periodic-rope(2)"),
    ({"positional": "periodic-sinusoidal", "periods": (2, 3)}, "periodic-sinusoidal(2,3)"),
    ({"positional": "rope", "rope_unrotated": 2}, "rope[2 unrotated]"),
]


@pytest.mark.parametrize(("fields", "label"), ENCODINGS)
def test_encoding_labels_and_their_inverse(fields: dict, label: str) -> None:
    config = ModelConfig(layout="hybrid-1", d_model=32, n_heads=4, **fields)
    assert encoding_label(config) == label
    cell = cell_label("hybrid-1", label)
    assert cell == ("hybrid-1" if not label else f"hybrid-1+{label}")
    layout, name, periods = split_cell(cell)
    assert (layout, name) == ("hybrid-1", config.positional)
    assert periods == config.periods


def test_custom_spellings_keep_their_plus() -> None:
    assert split_cell("L3+R2+T1") == ("L3+R2+T1", "none", ())
    assert split_cell("L3+R2+T1+rope") == ("L3+R2+T1", "rope", ())


def test_runs_differing_in_positions_are_different_cells(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    specs = [RunSpec("EVEN-a-2", "global", "tiny", 0),
             RunSpec("EVEN-a-2", "global", "tiny", 0, model={"positional": "rope"}),
             RunSpec("EVEN-a-2", "global", "tiny", 0,
                     model={"positional": "periodic-rope", "periods": [2]}),
             RunSpec("EVEN-a-2", "global", "tiny", 1,
                     model={"positional": "periodic-rope", "periods": [2]})]
    db = tmp_path / "r.db"
    with ResultsStore(db) as store:
        for spec in specs:
            store.record(fake_train(spec))
        runs, lengths = with_cells(store.runs(), store.lengths())
    assert sorted(runs["layout"].value_counts().items()) == [
        ("global", 1), ("global+periodic-rope(2)", 2), ("global+rope", 1)]
    assert [run_cell(s) for s in specs] == ["global", "global+rope", "global+periodic-rope(2)",
                                            "global+periodic-rope(2)"]
    by_run = dict(zip(runs["run_id"], runs["layout"], strict=True))
    assert all(by_run[r] == x for r, x in zip(lengths["run_id"], lengths["layout"], strict=True))
    assert main(["results", str(db), "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("layout")
    assert table.index.tolist() == ["global", "global+rope", "global+periodic-rope(2)"]
    assert table["runs"].tolist() == [1, 1, 2]
    assert table["predicted"].tolist() == ["no", "unknown", "yes"]


def test_cells_follow_their_layout_nope_first() -> None:
    labels = ["hybrid-1+rope", "global+alibi", "global", "hybrid-1", "global+periodic-rope(2)"]
    expected = ["global", "global+alibi", "global+periodic-rope(2)", "hybrid-1", "hybrid-1+rope"]
    assert cell_order(labels, ["global", "hybrid-1"]) == expected
    assert layout_order(labels) == expected


def test_theory_of_a_cell() -> None:
    assert theory_layout("global+periodic-rope(2)") == "global+periodic"
    assert theory_layout("hybrid-2+periodic-sinusoidal(2)") == "hybrid-2+periodic"
    assert theory_layout("global+rope") is None
    assert theory_layout("local-1+periodic-rope(2)") is None  # no theory for local + MOD
    assert theory_layout("hybrid-1") == "hybrid-1"


def test_periodic_cells_need_periods_that_read_the_stability_index() -> None:
    cells = ["global+periodic-rope(2)", "global+periodic-rope(3)", "global+periodic-rope(3,4)",
             "hybrid-2+periodic-rope(3)", "global+rope"]
    p = predictions([("EVEN-a-2", ""), ("PARITY", ""), ("SUFFIX-a", ""), ("PREFIX-a", "")],
                    cells).set_index(["language", "layout"])["predicted"]
    # (aa)*: QR with stability index 2, so periods whose lcm is even read it
    assert p[("EVEN-a-2", "global+periodic-rope(2)")] == "yes"
    assert p[("EVEN-a-2", "global+periodic-rope(3,4)")] == "yes"
    assert p[("EVEN-a-2", "global+periodic-rope(3)")] == "unknown"
    # a "no" holds for every period; LTL[P,Y] needs none; s = 1 needs none
    assert p[("PARITY", "global+periodic-rope(3)")] == "no"
    assert p[("SUFFIX-a", "hybrid-2+periodic-rope(3)")] == "yes"
    assert p[("PREFIX-a", "global+periodic-rope(3)")] == "yes"
    assert (p.xs("global+rope", level="layout") == "unknown").all()


def test_length_aware_attention_gets_cells_of_its_own() -> None:
    label = cell_label("hybrid-1", encoding_label(ModelConfig(
        positional="periodic-rope", periods=(2,), attention_scale="ssmax")))
    assert label == "hybrid-1+periodic-rope(2)+ssmax"
    assert split_cell(label) == ("hybrid-1", "periodic-rope", (2,))
    assert cell_scale(label) == "ssmax" and cell_scale("L3+R2+T1") == "none"
    assert cell_label("global", encoding_label(ModelConfig(attention_scale="log-n"))) == (
        "global+log-n")
    assert encoding_label(ModelConfig()) == ""
    assert theory_layout("global+log-n") == "global"  # proved unchanged, docs/theory.md §9
    assert theory_layout("hybrid-2+ssmax") == "hybrid-2"
    assert theory_layout("local-1+ssmax") == "local-1"
    assert theory_layout("local-2+ssmax") == "local-2"  # the key-count lemma, §9
    assert theory_layout("dilated-2-2+log-n") == "dilated-2-2"
    assert theory_layout("longformer-2-1+log-n") == "longformer-2-1"  # one global token, §9
    assert theory_layout("longformer-2-2+log-n") is None  # more global tokens: a conjecture
    assert theory_layout("bigbird-2-2-1+ssmax") == "bigbird-2-2-1"  # random keys: "yes" kept
    assert theory_layout("full+log-n") is None  # an unmasked encoder gains the length
    assert theory_layout("global+rope+log-n") is None
    cells = ["global", "global+log-n", "local-2+ssmax", "local-1+ssmax", "longformer-2-2+log-n",
             "longformer-2-1+log-n"]
    theory = predictions(["PREFIX-a"], cells)
    assert list(theory["predicted"]) == ["yes", "yes", "no", "no", "unknown", "yes"]
    assert all("docs/theory.md §9" in r for r in theory["reason"].iloc[1:])


def test_scaled_longformer_keeps_every_verdict_and_bigbird_its_yes() -> None:
    languages = ["LT-1", "SUFFIX-a", "FIRST", "PARITY", "TOMITA-4"]
    pairs = [("longformer-2-1", "longformer-2-1+log-n"), ("bigbird-2-2-1", "bigbird-2-2-1+ssmax")]
    theory = predictions(languages, [x for pair in pairs for x in pair]).set_index(
        ["language", "layout"])["predicted"]
    verdicts = {v for lang in languages for v in (theory[(lang, "longformer-2-1")],)}
    assert verdicts == {"yes", "no"}  # the check below meets both kinds
    for lang in languages:
        assert theory[(lang, "longformer-2-1+log-n")] == theory[(lang, "longformer-2-1")]
        plain, scaled = theory[(lang, "bigbird-2-2-1")], theory[(lang, "bigbird-2-2-1+ssmax")]
        assert scaled == (plain if plain == "yes" else "unknown"), lang
    assert "unknown" in set(theory.xs("bigbird-2-2-1+ssmax", level="layout"))


def test_scaled_mixers_and_their_hybrids_keep_every_verdict() -> None:
    # docs/theory.md §9, "Mixers and their hybrids": samba-k and jamba-n stay star-free under
    # length-aware logits, "no"s included; the pure mixers have no head to scale.
    assert theory_layout("jamba-2+log-n") == "jamba-2"
    assert theory_layout("samba-1+ssmax") == "samba-1"
    assert theory_layout("mamba-signed+log-n") == "mamba-signed"
    assert theory_layout("4xM,4xL1+log-n") is None  # a custom spelling: not claimed
    languages = ["LT-1", "PARITY", "TOMITA-4", "EVEN-a"]
    pairs = [("jamba-2", "jamba-2+log-n"), ("samba-1", "samba-1+ssmax"),
             ("mamba-signed", "mamba-signed+log-n")]
    theory = predictions(languages, [x for pair in pairs for x in pair], n_layers=2).set_index(
        ["language", "layout"])
    assert set(theory["predicted"]) == {"yes", "no"}  # both kinds are checked
    for lang in languages:
        for plain, scaled in pairs:
            for column in ("predicted", "predicted_at_depth"):
                assert theory.loc[(lang, scaled), column] == theory.loc[(lang, plain), column]
            assert "docs/theory.md §9" in theory.loc[(lang, scaled), "reason"]


def test_a_length_aware_cell_is_never_no_at_a_depth_it_may_beat() -> None:
    # One layer of global attention cannot tell ab from ba at EOS (PREFIX-a needs 2: `start`
    # costs a layer), but a length-aware head also reads its key count, which the types
    # behind "no at depth 1" ignore: the scaled cell is unknown at depth 1, yes at depth 2.
    at = {d: predictions(["PREFIX-a"], ["global", "global+log-n"], n_layers=d)
          .set_index("layout")["predicted_at_depth"] for d in (1, 2)}
    assert at[1]["global"] == "no" and at[1]["global+log-n"] == "unknown"
    assert at[2]["global"] == "yes" and at[2]["global+log-n"] == "yes"
    unbounded_no = predictions(["PREFIX-a"], ["local-2+ssmax"], n_layers=1)
    assert list(unbounded_no["predicted_at_depth"]) == ["no"]  # no at any depth stays no


def test_layer_suffix_round_trips():
    from expressivity.sweeps.cell_labels import cell_label, cell_layers, split_cell

    label = cell_label("hybrid-1", "periodic-rope(2)", 3)
    assert label == "hybrid-1+periodic-rope(2) [3 layers]"
    assert cell_layers(label) == 3 and split_cell(label) == ("hybrid-1", "periodic-rope", (2,))
    assert cell_label("global", "", 1) == "global [1 layer]" and cell_layers("global") is None
    assert cell_layers("global", 4) == 4 and cell_layers(label, 4) == 3  # the label wins
    assert cell_layers("global", {"global": 2}) == 2 and cell_layers("local-1", {}) is None
    assert split_cell("L3+R2+T1 [2 layers]") == ("L3+R2+T1", "none", ())


def test_runs_with_another_depth_get_their_own_cell():
    import json

    import pandas as pd

    from expressivity.sweeps.cells import cell_depths, run_cell, with_cells
    from expressivity.training.spec import RunSpec

    spec = RunSpec("LT-2", "global", profile="standard", model={"n_layers": 4})
    assert run_cell(spec) == "global [4 layers]"
    assert run_cell(RunSpec("LT-2", "global", profile="standard", model={"n_layers": 2})) == (
        "global")  # the profile's own depth: no suffix
    runs = pd.DataFrame({
        "run_id": ["a", "b"], "layout": ["global", "global"], "profile": ["standard"] * 2,
        "spec": [json.dumps({"model": {"n_layers": 4}}), json.dumps({"model": {}})],
        "extra": [json.dumps({"model": {"n_layers": 4}}), json.dumps({"model": {"n_layers": 2}})],
    })
    (labelled,) = with_cells(runs)
    assert list(labelled["layout"]) == ["global [4 layers]", "global"]
    assert cell_depths(labelled) == {"global [4 layers]": 4, "global": 2}


@given(layout=st.sampled_from(["global", "hybrid-1", "L3+R2+T1", "4xG,4xL1", "D2.2+T1"]),
       encoding=st.sampled_from(["", "rope", "alibi", "periodic-rope(2)",
                                 "periodic-sinusoidal(2,3)", "rope[8 unrotated]"]),
       scale=st.sampled_from(["none", *SCALED]), layers=st.none() | st.integers(1, 12))
def test_a_cell_is_a_typed_key_its_label_reads_back(layout, encoding, scale, layers):
    """`Cell.label` is the printed label (the old string join) and `Cell.parse` inverts it."""
    cell = Cell(layout, encoding, scale, layers)
    tail = "".join(f"+{x}" for x in (encoding, scale if scale != "none" else "") if x)
    suffix = "" if layers is None else f" [{layers} layer{'s' * (layers != 1)}]"
    assert cell.label == str(cell) == f"{layout}{tail}{suffix}"
    assert Cell.parse(cell.label) == cell
    enc = encoding + (f"+{scale}" if scale != "none" else "") if encoding else (
        scale if scale != "none" else "")
    assert Cell.of(layout, enc, layers) == cell and cell_label(layout, enc, layers) == cell.label
    assert split_cell(cell.label) == (layout, cell.positional, cell.periods)
    assert cell.positional == (encoding.split("(")[0].split("[")[0] or "none")
    assert cell_scale(cell.label) == scale and cell_layers(cell.label) == layers


def test_spec_cells_are_run_cells():
    spec = RunSpec("EVEN-a-2", "global", "tiny", 0,
                   model={"positional": "periodic-rope", "periods": [2], "n_layers": 3})
    cell = spec_cell(spec)
    assert cell == Cell("global", "periodic-rope(2)", "none", 3)
    assert run_cell(spec) == cell.label == "global+periodic-rope(2) [3 layers]"
