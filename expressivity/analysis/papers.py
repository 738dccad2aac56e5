"""What [LC25] and [LC26] report per language × layout cell, set beside a results store's cells.

Our sources for the papers (docs/theory.md §5) give their outcome as a pattern, not as a table of
numbers: [LC25] (global attention, 11 languages) reports 100 % max accuracy for every language
inside LTL[P] and generalization errors for every language outside it, "regardless of learning
rates or random seeds"; [LC26] (7 layouts, 8 languages) reports local models perfect only on the
LTL[Y] languages, global only on the LTL[P] ones, hybrid-1 on all six LTL[P,Y] languages, and
larger windows worse. `REPORTED` holds the cells these sentences decide and nothing else: a
cell the pattern leaves open (local-2 on Σ*a, say: "larger windows worse" gives no verdict) is
not listed. Both papers call a cell recognized when some run of 15 (5 seeds × 3 learning rates,
1,000,000 steps, test lengths 41-500 × 512) is perfect; `papers_comparison` applies the same rule
to our runs, so the comparison is of verdicts at different budgets, and says so in ``budget``.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["PAPERS_COLUMNS", "REPORTED", "papers_comparison"]

_LC25_INSIDE = ("FIRST", "LT-1", "PT-2", "LDP-1", "LDP-2")
_LC25_OUTSIDE = ("LAST", "RDP-1", "LT-2", "DYCK-(1,1)", "DYCK-(1,2)", "PARITY")
_LC26_Y = ("SUFFIX-a", "SUFFIX-ab")
_LC26_P = ("PREFIX-a", "PT-2")
_LC26_PY = ("DYCK-(1,1)", "LT-2")
_LC26_OUT = ("RDP-1", "DYCK-(1,2)")


def _reported() -> tuple[tuple[str, str, str, bool, str], ...]:
    rows: list[tuple[str, str, str, bool, str]] = []
    for lang in _LC25_INSIDE:
        rows.append(("LC25", lang, "global", True, "inside LTL[P]: 100 % max accuracy"))
    for lang in _LC25_OUTSIDE:
        rows.append(("LC25", lang, "global", False, "outside LTL[P]: errors for every run"))
    six = _LC26_Y + _LC26_P + _LC26_PY
    for lang in six + _LC26_OUT:
        rows.append(("LC26", lang, "global", lang in _LC26_P,
                     "global perfect only on the LTL[P] languages"))
        rows.append(("LC26", lang, "local-1", lang in _LC26_Y,
                     "local perfect only on the LTL[Y] languages"))
        if lang in six:
            rows.append(("LC26", lang, "hybrid-1", True,
                         "hybrid-1 perfect on all six LTL[P,Y] languages"))
        if lang not in _LC26_Y:
            for k in (2, 4):
                rows.append(("LC26", lang, f"local-{k}", False,
                             "local perfect only on the LTL[Y] languages"))
    return tuple(rows)


#: (paper, language, layout, reported recognized, the sentence of the paper that decides it).
REPORTED = _reported()
#: Columns of `papers_comparison`.
PAPERS_COLUMNS = ("paper", "language", "layout", "reported", "basis", "ours", "recognized_runs",
                  "max_accuracy", "n_star", "same", "budget")


def papers_comparison(summary: pd.DataFrame, stability: pd.DataFrame, budget: str) -> pd.DataFrame:
    """`REPORTED` cells that the store ran (default alphabets only), with our verdict.

    ``summary`` is `analysis.tables.summarize`'s frame, ``stability`` `seed_stability`'s, and
    ``budget`` a short description of our runs' budget (e.g. "standard, 3 seeds"), written in
    every row. ``same`` is whether our verdict (some run recognized) equals the reported one.
    """
    ours = summary[summary["alphabet"].fillna("") == ""].set_index(["language", "layout"])
    runs = stability[stability["alphabet"].fillna("") == ""].set_index(["language", "layout"])
    rows = []
    for paper, language, layout, reported, basis in REPORTED:
        if (language, layout) not in ours.index:
            continue
        cell = ours.loc[(language, layout)]
        recognized = bool(cell["recognized"])
        counted = runs.loc[(language, layout)] if (language, layout) in runs.index else None
        rows.append({
            "paper": paper, "language": language, "layout": layout,
            "reported": "recognized" if reported else "not recognized", "basis": basis,
            "ours": "recognized" if recognized else "not recognized",
            "recognized_runs": (f"{counted['recognized_runs']}/{counted['runs']}"
                                if counted is not None else ""),
            "max_accuracy": cell["max_accuracy"], "n_star": cell["n_star"],
            "same": recognized == reported, "budget": budget,
        })
    return pd.DataFrame(rows, columns=list(PAPERS_COLUMNS))
