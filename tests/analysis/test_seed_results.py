"""The seed results of [LC26] read off a store's theory-vs-experiment frame."""

from __future__ import annotations

import pandas as pd

from expressivity.analysis.seed_results import seed_results

# language → layout → (prediction, recognized in some run)
CELLS = {
    "PREFIX-a": {"global": ("yes", True), "local-1": ("no", False), "local-2": ("no", False),
                 "hybrid-1": ("yes", True), "hybrid-2": ("yes", True)},
    "SUFFIX-a": {"global": ("no", False), "local-1": ("yes", True), "local-2": ("no", False),
                 "hybrid-1": ("yes", True), "hybrid-2": ("no", False)},
    "LT-2": {"global": ("no", False), "local-1": ("no", False), "local-2": ("no", False),
             "hybrid-1": ("yes", False), "hybrid-2": ("unknown", False)},
}


def _comparison(cells: dict[str, dict[str, tuple[str, bool]]], suffix: str = "") -> pd.DataFrame:
    return pd.DataFrame([
        {"language": lang, "alphabet": "", "layout": layout + suffix, "predicted": p,
         "observed": seen}
        for lang, row in cells.items() for layout, (p, seen) in row.items()])


def test_each_claim_names_the_languages_that_show_it_in_theory_and_in_the_runs() -> None:
    table = seed_results(_comparison(CELLS)).set_index("claim")
    rows = {c.split(":")[0]: r for c, r in table.iterrows()}
    assert rows["local ⊉ global"]["theory_witnesses"] == "PREFIX-a"
    assert rows["local ⊉ global"]["shown"] and "global ✓" in rows["local ⊉ global"]["cells"]
    assert rows["global ⊉ local"]["observed_witnesses"] == "SUFFIX-a"
    # LT-2 separates hybrid-1 in theory, but no run learned it: shown in theory only
    hybrid = rows["hybrid ⊋ both"]
    assert (hybrid["theory_witnesses"], hybrid["observed_witnesses"]) == ("LT-2", "")
    assert not hybrid["shown"]
    # SUFFIX-a: local-1 and hybrid-1 recognize it, local-2 and hybrid-2 are certified no
    assert rows["larger windows worse"]["theory_witnesses"] == "SUFFIX-a"
    assert rows["larger windows worse"]["shown"]


def test_an_unknown_cell_never_certifies_a_failure() -> None:
    cells = {"L": {"global": ("yes", True), "local-1": ("unknown", False),
                   "hybrid-1": ("yes", True)}}
    table = seed_results(_comparison(cells))
    assert table.loc[0, "observed_witnesses"] == "L" and table.loc[0, "theory_witnesses"] == ""


def test_cells_group_by_base_layout_whatever_their_protocol() -> None:
    table = seed_results(_comparison(CELLS, " [4 layers]"))
    assert list(table["shown"]) == [True, True, False, True]
    assert "PREFIX-a: global [4 layers] ✓" in table.loc[0, "cells"]
    assert seed_results(_comparison({"L": {"global": ("yes", True)}})).empty
