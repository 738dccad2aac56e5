"""Levers compared cell by cell: the exact McNemar test and the discordant cells of a store."""

from __future__ import annotations

from math import comb
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from expressivity.analysis.lever_pairing import (
    PAIR_COLUMNS,
    lever_cells,
    lever_pairs,
    mcnemar_exact,
    sweep_lever_pairs,
)
from expressivity.analysis.levers import lever_table
from expressivity.sweeps.spec import parse_sweep
from tests.sweeps.test_levers import SPEC


def _as_extreme(b: int, c: int) -> float:
    """Brute force: the probability, under Bin(b + c, 1/2), of a split at least as uneven."""
    n = b + c
    return sum(comb(n, x) for x in range(n + 1) if min(x, n - x) <= min(b, c)) / 2**n


@given(st.integers(0, 40), st.integers(0, 40))
def test_mcnemar_is_the_probability_of_a_split_at_least_as_uneven(b: int, c: int) -> None:
    p = mcnemar_exact(b, c)
    assert p == pytest.approx(_as_extreme(b, c))
    assert p == mcnemar_exact(c, b) and 0 < p <= 1
    if b == c:
        assert p == 1.0


def test_mcnemar_known_values_and_bad_counts() -> None:
    assert mcnemar_exact(3, 0) == 0.25  # 2 · (1/2)^3
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(10, 0) == pytest.approx(2 / 1024)
    with pytest.raises(ValueError, match="non-negative"):
        mcnemar_exact(-1, 2)


@pytest.fixture(scope="module")
def ablation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from expressivity.sweeps.runner import run_sweep
    from tests.sweeps.conftest import InlineExecutor
    from tests.sweeps.fake import fake_train

    db = tmp_path_factory.mktemp("pairs") / "r.db"
    run_sweep(parse_sweep(SPEC, "a.toml"), db, executor=InlineExecutor(), train_fn=fake_train,
              progress=False, group="off")
    return db


def test_pairs_count_each_cell_once_and_agree_with_the_recall_per_lever(ablation: Path) -> None:
    from expressivity.sweeps.store import ResultsStore

    spec = parse_sweep(SPEC, "a.toml")
    with ResultsStore(ablation, create=False) as store:
        runs = store.runs()
    cells = lever_cells(runs, spec)
    assert list(cells) == ["baseline", "ssmax", "hard"]
    for frame in cells.values():  # the spec's layouts, not the cell labels (global+ssmax)
        assert set(frame["layout"]) == {"global", "local-1"}
    pairs = lever_pairs(cells)
    assert list(pairs.columns) == list(PAIR_COLUMNS)
    assert list(zip(pairs["lever_a"], pairs["lever_b"], strict=True)) == [
        ("baseline", "ssmax"), ("baseline", "hard"), ("ssmax", "hard")]
    learned = lever_table(runs, spec).set_index("lever")["yes_learned"]
    for row in pairs.itertuples():
        assert row.both + row.only_a + row.only_b + row.neither == row.yes_cells == 2
        assert row.both + row.only_a == learned[row.lever_a]
        assert row.both + row.only_b == learned[row.lever_b]
        assert float(row.p_value) == pytest.approx(mcnemar_exact(row.only_a, row.only_b), rel=0.05)
        assert len([c for c in row.only_a_cells.split("; ") if c]) == row.only_a
    against_first = lever_pairs(cells, all_pairs=False)
    assert list(against_first["lever_b"]) == ["ssmax", "hard"]
    assert set(against_first["lever_a"]) == {"baseline"}


def test_the_pairs_name_the_discordant_cells() -> None:
    import pandas as pd

    def frame(observed: list[bool]) -> pd.DataFrame:
        return pd.DataFrame({"language": ["A", "B", "C"], "layout": ["x", "x", "y"],
                             "predicted": ["yes", "yes", "no"], "observed": observed,
                             "papers_observed": [True, True, True]})

    pairs = lever_pairs({"one": frame([True, False, True]), "two": frame([False, False, False])})
    row = pairs.iloc[0]
    assert (row["yes_cells"], row["only_a"], row["only_b"], row["neither"]) == (2, 1, 0, 1)
    assert row["only_a_cells"] == "A × x" and row["only_b_cells"] == ""  # C is not proven yes
    assert row["p_value"] == "1"  # one discordant cell: a fair coin's split
    assert (row["only_a_papers"], row["only_b_papers"]) == (0, 0)


def test_the_figures_of_an_ablation_carry_the_pairs(ablation: Path, tmp_path: Path) -> None:
    from expressivity.analysis.figures import write_figures
    from expressivity.analysis.store_report import build_report

    report = build_report(ablation)
    assert set(report.lever_pairs["sweep"]) == {"ablation"} and len(report.lever_pairs) == 3
    assert "lever_pairs" in report.tables()
    write_figures(ablation, tmp_path / "out", formats=("svg",))
    page = (tmp_path / "out" / "README.md").read_text()
    assert "### Levers cell by cell" in page and "| ablation | baseline | ssmax |" in page
    assert (tmp_path / "out" / "tables" / "lever_pairs.csv").exists()


def test_a_store_without_levers_has_no_pairs() -> None:
    import pandas as pd

    assert sweep_lever_pairs(pd.DataFrame(columns=["run_id"]), {}).empty
