"""The notebooks execute top to bottom against the fixture store, and are committed clean."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from expressivity.analysis.figures import RESULTS_ENV

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_the_notebooks_exist() -> None:
    assert [p.name for p in NOTEBOOKS] == [
        "01_define_a_language.ipynb",
        "02_attention_patterns.ipynb",
        "03_reproduce_results.ipynb",
        "04_what_did_it_learn.ipynb",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_without_outputs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(
    path: Path, example_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nbclient import NotebookClient

    monkeypatch.setenv(RESULTS_ENV, str(example_db))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()  # raises CellExecutionError if any cell errors
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    if path.stem.startswith("03"):
        text = "".join(o.get("text", "") for o in outputs)
        assert str(example_db) in text  # read the store named by the environment
