"""The seed results of [LC26], each shown (or not) by named cells of a results store.

[LC26] states four comparisons between attention types; a table of the toolkit shows each one
when some language separates the layouts as the statement says, both in theory (a proof and a
certificate, `analysis.prediction_table`) and in the runs (our criterion, `analysis.comparison`):

- **local ⊉ global**: a language recognized with global attention and with no k-local layout;
- **global ⊉ local**: a language recognized with 1-local attention and not with global;
- **hybrid ⊋ both**: a language recognized with hybrid-1 and with neither global nor any
  k-local layout (strictness; that hybrid-1 contains both is the theorem);
- **larger windows worse**: a language recognized with a window of 1 and not with a larger
  one (local-1 against local-k, hybrid-1 against hybrid-k, k ≥ 2).

Cells are grouped by their *base layout* (`sweeps.cell_labels.Cell.layout`): a table trained
with one protocol has one cell per base layout (``global+log-n [4 layers]`` is global
attention); where a store holds several cells of one base layout, a language counts as
recognized there when some cell recognizes it. A witness is listed with the cells that show it,
so every claim can be checked on the results page.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from expressivity.layouts.presets import parse_preset
from expressivity.sweeps.cell_labels import Cell

__all__ = ["SEED_COLUMNS", "seed_results"]

#: Columns of `seed_results`.
SEED_COLUMNS = ("claim", "shown", "theory_witnesses", "observed_witnesses", "cells")

#: language → base layout → (proved yes, certified no, recognized in some run)
_Verdicts = dict[str, dict[str, tuple[bool, bool, bool]]]


def _family(base: str) -> tuple[str, int | None] | None:
    preset = parse_preset(base)
    if preset is None or preset.global_heads is not None:
        return None
    if preset.family == "global":
        return ("global", None)
    if preset.family in ("local", "hybrid"):
        return (preset.family, preset.window)
    return None


def _verdicts(comparison: pd.DataFrame) -> tuple[_Verdicts, dict[tuple[str, str], list[str]]]:
    verdicts: _Verdicts = {}
    labels: dict[tuple[str, str], list[str]] = {}
    for row in comparison.itertuples():
        if str(row.alphabet or "") != "":
            continue  # the papers' languages, over their default alphabets
        base = Cell.parse(str(row.layout)).layout
        if _family(base) is None:
            continue
        yes, no = str(row.predicted) == "yes", str(row.predicted) == "no"
        old = verdicts.setdefault(str(row.language), {}).get(base, (False, False, False))
        verdicts[str(row.language)][base] = (old[0] or yes, old[1] or no,
                                             old[2] or bool(row.observed))
        labels.setdefault((str(row.language), base), []).append(str(row.layout))
    return verdicts, labels


def _claims() -> list[tuple[str, Callable[[dict[str, bool]], bool]]]:
    def by(family: str, k: int | None = None) -> Callable[[dict[str, bool]], list[bool]]:
        return lambda cells: [v for b, v in cells.items()
                              if (f := _family(b)) is not None and f[0] == family
                              and (k is None or f[1] == k)]

    def larger(family: str) -> Callable[[dict[str, bool]], list[bool]]:
        return lambda cells: [v for b, v in cells.items()
                              if (f := _family(b)) is not None and f[0] == family
                              and (f[1] or 0) >= 2]

    g, loc, l1, h1 = by("global"), by("local"), by("local", 1), by("hybrid", 1)
    return [
        ("local ⊉ global: recognized with global attention, with no k-local layout",
         lambda c: any(g(c)) and bool(loc(c)) and not any(loc(c))),
        ("global ⊉ local: recognized with 1-local attention, not with global",
         lambda c: any(l1(c)) and bool(g(c)) and not any(g(c))),
        ("hybrid ⊋ both: recognized with hybrid-1, with neither global nor any k-local layout",
         lambda c: any(h1(c)) and bool(g(c)) and bool(loc(c)) and not any(g(c) + loc(c))),
        ("larger windows worse: recognized with a window of 1, not with a larger one",
         lambda c: (any(l1(c)) and bool(larger("local")(c)) and not all(larger("local")(c)))
         or (any(h1(c)) and bool(larger("hybrid")(c)) and not all(larger("hybrid")(c)))),
    ]


def seed_results(comparison: pd.DataFrame) -> pd.DataFrame:
    """One row per seed result of [LC26] (`SEED_COLUMNS`) over a `predicted_vs_observed`
    frame: the languages that show it in theory (proved "yes" where the claim needs a
    recognizer, certified "no" where it needs a failure), those that show it in the runs (our
    criterion), and the cells of the languages shown both ways (✓ recognized, ✗ not).
    ``shown`` is true when some language shows it both ways. Empty unless the store has
    global, local and hybrid cells."""
    verdicts, labels = _verdicts(comparison)
    families = {f[0] for cells in verdicts.values() for b in cells if (f := _family(b))}
    if families != {"global", "local", "hybrid"}:
        return pd.DataFrame(columns=list(SEED_COLUMNS))
    rows = []
    for claim, holds in _claims():
        proved, seen = [], []
        for language, cells in verdicts.items():
            if holds({b: v[2] for b, v in cells.items()}):
                seen.append(language)
            # in theory: the claim holds when every cell not proved "yes" counts as failing
            # and also when every cell not certified "no" counts as recognizing, i.e. its
            # positive cells are proved and its negative cells certified
            if holds({b: v[0] for b, v in cells.items()}) and holds(
                    {b: not v[1] for b, v in cells.items()}):
                proved.append(language)
        both = [x for x in seen if x in proved]
        shown = "; ".join(f"{x}: " + ", ".join(
            f"{lab} {'✓' if verdicts[x][b][2] else '✗'}"
            for b in verdicts[x] for lab in labels[(x, b)]) for x in both)
        rows.append({"claim": claim, "shown": bool(both), "theory_witnesses": ", ".join(proved),
                     "observed_witnesses": ", ".join(seen), "cells": shown})
    return pd.DataFrame(rows, columns=list(SEED_COLUMNS))
