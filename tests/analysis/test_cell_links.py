"""Table cells of a results page point at their cell pages; everything else is left alone."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from expressivity.analysis.cell_links import column_cells, link_cells, split_row
from expressivity.analysis.cell_sections import cell_name
from expressivity.analysis.export import to_markdown
from expressivity.analysis.schema import language_label
from expressivity.analysis.store_report import build_report
from expressivity.analysis.tables import matrix

PAGES = {("LT-2", "global"): "lt-2--global.md", ("LT-2", "hybrid-1"): "lt-2--hybrid-1.md",
         ("RDP-1 over {a,b}", "global"): "rdp-1-over-a-b--global.md"}


def test_a_wide_table_links_every_cell_with_a_page() -> None:
    text = ("intro\n\n| language | global | hybrid-1 | local-9 |\n|---|---|---|---|\n"
            "| LT-2 | agree | ✓ 1.000 | x |\n| PARITY | agree | agree | agree |\n\nafter")
    out = link_cells(text, PAGES).split("\n")
    assert out[:4] == text.split("\n")[:4]  # text and the header are kept
    assert out[4] == ("| LT-2 | [agree](cells/lt-2--global.md) | "
                      "[✓ 1.000](cells/lt-2--hybrid-1.md) | x |")
    assert out[5] == "| PARITY | agree | agree | agree |"  # no page: unchanged
    assert out[-1] == "after"


def test_a_long_table_links_the_language_of_each_row() -> None:
    text = ("| language | alphabet | layout | verdict |\n|---|---|---|---|\n"
            "| RDP-1 | a,b | global | agree |\n| LT-2 |  | hybrid-1 | agree |\n"
            "| LT-2 |  | local-1 | agree |")
    out = link_cells(text, PAGES, "../cells/").split("\n")
    assert out[2] == "| [RDP-1](../cells/rdp-1-over-a-b--global.md) | a,b | global | agree |"
    assert out[3] == "| [LT-2](../cells/lt-2--hybrid-1.md) |  | hybrid-1 | agree |"
    assert out[4] == "| LT-2 |  | local-1 | agree |"


def test_disagreements_link_their_cell() -> None:
    text = "- **LT-2, hybrid-1**: failed within it. Theory: yes.\n- **LT-2, local-1**: agree."
    out = link_cells(text, PAGES).split("\n")
    assert out[0] == ("- **[LT-2, hybrid-1](cells/lt-2--hybrid-1.md)**: failed within it. "
                      "Theory: yes.")
    assert out[1] == "- **LT-2, local-1**: agree."


def test_columns_named_by_encoding_match_a_unique_cell() -> None:
    labels = ["global", "global+rope", "hybrid-1+alibi", "global+alibi"]
    assert column_cells(["language", "global", "rope", "alibi", "none"], labels) == \
        [None, "global", "global+rope", None, "global"]


@given(st.lists(st.text(alphabet="ab ✓.0-", min_size=0, max_size=6), min_size=1, max_size=5))
def test_split_row_inverts_a_row(cells: list[str]) -> None:
    stripped = [c.strip() for c in cells]
    assert split_row("| " + " | ".join(stripped) + " |") == stripped


def test_every_cell_of_a_store_matrix_links_to_its_page(example_db: Path) -> None:
    report = build_report(example_db)
    c = report.comparison
    pages = {(language_label(str(lang), "" if pd.isna(a) else str(a)), str(x)):
             cell_name(str(lang), "" if pd.isna(a) else str(a), str(x))
             for lang, a, x in zip(c["language"], c["alphabet"], c["layout"], strict=True)}
    table = to_markdown(matrix(c, "verdict", report.layouts))
    linked = link_cells(table, pages)
    targets = re.findall(r"\]\(cells/([^)]+)\)", linked)
    assert sorted(targets) == sorted(pages.values())  # every cell, once
    assert re.sub(r"\[([^\]]*)\]\(cells/[^)]+\)", r"\1", linked).split("\n") == \
        [line.rstrip() for line in table.split("\n")]
