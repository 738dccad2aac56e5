"""What [LC25], [LC26] and [JSLC26] report per cell, set beside a results store's cells.

Our sources for the papers (docs/theory.md §5) give their outcome as a pattern, not as a table of
numbers: [LC25] (global attention, 11 languages) reports 100 % max accuracy for every language
inside LTL[P] and generalization errors for every language outside it, "regardless of learning
rates or random seeds"; [LC26] (7 layouts, 8 languages) reports local models perfect only on the
LTL[Y] languages, global only on the LTL[P] ones, hybrid-1 on all six LTL[P,Y] languages, and
larger windows worse. `REPORTED` holds the cells these sentences decide and nothing else: a
cell the pattern leaves open (local-2 on Σ*a, say: "larger windows worse" gives no verdict) is
not listed. Both papers call a cell recognized when some run of 15 (5 seeds × 3 learning rates,
1,000,000 steps, test lengths 41-500 × 512) reaches 100 % test accuracy: **the papers'
criterion**, on random test strings only. `papers_comparison` applies that criterion to our
runs for ``ours`` and ``same`` (the comparison is of verdicts at different budgets, and says
so in ``budget``), and shows **our criterion** beside it (``ours_strict``: also every
adversarial pair and every short word; "not tested on short words" for runs recorded before
the short split existed), since the two can differ.

[JSLC26] (positional encodings, global attention) reports numbers, quoted in issue 18 (we had
no copy of the paper, docs/theory.md §7): periodic RoPE reaches N* = 500 on (aa)* and (ab)*;
periodic sinusoidal, as expressive in theory, fails near N* ≈ 41–44; RoPE with base 10⁴ has
mean N* 45.5 on Σ*a and 146.9 on aΣ*. `JSLC26_REPORTED` holds these; `positions_comparison`
computes the same statistic (best or mean N* over a cell's completed runs) from a store whose
cells carry positional encodings (`sweeps.cells`).
"""

from __future__ import annotations

import pandas as pd

from expressivity.sweeps.cell_labels import Cell

__all__ = ["JSLC26_REPORTED", "PAPERS_COLUMNS", "POSITIONS_COLUMNS", "REPORTED",
           "papers_comparison", "positions_comparison"]

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
PAPERS_COLUMNS = ("paper", "language", "layout", "reported", "basis", "ours", "perfect_runs",
                  "ours_strict", "recognized_runs", "max_accuracy", "n_star", "same", "budget")


def _strict(cell: pd.Series) -> str:
    if bool(cell["recognized"]):
        return "recognized"
    untested = cell.get("untested_short", False)
    return "not tested on short words" if not pd.isna(untested) and bool(untested) else (
        "not recognized")


def papers_comparison(summary: pd.DataFrame, stability: pd.DataFrame, budget: str) -> pd.DataFrame:
    """`REPORTED` cells that the store ran (default alphabets only), with our verdicts.

    ``summary`` is `analysis.tables.summarize`'s frame, ``stability`` `seed_stability`'s, and
    ``budget`` a short description of our runs' budget (e.g. "standard, 3 seeds"), written in
    every row. A reported layout is matched by every NoPE, EOS-read cell of that layout
    (``global``, ``global+log-n [4 layers]``, ...: the same class, docs/theory.md §8-§9), one
    row each. ``ours`` and ``perfect_runs`` use the papers' criterion (some run at 100 % test
    accuracy), ``same`` is whether that verdict equals the reported one; ``ours_strict`` and
    ``recognized_runs`` use ours (test, adversarial pairs and short words).
    """
    ours = summary[summary["alphabet"].fillna("") == ""].set_index(["language", "layout"])
    runs = stability[stability["alphabet"].fillna("") == ""].set_index(["language", "layout"])
    by_base: dict[tuple[str, str], list[str]] = {}
    for language, label in ours.index:
        cell = Cell.parse(str(label))
        if cell.positional == "none" and cell.readout == "eos":  # NoPE at EOS, as the papers
            by_base.setdefault((str(language), cell.layout), []).append(str(label))
    rows = [_row(paper, language, layout, reported, basis, ours.loc[(language, layout)],
                 runs.loc[(language, layout)] if (language, layout) in runs.index else None,
                 budget)
            for paper, language, reported_layout, reported, basis in REPORTED
            for layout in by_base.get((language, reported_layout), [])]
    return pd.DataFrame(rows, columns=list(PAPERS_COLUMNS))


def _row(paper: str, language: str, layout: str, reported: bool, basis: str, cell: pd.Series,
         counted: pd.Series | None, budget: str) -> dict[str, object]:
    def count(column: str) -> str:
        if counted is None or column not in counted.index:
            return ""
        return f"{counted[column]}/{counted['runs']}"

    perfect = bool(cell["perfect_on_test"])
    return {
        "paper": paper, "language": language, "layout": layout,
        "reported": "recognized" if reported else "not recognized", "basis": basis,
        "ours": "recognized" if perfect else "not recognized",
        "perfect_runs": count("perfect_runs"), "ours_strict": _strict(cell),
        "recognized_runs": count("recognized_runs"),
        "max_accuracy": cell["max_accuracy"], "n_star": cell["n_star"],
        "same": perfect == reported, "budget": budget,
    }


#: (language, layout, positional encoding, statistic, reported value, the paper's sentence).
JSLC26_REPORTED: tuple[tuple[str, str, str, str, str, str], ...] = (
    ("EVEN-a-2", "global", "periodic-rope", "max N*", "500", "periodic RoPE reaches N* = 500"),
    ("DYCK-(1,1)", "global", "periodic-rope", "max N*", "500", "periodic RoPE reaches N* = 500"),
    ("EVEN-a-2", "global", "periodic-sinusoidal", "max N*", "41–44",
     "periodic sinusoidal fails near N* ≈ 41–44"),
    ("DYCK-(1,1)", "global", "periodic-sinusoidal", "max N*", "41–44",
     "periodic sinusoidal fails near N* ≈ 41–44"),
    ("SUFFIX-a", "global", "rope", "mean N*", "45.5", "RoPE base 10⁴: mean N* 45.5 on Σ*a"),
    ("PREFIX-a", "global", "rope", "mean N*", "146.9", "RoPE base 10⁴: mean N* 146.9 on aΣ*"),
)
#: Columns of `positions_comparison`.
POSITIONS_COLUMNS = ("paper", "language", "cell", "statistic", "reported", "ours", "per_run",
                     "recognized_runs", "basis", "budget")


def positions_comparison(runs: pd.DataFrame, budget: str) -> pd.DataFrame:
    """`JSLC26_REPORTED` beside the same statistic of the store's cells (``runs`` labelled by
    `sweeps.cells.with_cells`; default alphabets; any periods). ``per_run`` lists every
    completed run's N* in seed order."""
    done = runs[(runs["status"] == "completed") & (runs["alphabet"].fillna("") == "")]
    cells = [Cell.parse(str(x)) for x in done["layout"]]
    done = done.assign(base=[c.layout for c in cells], encoding=[c.positional for c in cells])
    rows = []
    for language, layout, encoding, statistic, reported, basis in JSLC26_REPORTED:
        for cell, group in done[(done["language"] == language) & (done["base"] == layout)
                                & (done["encoding"] == encoding)].groupby("layout", sort=True):
            n_star = group.sort_values("seed")["n_star"].astype("float64")
            value = n_star.max() if statistic == "max N*" else n_star.mean()
            rows.append({
                "paper": "JSLC26", "language": language, "cell": cell, "statistic": statistic,
                "reported": reported, "ours": f"{value:.1f}".removesuffix(".0"),
                "per_run": ", ".join(str(int(v)) for v in n_star),
                "recognized_runs": f"{int(group['recognized'].fillna(False).astype(bool).sum())}"
                                   f"/{len(group)}",
                "basis": basis, "budget": budget,
            })
    return pd.DataFrame(rows, columns=list(POSITIONS_COLUMNS))
