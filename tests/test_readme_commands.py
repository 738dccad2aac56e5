"""The README's and the notebooks' commands, run as written on a fresh clone (issue 29).

A fenced shell block (```sh, ```bash, ```console or ```shell) preceded by the line
``<!-- run -->`` (blank lines between are allowed) is *marked*: the slow test clones the
repository (``git clone``: committed files only, as a new user gets them), links the running
virtual environment as the clone's ``.venv`` (so ``.venv/bin/expressivity`` and ``make``-free
commands work) and runs every marked block of a document, in order, in one ``bash -e`` session
at the clone's root (a variable such as ``E=.venv/bin/expressivity`` carries over to later
blocks). Markdown cells of ``notebooks/*.ipynb`` are searched the same way. A failing block is
named by its file and line. Blocks that install, reach a cluster or run for hours are not
marked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^\s*<!--\s*run\s*-->\s*$")
FENCE = re.compile(r"^\s*```\s*(sh|bash|console|shell)?\s*$")
#: Longest time one document's marked blocks may take together (seconds).
TIMEOUT = 3600


@dataclass(frozen=True)
class Block:
    """A marked shell block: where it is and its text."""

    path: str
    line: int  # 1-based line of the opening fence (in a notebook: within its cell)
    code: str


def marked_blocks(text: str, path: str = "<text>") -> list[Block]:
    """The shell blocks of markdown ``text`` marked with ``<!-- run -->``."""
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if not MARKER.match(lines[i]):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j >= len(lines) or not FENCE.match(lines[j]):
            raise AssertionError(f"{path}:{i + 1}: <!-- run --> is not followed by a shell block")
        end = j + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end >= len(lines):
            raise AssertionError(f"{path}:{j + 1}: the marked block is never closed")
        blocks.append(Block(path, j + 1, "\n".join(lines[j + 1:end])))
        i = end + 1
    return blocks


def notebook_blocks(path: Path) -> list[Block]:
    """The marked shell blocks of a notebook's markdown cells."""
    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    out: list[Block] = []
    for number, cell in enumerate(cells, 1):
        if cell.get("cell_type") == "markdown":
            source = "".join(cell.get("source", []))
            out += marked_blocks(source, f"{path.name} cell {number}")
    return out


def script(blocks: list[Block]) -> str:
    """One bash script running ``blocks`` in order, announcing each by file and line."""
    parts = ["set -eu"]  # no pipefail: `... | head` ends its writer with SIGPIPE, as intended
    for b in blocks:
        parts += [f"echo '::: {b.path}:{b.line}' >&2", b.code]
    return "\n".join(parts) + "\n"


def command_env(checkout: Path) -> dict[str, str]:
    """The environment of the commands: the running venv's scripts on PATH, ``checkout``'s
    package first on the import path, no display."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(checkout)
    env["MPLBACKEND"] = "Agg"
    env.pop("EXPRESSIVITY_CATALOGUE", None)
    return env


def run_blocks(blocks: list[Block], checkout: Path) -> subprocess.CompletedProcess[str]:
    """Run ``blocks`` in ``checkout`` (its root is the working directory)."""
    return subprocess.run(["bash", "-c", script(blocks)], cwd=checkout, env=command_env(checkout),
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)


def fresh_clone(dest: Path) -> Path:
    """A ``git clone`` of this checkout's committed state, with the running venv as ``.venv``."""
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(dest)],
                   check=True, capture_output=True, text=True)
    if sys.prefix != sys.base_prefix:  # running inside a virtual environment
        (dest / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return dest


def _documents() -> list[tuple[str, list[Block]]]:
    docs = [("README.md", marked_blocks((ROOT / "README.md").read_text(encoding="utf-8"),
                                        "README.md"))]
    docs += [(p.name, notebook_blocks(p)) for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    return docs


# ------------------------------------------------------------------ the harness itself


def test_marked_blocks_are_found_with_their_lines() -> None:
    text = ("# T\n\n<!-- run -->\n\n```sh\necho one\necho two\n```\n\n```sh\nnot marked\n```\n"
            "<!-- run -->\n```bash\nE=x\n```\n")
    blocks = marked_blocks(text, "T.md")
    assert [(b.line, b.code) for b in blocks] == [(5, "echo one\necho two"), (14, "E=x")]
    with pytest.raises(AssertionError, match=r"T\.md:1: <!-- run --> is not followed"):
        marked_blocks("<!-- run -->\ntext\n", "T.md")
    with pytest.raises(AssertionError, match="never closed"):
        marked_blocks("<!-- run -->\n```sh\necho\n", "T.md")


def test_blocks_run_in_one_session_and_a_failure_names_its_line(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "expressivity", tmp_path / "expressivity")
    good = [Block("T.md", 3, 'E="python -m expressivity.cli"'),
            Block("T.md", 9, '$E formula "P a" --alphabet a,b --word ab')]
    done = run_blocks(good, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "word ab (N = 2): in L(φ)" in done.stdout
    bad = run_blocks([*good, Block("T.md", 20, "$E compile 'P(' --alphabet a")], tmp_path)
    assert bad.returncode == 2  # the CLI's input-error status, and nothing ran after it
    assert "error:" in bad.stderr.split("::: T.md:20", 1)[1]


# ------------------------------------------------------------------ the documents


@pytest.mark.slow
@pytest.mark.parametrize("document", [name for name, _ in _documents()])
def test_marked_commands_run_on_a_fresh_clone(document: str, tmp_path: Path) -> None:
    blocks = dict(_documents())[document]
    if not blocks:
        pytest.skip(f"{document} marks no shell block with <!-- run -->")
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: nothing to clone")
    clone = fresh_clone(tmp_path / "clone")
    done = run_blocks(blocks, clone)
    tail = "\n".join((done.stdout + done.stderr).splitlines()[-40:])
    assert done.returncode == 0, f"a marked command of {document} failed:\n{tail}"
