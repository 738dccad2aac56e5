"""Encoder cells in the tables: predicted exactly as ``classify --layouts "L@R"`` answers them."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from expressivity.analysis.cell_pages import cell_pages
from expressivity.analysis.classes import predictions
from expressivity.analysis.encoder_predictions import (
    ANY_PRECISION,
    ONLY_A,
    SCALED_YES,
    encoder_spelling,
    is_encoder_cell,
)
from expressivity.analysis.figures import write_figures
from expressivity.analysis.store_report import build_report
from expressivity.cli import main
from expressivity.errors import ConfigError
from expressivity.models.encoder_classify import check_certificate, classify_encoder
from expressivity.resolve import resolve
from expressivity.sweeps.cell_labels import Cell
from expressivity.sweeps.store import ResultsStore
from expressivity.training.spec import AdversarialMetric, LengthMetric, RunRecord, RunSpec

#: (language, cell label): readout cells and bidirectional EOS cells of every kind of verdict.
CELLS = [
    ("PREFIX-a", "window-1 @cls"),  # yes: a window read at CLS
    ("SUFFIX-a", "window-1 @cls"),  # no: reverse definite only
    ("TOMITA-1", "full @mean"),  # yes at depth 0
    ("LT-2", "window-1 @mean"),  # no: the mirror pair
    ("PARITY", "longformer-enc-1 @cls"),  # no: locally testable only
    ("PREFIX-a", "longformer-enc-1"),  # unknown unbounded, no at 2 layers
    ("TOMITA-1", "swin-2 @mean"),  # yes
    ("SUFFIX-a", "swin-2 @cls"),  # unknown unbounded, no at 2 layers
    ("PARITY", "strided-2 @mean"),  # a causal published pattern read by the mean
]


def _classify_json(language: str, spelling: str, depth: int) -> list[dict[str, object]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["classify", language, "--layouts", spelling, "--depth", str(depth),
                     "--json"]) == 0
    (rows,) = json.loads(out.getvalue())["encoders"]
    return list(rows)


@pytest.mark.parametrize(("language", "label"), CELLS)
def test_a_readout_cell_is_predicted_as_classify_answers(language: str, label: str) -> None:
    row = predictions([language], [label], n_layers=2).iloc[0]
    unbounded, at_two = _classify_json(language, encoder_spelling(Cell.parse(label)), 2)
    assert row["predicted"] == unbounded["answer"]
    assert row["predicted_at_depth"] == at_two["answer"]
    assert row["n_layers"] == 2
    if unbounded["answer"] == "no":
        assert row["min_depth"] == "∞"
    if unbounded["answer"] == "yes":
        assert row["min_depth"] == str(unbounded["min_depth"])
    for verdict, reason in ((unbounded, row["reason"]), (at_two, row["reason_at_depth"])):
        assert str(verdict["reason"]) in reason
        if verdict["pair"]:  # the certificate is on the page, in the alphabet's spelling
            u, w = ("".join(x) or "ε" for x in verdict["pair"])  # type: ignore[union-attr]
            assert f"{u} ∈ L and {w} ∉ L" in reason


@pytest.mark.parametrize(("language", "label"), CELLS)
def test_every_no_of_a_table_cell_rechecks_on_the_raw_masks(language: str, label: str) -> None:
    row = predictions([language], [label], n_layers=2).iloc[0]
    dfa, spelling = resolve(language, None).dfa, encoder_spelling(Cell.parse(label))
    for depth, answer in ((None, row["predicted"]), (2, row["predicted_at_depth"])):
        found = classify_encoder(dfa, spelling, n_layers=2, depth=depth)
        assert found.verdict.answer == answer
        check_certificate(dfa, found)  # no-op unless "no": then the pair agrees on the masks


def test_which_cells_the_encoder_theory_predicts() -> None:
    for label in ("window-1", "full", "global @cls", "W1+CLS", "strided-2", "swin-2 @mean"):
        assert is_encoder_cell(Cell.parse(label)), label
    for label in ("global", "hybrid-1", "L3+R2+T1", "global+rope", "not a layout"):
        assert not is_encoder_cell(Cell.parse(label)), label


def test_causal_cells_keep_their_prediction_and_other_encodings_are_unknown() -> None:
    df = predictions(["PREFIX-a"], ["global", "window-1 @cls", "window-1+rope @cls"], 2)
    got = {r.layout: (r.predicted, r.reason) for r in df.itertuples()}
    assert got["global"] == ("yes", "LTL[P] = R-trivial: yes")
    assert got["window-1 @cls"][0] == "yes"
    assert got["window-1+rope @cls"][0] == "unknown"
    assert "NoPE" in got["window-1+rope @cls"][1]


@pytest.mark.parametrize("scale", ["log-n", "ssmax"])
def test_length_aware_encoder_cells_keep_every_yes_and_no_no(scale: str) -> None:
    """docs/theory.md §9 (encoders): a scaled cell is its NoPE cell with every "no", unbounded
    or at its depth, made "unknown", and every "yes" kept with its depth."""
    labels = [label for _, label in CELLS]
    languages = sorted({language for language, _ in CELLS} | {"FIRST", "LT-1", "EVEN-LENGTH"})
    for label in [*labels, "full", "longformer-enc-1 @cls"]:
        cell = Cell.parse(label)
        scaled = Cell(cell.layout, cell.positional, scale, cell.layers, cell.readout).label
        assert Cell.parse(scaled).scale == scale and is_encoder_cell(Cell.parse(scaled))
        nope = predictions(languages, [label], n_layers=2).set_index("language")
        got = predictions(languages, [scaled], n_layers=2).set_index("language")
        for language in languages:
            before, after = nope.loc[language], got.loc[language]
            for column in ("predicted", "predicted_at_depth"):
                expected = "unknown" if before[column] == "no" else before[column]
                assert after[column] == expected, (language, scaled, column)
            if before["predicted"] == "yes":
                assert after["min_depth"] == before["min_depth"]
                assert after["reason"] == before["reason"] + SCALED_YES
            if before["predicted"] == "no":
                assert after["min_depth"] == "?" and "length" in after["reason"]
                assert before["reason"] in after["reason"]  # the NoPE certificate stays on view


def test_heads_are_the_models_own() -> None:
    """A spelling whose head split matters is laid over the cell's number of heads."""
    four = predictions(["TOMITA-1"], ["2xF,2xW1 @cls"], 2, n_heads=4).iloc[0]
    dfa = resolve("TOMITA-1", None).dfa
    answer = classify_encoder(dfa, "2xF,2xW1@cls", n_layers=2, n_heads=4).verdict.answer
    assert four["predicted"] == answer == "yes"
    with pytest.raises(ConfigError, match="head"):  # the spelling does not fit 3 heads
        classify_encoder(dfa, "2xF,2xW1@cls", n_layers=2, n_heads=3)
    three = predictions(["TOMITA-1"], ["2xF,2xW1 @cls"], 2, n_heads=3).iloc[0]
    assert three["predicted"] == "unknown" and "not classified" in three["reason"]


def _record(spec: RunSpec, perfect: bool) -> RunRecord:
    lengths = tuple(LengthMetric(n, 10, 10 if perfect else 6) for n in (41, 42))
    return RunRecord(
        spec.run_id, spec, "completed", lengths=lengths,
        adversarial=(AdversarialMetric("hard", 2, 2 if perfect else 1),),
        train_accuracy=1.0, val_accuracy=1.0, steps=10, wall_time=1.0, n_parameters=100,
        tokens_per_second=1e4,
        extra={"hand_made": True, "short_words": {"n": 511, "correct": 511 if perfect else 500,
                                                  "max_length": 8},
               "model": {"n_layers": 2, "n_heads": 4, "readout": spec.model.get("readout",
                                                                                 "eos")}},
    )


#: (language, layout, readout, perfect): a tiny store of encoder cells with hand-made outcomes.
TINY = [("PREFIX-a", "window-1", "cls", True), ("PREFIX-a", "window-1", "eos", False),
        ("TOMITA-1", "full", "mean", True), ("TOMITA-1", "window-1", "cls", False),
        ("PARITY", "full", "mean", False), ("PARITY", "window-1", "cls", True)]


@pytest.fixture(scope="module")
def tiny_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("encoders") / "tiny.db"
    records = [_record(RunSpec(lang, layout, "tiny", 0,
                               model={"readout": readout} if readout != "eos" else {}), ok)
               for lang, layout, readout, ok in TINY]
    with ResultsStore(path) as store:
        store.register_sweep("tiny-encoders", "hand-made", "tests", "hand-made encoder cells",
                             [r.run_id for r in records])
        for record in records:
            store.record(record)
    return path


def test_figures_judge_readout_cells(tiny_db: Path, tmp_path: Path) -> None:
    report = build_report(tiny_db)
    rows = {(r.language, r.layout): r for r in report.comparison.itertuples()}
    assert set(rows) == {("PREFIX-a", "window-1 @cls"), ("PREFIX-a", "window-1"),
                         ("TOMITA-1", "full @mean"), ("TOMITA-1", "window-1 @cls"),
                         ("PARITY", "full @mean"), ("PARITY", "window-1 @cls")}
    expected = {  # (predicted, verdict) from the theory and the hand-made outcomes
        ("PREFIX-a", "window-1 @cls"): ("yes", "agree"),
        ("PREFIX-a", "window-1"): ("no", "agree"),
        ("TOMITA-1", "full @mean"): ("yes", "agree"),
        ("TOMITA-1", "window-1 @cls"): ("no", "agree"),
        ("PARITY", "full @mean"): ("no", "agree"),
        ("PARITY", "window-1 @cls"): ("no", "learned beyond the prediction"),
    }
    assert {k: (r.predicted, r.verdict) for k, r in rows.items()} == expected
    written = write_figures(tiny_db, tmp_path / "out", formats=("png",), dpi=30)
    readme = (tmp_path / "out" / "README.md").read_text()
    assert any(p.name == "README.md" for p in written)
    assert "window-1 @cls" in readme and "full @mean" in readme
    assert "proven-yes cells learned 2/2 (100 %) by our criterion" in readme
    assert "certified-no cells held 3/4 (75 %) by ours" in readme
    assert "**PARITY, window-1 @cls**: learned beyond the prediction" in readme


def test_a_readout_cells_page_names_the_encoder_command(tiny_db: Path) -> None:
    pages = {page.cell: page.markdown for page in cell_pages(tiny_db)}
    page = pages[("PREFIX-a", "", "window-1 @cls")]
    assert "**yes**" in page and "At 2 layers: **yes**" in page
    assert "`expressivity classify PREFIX-a --layouts window-1@cls --depth 2`" in page
    causal_free = pages[("PARITY", "", "full @mean")]
    assert "**no**" in causal_free and "certificate:" in causal_free


def test_every_no_says_whether_it_holds_at_any_precision() -> None:
    """ab / ba under window-2 @eos is a mask automorphism: a no at every precision. abaa / baa
    under longformer-enc-1 @cls agrees under reading model A only (a trained float32 network
    of the encoders store separates it, docs/theory.md §15)."""
    df = predictions(["SUFFIX-a", "PREFIX-a"], ["window-2", "longformer-enc-1 @cls"], 2)
    got = {(r.language, r.layout): r for r in df.itertuples()}
    w2 = got[("SUFFIX-a", "window-2")]
    assert w2.predicted == "no" and ANY_PRECISION in w2.reason
    lf = got[("PREFIX-a", "longformer-enc-1 @cls")]
    assert lf.predicted == "unknown" and lf.predicted_at_depth == "no"
    assert ONLY_A in lf.reason_at_depth and "abaa ∈ L and baa ∉ L" in lf.reason_at_depth
    for row in df.itertuples():  # every no carries exactly one of the two notes
        for answer, reason in ((row.predicted, row.reason),
                               (row.predicted_at_depth, row.reason_at_depth)):
            if answer == "no":
                assert (ANY_PRECISION in reason) != (ONLY_A in reason), reason
