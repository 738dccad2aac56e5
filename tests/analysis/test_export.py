"""Markdown, LaTeX and CSV rendering."""

from __future__ import annotations

import pandas as pd
import pytest

from expressivity.analysis.export import format_number, to_csv, to_latex, to_markdown


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.0, "1.000"), (0.9996, "0.999"), (0.0004, "0.001"), (0.5, "0.500"), (0.98765, "0.988")],
)
def test_only_a_perfect_score_reads_perfect(value: float, text: str) -> None:
    assert format_number(value) == text


def _table() -> pd.DataFrame:
    return pd.DataFrame(
        {"language": ["A|B", "Σ*a_b"], "acc": [0.5, float("nan")], "n": [3, 4],
         "ok": [True, False]}
    ).astype({"n": "Int64"})


def test_markdown() -> None:
    text = to_markdown(_table())
    lines = text.splitlines()
    assert lines[0] == "| language | acc | n | ok |"
    assert lines[1] == "|---|---:|---:|---|"
    assert lines[2] == "| A\\|B | 0.500 | 3 | yes |"
    assert lines[3] == "| Σ*a_b | — | 4 | no |"


def test_markdown_keeps_a_named_index() -> None:
    wide = pd.DataFrame({"global": [1.0]}, index=pd.Index(["LT-2"], name="language"))
    assert to_markdown(wide).splitlines()[2] == "| LT-2 | 1.000 |"


def test_latex_escapes_and_uses_booktabs() -> None:
    text = to_latex(_table(), caption="x & y", label="tab:t")
    assert r"\toprule" in text and r"\bottomrule" in text
    assert r"\caption{x \& y}" in text and r"\label{tab:t}" in text
    assert r"$\Sigma$*a\_b & --- & 4 & no \\" in text
    assert r"\begin{tabular}{lrrl}" in text


def test_csv_is_full_precision_data() -> None:
    frame = pd.DataFrame({"x": [1 / 3, float("nan")], "y": ["a", "b"]})
    assert to_csv(frame).splitlines() == ["x,y", "0.3333333333333333,a", ",b"]
