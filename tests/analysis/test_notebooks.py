"""The notebooks execute top to bottom against the fixture store, and are committed executed,
with outputs that are current: notebook 01's printed text is what it prints now, notebook 03's
tables are what its committed store gives now, and notebook 04 (which trains) was executed
with the current training code."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from expressivity.analysis import agreement, matrix, to_markdown
from expressivity.analysis.figures import RESULTS_ENV
from expressivity.analysis.store_report import build_report
from expressivity.fingerprint import code_fingerprint

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


def _printed(notebook: nbformat.NotebookNode) -> list[str]:
    """The text every code cell printed (stream output), cell by cell."""
    return ["".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
            for cell in notebook.cells if cell.cell_type == "code"]


def _markdown_outputs(notebook: nbformat.NotebookNode) -> list[str]:
    return [str(o["data"]["text/markdown"]) for cell in notebook.cells if cell.cell_type == "code"
            for o in cell.outputs if "text/markdown" in o.get("data", {})]


#: Notebooks whose printed text depends on nothing but the code (no store, no clock).
DETERMINISTIC = ("01_define_a_language",)
#: Notebooks that train models: their numbers belong to the code they were executed with.
TRAINED = ("04_what_did_it_learn",)


def test_notebook_03_shows_what_its_committed_store_gives() -> None:
    """The store 03 names in its output, read now, gives every table and the agreement line
    it shows (a store or an analysis change without `make notebooks` fails here)."""
    notebook = nbformat.read(ROOT / "notebooks" / "03_reproduce_results.ipynb", as_version=4)
    printed = "".join(_printed(notebook))
    named = [line.split(": ", 1)[1] for line in printed.splitlines()
             if line.startswith("results store: ")]
    assert len(named) == 1, "notebook 03 prints the store it reads"
    store = ROOT / named[0]
    assert store.is_file(), f"notebook 03 read {named[0]}, which is not committed"
    report = build_report(store)
    shown = _markdown_outputs(notebook)
    for table in (report.summary, report.class_summary, matrix(report.comparison, "verdict")):
        assert to_markdown(table) in shown
    assert f"{agreement(report.comparison)}\n" in _printed(notebook)


@pytest.mark.parametrize("stem", TRAINED)
def test_trained_notebooks_were_executed_with_the_current_code(stem: str) -> None:
    """`notebooks/execute.py` records the code fingerprint; a change to the training code
    (models, training, data, ...) makes the stored numbers stale until re-executed."""
    notebook = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    recorded = notebook.metadata.get("expressivity", {}).get("code_fingerprint")
    assert recorded == code_fingerprint(), (
        f"{stem}.ipynb was executed with code {recorded}, this code is {code_fingerprint()}: "
        f"run `python notebooks/execute.py notebooks/{stem}.ipynb` (a few minutes) and commit it")


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
    if path.stem in DETERMINISTIC:  # what it prints now is what is committed
        assert _printed(notebook) == _printed(nbformat.read(path, as_version=4)), (
            f"{path.name}: the committed outputs are stale; run `make notebooks`")
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
