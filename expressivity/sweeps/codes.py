"""Which code made a sweep's runs: code fingerprints per cell, cells that mix codes, the notes.

A results store keeps each run's `expressivity.fingerprint.code_fingerprint` beside its run
id. A run id does not change with the code, so a sweep resumed after the training code
changed would put runs of two codes into one cell (language × layout) of its tables. The
sweep driver (`check_plan_code`) refuses that unless asked: ``other_code="mix"`` keeps the
older runs and adds this code's beside them, ``"rerun"`` trains the runs of other code again
(replacing them). `code_note` is what `results` and `figures` print about a table's runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from expressivity.errors import ConfigError
from expressivity.fingerprint import code_fingerprint, fingerprint_label
from expressivity.sweeps.cells import run_cell
from expressivity.training.spec import RunSpec

__all__ = ["OTHER_CODE", "check_plan_code", "code_counts", "code_note", "mixed_cells"]

#: What a sweep does with completed runs of other code: refuse to mix, mix, or rerun them.
OTHER_CODE = ("refuse", "mix", "rerun")
_SHOWN = 5  # cells named in a message


def code_counts(fingerprints: Iterable[object]) -> dict[str, int]:
    """Label (`fingerprint_label`) → number of runs, most frequent first."""
    return dict(Counter(fingerprint_label(f) for f in fingerprints).most_common())


def _counts_text(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{label} ({n} run{'s' if n != 1 else ''})" for label, n in counts.items())


def mixed_cells(cells: Iterable[tuple[str, str]]) -> list[str]:
    """Cells (pairs of cell name and fingerprint label) holding more than one code, in order."""
    codes: dict[str, set[str]] = {}
    for cell, label in cells:
        codes.setdefault(cell, set()).add(label)
    return [cell for cell, labels in codes.items() if len(labels) > 1]


def _cells(n: int) -> str:
    return f"{n} cell{'s' if n != 1 else ''}"


def _spec_cell(spec: RunSpec) -> str:
    where = f" over {{{spec.alphabet}}}" if spec.alphabet else ""
    return f"{spec.language}{where} × {run_cell(spec)}"


def check_plan_code(
    runs: Sequence[RunSpec], todo: Sequence[RunSpec], completed: Mapping[str, object],
    policy: str,
) -> str | None:
    """The note on runs of other code in a plan (None when there are none); raises
    `ConfigError` under ``policy="refuse"`` when the runs to do would share a cell with them.

    ``completed`` maps the completed run ids that stay (are not rerun) to their fingerprints.
    """
    if policy not in OTHER_CODE:
        raise ConfigError(f"other_code: {policy!r} is not one of {', '.join(OTHER_CODE)}")
    now = code_fingerprint()
    other = {r: f for r, f in completed.items() if fingerprint_label(f) != now}
    if not other:
        return None
    doing = {s.run_id for s in todo}
    final = [(_spec_cell(s), now if s.run_id in doing else fingerprint_label(completed[s.run_id]))
             for s in runs if s.run_id in doing or s.run_id in completed]
    mixed = mixed_cells(final)
    counts = _counts_text(code_counts(other.values()))
    head = (f"{len(other)} completed runs of this sweep were made by other code: {counts}; "
            f"this code is {now}")
    if not mixed:
        return (f"{head}. They are kept (no cell mixes codes); --rerun-other-code trains them "
                "again with this code")
    shown = "; ".join(mixed[:_SHOWN]) + (f"; and {len(mixed) - _SHOWN} more"
                                         if len(mixed) > _SHOWN else "")
    if policy == "refuse":
        raise ConfigError(
            f"{head}. Running the rest would mix codes in {_cells(len(mixed))} ({shown}); "
            "nothing was run. Pass --rerun-other-code to train those runs again with this code, "
            "--mix-code to keep them and mix, or use another --db"
        )
    return f"{head}; mixing codes in {_cells(len(mixed))} ({shown}) as asked (--mix-code)"


def code_note(runs: pd.DataFrame) -> str | None:
    """What a table of ``runs`` (a `ResultsStore.runs` frame, cells in ``layout``) should say
    about the code that made them: None when every run is of this code."""
    if runs.empty or "code_fingerprint" not in runs.columns:
        return None
    labels = [fingerprint_label(f) for f in runs["code_fingerprint"]]
    now = code_fingerprint()
    counts = code_counts(labels)
    if set(counts) == {now}:
        return None
    cells = [f"{lang} × {layout}" for lang, layout in
             zip(runs["language"], runs["layout"], strict=True)]
    mixed = mixed_cells(zip(cells, labels, strict=True))
    text = (f"these {len(runs)} runs were made by {len(counts)} code"
            f"{'s' if len(counts) != 1 else ''}: {_counts_text(counts)}; this code is {now}")
    if mixed:
        text += (f"; codes are mixed in {_cells(len(mixed))}: " + "; ".join(mixed[:_SHOWN])
                 + ("; ..." if len(mixed) > _SHOWN else ""))
    return text
