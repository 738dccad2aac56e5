"""One accuracy prints one way: `expressivity results` (sweeps.report) and the figure tables."""

from __future__ import annotations

import pandas as pd

from expressivity.analysis.export import to_markdown
from expressivity.sweeps.report import format_number, format_table, recognition_matrix


def test_an_almost_perfect_accuracy_never_prints_as_perfect_anywhere() -> None:
    summary = pd.DataFrame({"language": ["L"], "layout": ["global"], "recognized": [False],
                            "max_accuracy": [0.9996]})
    assert format_number(0.9996) == "0.999" and format_number(1.0) == "1.000"
    assert "0.999" in format_table(summary) and "1.000" not in format_table(summary)
    assert recognition_matrix(summary).loc["L", "global"] == "✗ 0.999"
    assert "0.999" in to_markdown(summary[["max_accuracy"]])
