"""Execute the notebooks in place, so they are committed with their outputs (`make notebooks`).

Usage: python notebooks/execute.py [NOTEBOOK ...]   (default: every notebooks/*.ipynb)
Run from the repository root; the results store is $EXPRESSIVITY_RESULTS, else the one that
paper_figures/provenance.json records (notebook 03). Needs nbclient, nbformat and ipykernel
(the dev or notebooks extra). Each notebook's metadata records the code fingerprint
(`expressivity.fingerprint`) it was executed with, under ``expressivity.code_fingerprint``:
tests/analysis/test_notebooks.py fails when the training code has changed since (notebook 04
trains its models, so its printed numbers belong to that code).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from expressivity.fingerprint import code_fingerprint

ROOT = Path(__file__).resolve().parents[1]


def main(paths: list[str]) -> int:
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    notebooks = [Path(p) for p in paths] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for number, path in enumerate(notebooks, start=1):
        print(f"[{number}/{len(notebooks)}] executing {path} ...", flush=True)
        notebook = nbformat.read(path, as_version=4)
        client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                                record_timing=False, resources={"metadata": {"path": str(ROOT)}})
        client.execute()
        notebook.metadata["expressivity"] = {"code_fingerprint": code_fingerprint()}
        nbformat.write(notebook, path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
