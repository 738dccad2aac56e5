"""Plain-text exports of a `Dataset`: ``txt`` (word TAB label) and ``jsonl`` (one object a line).

The native format (`Dataset.save`) is ``examples.npz`` + ``dataset.json``; these two are for
loaders that read text (FLaRe-style and DRN23-style pipelines). Symbols are separated by single
spaces, so multi-character symbols (``b0``) stay readable; the empty word is an empty field.
"""

from __future__ import annotations

import json
from pathlib import Path

from expressivity.data.dataset import Dataset

#: Export formats of `expressivity sample --format` besides the native ``npz``.
TEXT_FORMATS = ("txt", "jsonl")


def to_text_lines(ds: Dataset) -> list[str]:
    """``"a b c\\t1"`` per example: the symbols separated by spaces, a tab, then 1 or 0."""
    return [f"{' '.join(ds.symbols(i))}\t{int(ds.labels[i])}" for i in range(len(ds))]


def to_json_lines(ds: Dataset) -> list[str]:
    """One JSON object per example: word, symbols, label, length, kind and split."""
    return [
        json.dumps(
            {
                "word": " ".join(ds.symbols(i)),
                "symbols": list(ds.symbols(i)),
                "label": int(ds.labels[i]),
                "length": int(ds.lengths[i]),
                "kind": str(ds.kind[i]),
                "split": str(ds.split[i]),
            },
            ensure_ascii=False,
        )
        for i in range(len(ds))
    ]


def export(ds: Dataset, path: str | Path, fmt: str) -> Path:
    """Write ``ds`` to the file ``path`` as ``txt`` or ``jsonl`` (UTF-8, one example a line)."""
    lines = {"txt": to_text_lines, "jsonl": to_json_lines}[fmt](ds)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return out
