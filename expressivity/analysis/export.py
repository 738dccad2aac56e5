"""Render tidy tables as GitHub Markdown, LaTeX (booktabs) or CSV text; no file I/O, no tabulate.

Markdown and LaTeX show floats with ``digits`` decimals, booleans as yes/no and missing values
as an em dash; CSV keeps full precision and leaves missing values empty (it is data, not a
picture). A frame with a named index (such as `tables.matrix`) gets the index as first column.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import pandas as pd

from expressivity.sweeps.report import format_number

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


def _missing(value: object) -> bool:
    if value is None or value is pd.NA:
        return True
    return isinstance(value, float) and math.isnan(value)


def _cell(value: object, digits: int) -> str:
    if _missing(value):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        return format_number(float(value), digits)
    return str(value)


def _frame(table: pd.DataFrame) -> pd.DataFrame:
    return table.reset_index() if table.index.name is not None else table


def _rows(table: pd.DataFrame, digits: int) -> tuple[list[str], list[list[str]]]:
    frame = _frame(table)
    head = [str(c) for c in frame.columns]
    body = [[_cell(v, digits) for v in row] for row in frame.astype(object).itertuples(index=False)]
    return head, body


def to_markdown(table: pd.DataFrame, *, digits: int = 3) -> str:
    """A GitHub Markdown table (``|`` in cells escaped); numeric columns right-aligned."""
    head, body = _rows(table, digits)
    frame = _frame(table)
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(
        frame[c]) for c in frame.columns]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = "|" + "|".join("---:" if num else "---" for num in numeric) + "|"
    return "\n".join([line(head), rule, *(line(r) for r in body)]) + "\n"


def _latex_text(text: str) -> str:
    out = "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)
    return "".join(_LATEX_UNICODE.get(ch, ch) for ch in out)


def to_latex(table: pd.DataFrame, *, caption: str = "", label: str = "", digits: int = 3) -> str:
    """A booktabs ``table`` environment (needs ``\\usepackage{booktabs,amssymb}``)."""
    head, body = _rows(table, digits)
    frame = _frame(table)
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


def to_csv(table: pd.DataFrame) -> str:
    """CSV text with full precision; missing values empty; a named index becomes a column."""
    return str(_frame(table).to_csv(index=False, lineterminator="\n"))
