"""The code fingerprint: it covers what a run imports, ignores docs, and follows code changes."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from expressivity.fingerprint import (
    FINGERPRINT_DIGITS,
    code_fingerprint,
    fingerprinted_files,
)

PACKAGE = Path(__file__).resolve().parents[1] / "expressivity"
#: Modules a run imports that do not decide its metrics (see `expressivity.fingerprint`).
NOT_FINGERPRINTED = {"expressivity.errors", "expressivity._version", "expressivity.disk"}


def _module_files() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(path: Path, files: dict[str, Path]) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m in files}


def test_the_fingerprint_covers_everything_a_training_run_imports() -> None:
    files = _module_files()
    seen: set[str] = set()
    todo = ["expressivity.training.loop", "expressivity.training.ensemble"]
    while todo:
        module = todo.pop()
        if module in seen or module == "expressivity":
            continue
        seen.add(module)
        parts = module.split(".")
        todo += [".".join(parts[:i]) for i in range(2, len(parts))]  # parent packages
        todo += _imports(files[module], files)
    covered = set(fingerprinted_files())
    missing = sorted(m for m in seen - NOT_FINGERPRINTED if files[m].resolve() not in covered)
    assert not missing, f"add these to expressivity.fingerprint.FINGERPRINTED: {missing}"
    assert len(seen) > 50  # the walk found the training code


def test_docstrings_and_comments_do_not_change_it_code_does(tmp_path: Path) -> None:
    copy = tmp_path / "expressivity"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    base = code_fingerprint(copy)
    assert base == code_fingerprint(PACKAGE) and len(base) == FINGERPRINT_DIGITS
    loop = copy / "training" / "loop.py"
    text = loop.read_text("utf-8")
    loop.write_text(text.replace('"""', '"""Reworded. ', 1) + "\n# a comment\n", "utf-8")
    code_fingerprint.cache_clear()
    assert code_fingerprint(copy) == base
    loop.write_text(text + "\nEXTRA = 1\n", "utf-8")
    code_fingerprint.cache_clear()
    assert code_fingerprint(copy) != base
    loop.write_text(text, "utf-8")
    (copy / "languages" / "first.toml").write_text("# changed\n", "utf-8")
    code_fingerprint.cache_clear()
    assert code_fingerprint(copy) != base
    code_fingerprint.cache_clear()
