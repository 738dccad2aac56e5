"""Render tidy tables as GitHub Markdown, LaTeX (booktabs) or CSV text; no file I/O, no tabulate.

Markdown, CSV and the cell formatting are `sweeps.report`'s (one writer for the CLI tables and
the figure tables); this module adds LaTeX.

Markdown and LaTeX show floats with ``digits`` decimals, booleans as yes/no and missing values
as an em dash; CSV keeps full precision and leaves missing values empty (it is data, not a
picture). A frame with a named index (such as `tables.matrix`) gets the index as first column.
"""

from __future__ import annotations

import pandas as pd

from expressivity.sweeps.report import (
    format_cell,
    format_number,
    to_csv,
    to_markdown,
    with_index_column,
)

__all__ = ["format_number", "to_csv", "to_latex", "to_markdown"]

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
#: Unicode that the toolkit prints, in forms pdflatex understands (amssymb for ✓ and ⊊).
_LATEX_UNICODE = {
    "Σ": r"$\Sigma$",
    "—": "---",
    "–": "--",
    "≤": r"$\le$",
    "≥": r"$\ge$",
    "∩": r"$\cap$",
    "⊊": r"$\subsetneq$",
    "✓": r"$\checkmark$",
    "✗": r"$\times$",
    "×": r"$\times$",
    "·": r"$\cdot$",
    "→": r"$\to$",
    "ω": r"$\omega$",
    "ε": r"$\varepsilon$",
}


def _rows(table: pd.DataFrame, digits: int) -> tuple[list[str], list[list[str]]]:
    frame = with_index_column(table)
    head = [str(c) for c in frame.columns]
    body = [[format_cell(v, digits) for v in row]
            for row in frame.astype(object).itertuples(index=False)]
    return head, body


def _latex_text(text: str) -> str:
    out = "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)
    return "".join(_LATEX_UNICODE.get(ch, ch) for ch in out)


def to_latex(table: pd.DataFrame, *, caption: str = "", label: str = "", digits: int = 3) -> str:
    """A booktabs ``table`` environment (needs ``\\usepackage{booktabs,amssymb}``)."""
    head, body = _rows(table, digits)
    frame = with_index_column(table)
    align = "".join(
        "r" if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
        else "l"
        for c in frame.columns
    )
    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{_latex_text(caption)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines += [
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(_latex_text(h) for h in head) + r" \\",
        r"\midrule",
        *(" & ".join(_latex_text(c) for c in row) + r" \\" for row in body),
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"
