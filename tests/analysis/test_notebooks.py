"""The notebooks execute top to bottom against the fixture store, and are committed executed."""

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
def test_committed_with_outputs(path: Path) -> None:
    """Executed top to bottom (`make notebooks`), so they read on a code host."""
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1)), path.name
    assert any(cell.outputs for cell in code), path.name
    errors = [o for cell in code for o in cell.outputs if o.get("output_type") == "error"]
    assert not errors, path.name


#: Notebook 01 runs in the default tier; the others (a sweep store, training runs) are slow.
EXECUTED = [
    pytest.param(p, marks=() if p.stem.startswith("01") else pytest.mark.slow) for p in NOTEBOOKS
]


@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: p.stem)
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


def test_notebooks_extra_and_make_target() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {r.split(">")[0] for r in extras["optional-dependencies"]["notebooks"]}
    assert {"jupyterlab", "nbclient", "nbformat", "ipykernel"} <= names
    makefile = (ROOT / "Makefile").read_text()
    assert "\nnotebooks: " in makefile and "notebooks/execute.py" in makefile
