"""The unknown cells learned, and the cells learned beyond a depth prediction (issue 36)."""

from __future__ import annotations

import pandas as pd

from expressivity.analysis.comparison import disagreements
from expressivity.analysis.open_cells import UNKNOWN_LEARNED_COLUMNS, unknown_learned
from expressivity.analysis.schema import (
    AGREE,
    BEYOND,
    COMPARISON_COLUMNS,
    FAILED_WITHIN,
    SUMMARY_COLUMNS,
    UNKNOWN,
    conform,
)


def _cell(language: str, layout: str, predicted: str, at_depth: str | None, observed: bool,
          papers: bool, verdict: str, verdict_at_depth: str) -> dict[str, object]:
    return {"language": language, "alphabet": "", "group": "LTL[P]-only", "layout": layout,
            "predicted": predicted, "observed": observed, "papers_observed": papers,
            "untested_short": False, "completed": 3, "verdict": verdict,
            "reason": f"reason of {language} × {layout}", "n_layers": 2, "min_depth": "3",
            "predicted_at_depth": at_depth, "verdict_at_depth": verdict_at_depth}


def _comparison() -> pd.DataFrame:
    return conform([
        _cell("A", "global", "yes", "yes", True, True, AGREE, AGREE),
        _cell("B", "global", "unknown", None, False, True, UNKNOWN, UNKNOWN),  # papers' only
        _cell("C", "global", "unknown", None, False, False, UNKNOWN, UNKNOWN),  # not learned
        _cell("D", "global", "yes", "unknown", True, True, AGREE, UNKNOWN),  # unknown at depth
        _cell("E", "global", "yes", "no", True, True, AGREE, BEYOND),  # beats "no at 2 layers"
        _cell("F", "global", "yes", "yes", False, False, FAILED_WITHIN, FAILED_WITHIN),
    ], COMPARISON_COLUMNS)


def test_unknown_learned_lists_every_unknown_cell_some_criterion_learned() -> None:
    table = unknown_learned(_comparison())
    assert list(table.columns) == list(UNKNOWN_LEARNED_COLUMNS)
    assert table["language"].tolist() == ["B", "D"]
    assert table["unknown"].tolist() == ["unbounded", "at 2 layers (unbounded: yes)"]
    assert table["learned_ours"].tolist() == [False, True]
    assert table["learned_papers"].tolist() == [True, True]
    assert table["theory"].tolist() == ["reason of B × global", "reason of D × global"]


def test_unknown_learned_is_empty_without_unknown_cells() -> None:
    frame = _comparison()
    assert unknown_learned(frame[frame["language"].isin(["A", "F"])]).empty


def test_disagreements_include_the_cells_beyond_a_depth_prediction() -> None:
    frame = _comparison()
    summary = conform([{"language": x, "alphabet": "", "layout": "global", "max_accuracy": 1.0,
                        "n_star": 100, "adversarial_accuracy": 1.0, "perfect_on_test": True}
                       for x in "ABCDEF"], SUMMARY_COLUMNS)
    table = disagreements(frame, summary)
    assert table["language"].tolist() == ["F", "E"]
    assert table["verdict"].tolist() == [FAILED_WITHIN, f"{BEYOND} at 2 layers"]
    beyond = table.iloc[1]
    assert "(d* = 3)" in str(beyond["theory"]) and "reason of E" in str(beyond["theory"])
    assert "reading model A" in str(beyond["note"]) and "§8" in str(beyond["note"])


def test_missing_predictions_and_depths_are_read_as_unknown() -> None:
    frame = _comparison()
    frame.loc[frame["language"] == "B", "predicted"] = pd.NA
    frame.loc[frame["language"] == "D", ["predicted_at_depth", "n_layers"]] = pd.NA
    table = unknown_learned(frame)
    assert table["language"].tolist() == ["B"]  # D: no depth, so nothing at a depth to list


def test_a_depth_no_certified_relative_to_reading_model_a_only_is_not_read_as_an_error() -> None:
    """A run that beats a 'no at d layers' whose pair separates with multiplicities reads what
    assumption A discards; the note must not claim that it errs on some untested input."""
    from expressivity.analysis.encoder_predictions import ANY_PRECISION, ONLY_A

    frame = _comparison()
    frame["reason_at_depth"] = pd.Series(pd.NA, index=frame.index, dtype="string")
    frame.loc[frame["language"] == "E", "reason_at_depth"] = (
        f"at 2 layers: certificate: aa ∈ L and aaa ∉ L share the cls readout; {ONLY_A}: with "
        "multiplicities the pair separates after 2 layers")
    summary = conform([{"language": x, "alphabet": "", "layout": "global", "max_accuracy": 1.0,
                        "n_star": 500, "adversarial_accuracy": 1.0, "perfect_on_test": True}
                       for x in "ABCDEF"], SUMMARY_COLUMNS)
    note = str(disagreements(frame, summary).set_index("language").loc["E", "note"])
    assert ONLY_A in note and "multiplicities" in note and "§8" in note
    assert "must err" not in note
    frame.loc[frame["language"] == "E", "reason_at_depth"] = (
        f"at 2 layers: certificate: aa ∈ L and aaa ∉ L; {ANY_PRECISION} after 2 layers")
    note = str(disagreements(frame, summary).set_index("language").loc["E", "note"])
    assert "any precision" in note and "errs on one word of the pair" in note
