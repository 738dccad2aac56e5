"""The code fingerprint: a hash of the source that decides a run's metrics, kept beside its run id.

A run id hashes the spec and the toolkit version; the version does not change with every
edit of the training code, so one run id can stand for the metrics of several codes. The
results store therefore keeps, for every run, the fingerprint of the code that produced it
(``runs.code_fingerprint``), and `expressivity sweep`, `results` and `figures` say when a
store holds runs of other code.

What is fingerprinted (`FINGERPRINTED`): the packages and modules a training run imports —
``logic``, ``automata``, ``algebra`` (languages, DFAs, adversarial witnesses), ``data``
(sampling and splits), ``models``, ``training``, and ``alphabet``, ``catalogue``,
``checkpoint``, ``config``, ``layouts``, ``resolve`` — with their grammar files and the
built-in catalogue (``languages/*.toml``). `tests/test_fingerprint.py` checks that this covers
the import closure of `training.train` and `training.ensemble.train_ensemble`. Left out:
``errors`` and ``disk`` (message texts), ``_version`` (already in the run id), ``sweeps``,
``analysis``, ``extraction``, ``cli`` (how runs are scheduled and shown, not what they compute).

Python files are hashed as their syntax tree without docstrings (so comments, docstrings and
formatting do not change the fingerprint, any code change does); other files as their text.
A store written before fingerprints existed has none: its runs read as `UNKNOWN_LABEL`.
"""

from __future__ import annotations

import ast
import hashlib
from functools import cache
from pathlib import Path

__all__ = [
    "FINGERPRINTED",
    "FINGERPRINT_DIGITS",
    "UNKNOWN_LABEL",
    "code_fingerprint",
    "fingerprint_label",
    "fingerprinted_files",
]

#: Packages and modules of `expressivity` whose source decides a run's metrics.
FINGERPRINTED = (
    "algebra", "automata", "data", "languages", "logic", "models", "training",
    "layouts", "alphabet.py", "catalogue", "checkpoint.py", "config.py", "resolve.py",
)
#: Hex digits of a fingerprint.
FINGERPRINT_DIGITS = 12
#: How a run without a fingerprint (from a store older than fingerprints) is shown.
UNKNOWN_LABEL = "unknown (older code)"
_SUFFIXES = (".py", ".lark", ".toml")
_PACKAGE = Path(__file__).resolve().parent


def fingerprinted_files(package: Path = _PACKAGE) -> list[Path]:
    """The files hashed into `code_fingerprint`, sorted by their path inside the package."""
    out: list[Path] = []
    for name in FINGERPRINTED:
        path = package / name
        if path.is_dir():
            out.extend(p for p in path.rglob("*") if p.suffix in _SUFFIXES and p.is_file()
                       and "__pycache__" not in p.parts)
        elif path.is_file():
            out.append(path)
    return sorted(out, key=lambda p: p.relative_to(package).as_posix())


@cache
def code_fingerprint(package: Path = _PACKAGE) -> str:
    """The fingerprint of this installation's training-relevant code (see the module doc)."""
    digest = hashlib.sha256()
    for path in fingerprinted_files(package):
        text = path.read_text(encoding="utf-8")
        body = _canonical(text) if path.suffix == ".py" else text.replace("\r\n", "\n")
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(body.encode() + b"\0")
    return digest.hexdigest()[:FINGERPRINT_DIGITS]


def fingerprint_label(fingerprint: object) -> str:
    """A stored fingerprint as shown to a reader: `UNKNOWN_LABEL` when there is none."""
    if isinstance(fingerprint, str) and fingerprint:
        return fingerprint
    return UNKNOWN_LABEL  # None, pandas' NA, ""


def _canonical(source: str) -> str:
    """The syntax tree of ``source`` without docstrings, as text that does not depend on the
    Python version's `ast.dump` (empty fields are left out)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                node.body = body[1:] or [ast.Pass()]
    return _dump(tree)


def _dump(node: object) -> str:
    if isinstance(node, ast.AST):
        fields = []
        for name, value in ast.iter_fields(node):
            if value is None or value == []:
                continue
            fields.append(f"{name}={_dump(value)}")
        return f"{type(node).__name__}({','.join(fields)})"
    if isinstance(node, list):
        return "[" + ",".join(_dump(v) for v in node) + "]"
    return repr(node)
