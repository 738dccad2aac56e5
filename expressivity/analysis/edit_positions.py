"""Where a trained recognizer misses a one-letter change: by length and by where in the word.

An edit-distance-1 *replacement pair* is a word w of length n and the word w' that replaces
its letter at position p by another letter so that exactly one of them is in the language
(the table's "hard" adversarial pairs, restricted to replacements so both words have the same
length and the change has one position). A recognizer gets the pair right when it decides
both words right.

Two failures give different pictures (docs/theory.md §19, "Forgotten or drowned"):

* a recognizer that *forgets* keeps a fading memory of what it read: it is right on changes
  among the last few letters and wrong on changes far from the end (the state's gates are
  below 1 in the channels the decision reads);
* a recognizer that is *drowned* errs on changes among the last `NEAR` letters too, at
  lengths beyond those it was right at: what the rest of the word wrote outweighs the change
  however recent it is (the decision reads a proportion or a sum that grows with the length,
  not the event). `NEAR` is shorter than every training length, so a drowned run read such
  recent letters right on its training words.

`replacement_pairs` draws pairs with the change at a given *place* of the word: "near"
(among its last `NEAR` letters), "far" (among its first quarter) or "middle" (between), from
exactly uniform members and non-members of that length (`data.sampling.WordSampler`) and every
label-changing replacement of each (`data.negatives.single_edit_neighbours`); `draw_pairs`
draws them for every length from the seed, so every run of a language meets the same pairs;
`pair_accuracy` decides them with any ``decide`` (codes to logits, positive accepts), so the
reading is checked on deciders whose failure is known by construction; `edit_reading` names
the failure from the first lengths at which the near and the far pairs err.
`edit_positions_store` probes every completed run of a store from the checkpoints beside it,
and ``python -m expressivity.analysis.edit_positions STORE --out FILE`` writes the page.
Limits: `MAX_LENGTH` letters, `MAX_PAIRS` pairs per length and place, `MAX_DRAWS` words
drawn per length (`BARREN_DRAWS` when none of them has a label-changing replacement).
The pairs, their places and these limits live in `analysis.edit_pairs`, re-exported here.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from expressivity.analysis.edit_pairs import (
    BARREN_DRAWS,
    LENGTHS,
    MAX_DRAWS,
    MAX_LENGTH,
    MAX_PAIRS,
    NEAR,
    PLACES,
    ReplacementPair,
    draw_pairs,
    place_of,
    replacement_pairs,
)

__all__ = ["BARREN_DRAWS", "LENGTHS", "MAX_DRAWS", "MAX_LENGTH", "MAX_PAIRS", "NEAR", "PLACES",
           "EditReading", "ReplacementPair", "draw_pairs", "edit_positions_store", "edit_reading",
           "main", "pair_accuracy", "place_of", "replacement_pairs"]

Decide = Callable[[list[np.ndarray]], np.ndarray]


def pair_accuracy(decide: Decide, pairs: Mapping[int, Sequence[ReplacementPair]]
                  ) -> pd.DataFrame:
    """One row per length and place with pairs: ``length``, ``place``, ``pairs``, ``right``
    (pairs whose member ``decide`` accepts and whose non-member it rejects) and ``accuracy``."""
    rows = []
    for n, drawn in pairs.items():
        if not drawn:
            continue
        words = [np.asarray(w, dtype=np.int64) for p in drawn for w in (p.member, p.nonmember)]
        logits = np.asarray(decide(words), dtype=np.float64).reshape(len(drawn), 2)
        right = (logits[:, 0] > 0) & (logits[:, 1] <= 0)
        places = np.array([p.place for p in drawn])
        for place in PLACES:
            mask = places == place
            if mask.any():
                rows.append({"length": int(n), "place": place, "pairs": int(mask.sum()),
                             "right": int(right[mask].sum()),
                             "accuracy": float(right[mask].mean())})
    return pd.DataFrame(rows, columns=["length", "place", "pairs", "right", "accuracy"])


@dataclass(frozen=True)
class EditReading:
    """The first lengths at which the near and the far pairs err (None: never, or no such
    pairs), and the reading, the first that applies of: "holds" (no pair wrong); "within
    training" (some pair is wrong at a length the run trained on: the pairs were not learned,
    whatever happens beyond); "far only" / "near only" (the language's pairs sit at one of the
    two places, FIRST's at the first letter: the probe cannot tell the failures apart);
    "forgets" (far pairs err, near ones never); "drowned" (near pairs err from the first length
    at which any pair does; far ones may err there too, the accuracies say how much);
    "forgets, then drowns" (far pairs first, near ones at a longer length)."""

    reading: str
    near: int | None
    far: int | None


def _first_error(table: pd.DataFrame, place: str) -> int | None:
    wrong = table[(table["place"] == place) & (table["right"] < table["pairs"])]
    return int(wrong["length"].min()) if len(wrong) else None


def edit_reading(table: pd.DataFrame, trained: int = 0) -> EditReading:
    """`EditReading` of a `pair_accuracy` table, for a run trained on lengths ≤ ``trained``."""
    if not len(table):
        return EditReading("no pairs", None, None)
    places = set(table["place"])
    near, far = _first_error(table, "near"), _first_error(table, "far")
    wrong = table.loc[table["right"] < table["pairs"], "length"]
    first = int(wrong.min()) if len(wrong) else None  # the first length any pair errs at
    if first is None:
        reading = "holds"
    elif first <= trained:
        reading = "within training"
    elif "near" not in places or "far" not in places:
        reading = "far only" if "near" not in places else "near only"
    elif near is None:
        reading = "forgets"
    elif near <= first:
        reading = "drowned"
    else:
        reading = "forgets, then drowns"
    return EditReading(reading, near, far)


def edit_positions_store(db: str, lengths: Sequence[int] = LENGTHS, *, per_place: int = 16,
                         run_ids: Collection[str] | None = None) -> pd.DataFrame:
    """One row per completed run of ``db`` (of ``run_ids`` only, when given): its cell, whether
    it is recognized (ours), its adversarial accuracy, the `edit_reading` of its
    `pair_accuracy` (from the checkpoint beside the store), and per length the accuracy on the
    near and on the far pairs ("near n=40", "far n=40", ...; empty without such pairs)."""
    from expressivity.extraction.oracle import MembershipOracle
    from expressivity.extraction.runs import load_run
    from expressivity.sweeps.store import ResultsStore

    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    done = runs[runs["status"] == "completed"]
    if run_ids is not None:
        done = done[done["run_id"].isin(set(run_ids))]
    rows, drawn = [], {}
    for run in done.sort_values(["language", "layout", "seed"]).itertuples():
        stored = load_run(db, str(run.run_id))
        if run.language not in drawn:
            drawn[run.language] = draw_pairs(stored.source.dfa, lengths, per_place=per_place)
        table = pair_accuracy(MembershipOracle(stored.model).logits, drawn[run.language])
        reading = edit_reading(table, int(run.max_train_length or 0))
        row = {"language": run.language, "layout": run.layout, "seed": run.seed,
               "run": run.run_id, "recognized": bool(run.recognized),
               "adversarial": round(float(run.adversarial_accuracy), 3),
               "reading": reading.reading, "near errs from": reading.near,
               "far errs from": reading.far}
        for n in lengths:
            for place in ("near", "far"):
                hit = table[(table["length"] == n) & (table["place"] == place)]
                row[f"{place} n={n}"] = (round(float(hit["accuracy"].iloc[0]), 2) if len(hit)
                                         else None)
        rows.append(row)
    table = pd.DataFrame(rows)
    for column in ("near errs from", "far errs from"):
        if column in table.columns:
            table[column] = table[column].astype("Int64")  # lengths, empty when never
    return table


def _summary(table: pd.DataFrame) -> list[str]:
    if not len(table):
        return ["No completed run to probe."]
    lines = ["| reading | runs | recognized by our criterion |", "|---|---:|---:|"]
    for reading, group in table.groupby("reading", sort=True):
        lines.append(f"| {reading} | {len(group)} | {int(group['recognized'].sum())} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Write `edit_positions_store`'s table as Markdown, with the command and the runs digest."""
    from expressivity.analysis.levers import lever_selection
    from expressivity.analysis.provenance import runs_digest, write_page
    from expressivity.sweeps.report import to_markdown

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--out", required=True)
    parser.add_argument("--pairs", type=int, default=16,
                        help="pairs per length and place (default 16)")
    parser.add_argument("--lever", help="probe the runs of this [[lever]] of the store's "
                        "sweeps only (default: every completed run)")
    parser.add_argument("--layout", action="append", help="probe the runs of this layout "
                        "only (repeatable; with --lever, the lever's runs of it)")
    args = parser.parse_args(argv)
    runs, ids = lever_selection(args.store, args.lever, args.layout)
    table = edit_positions_store(args.store, per_place=args.pairs, run_ids=ids)
    digest = runs_digest(runs)
    options = ("" if args.pairs == 16 else f" --pairs {args.pairs}") + (
        "" if args.lever is None else f" --lever {args.lever}") + "".join(
        f" --layout {layout}" for layout in args.layout or ())
    command = (f"python -m expressivity.analysis.edit_positions {args.store} --out "
               f"{args.out}{options}")
    write_page(args.out, "Where the runs miss a one-letter change", command,
               f"the store's runs digest `{digest}` and the checkpoints beside it", [
        f"Per completed run (`expressivity.analysis.edit_positions`), up to {args.pairs} "
        "replacement pairs per length and place (a member and a non-member of one length that "
        "differ in one letter, drawn from uniform members and non-members). *near n=…* is the "
        f"accuracy on the pairs whose changed letter is among the word's last {NEAR} letters, "
        "*far n=…* on those whose changed letter is in its first quarter; a pair is right when "
        "both words are. The reading is the first that applies: *holds* (no pair wrong); "
        "*within training* (a pair is wrong at a length the run trained on: the pairs were "
        "never learned); *far only* / *near only* (the language's pairs sit at one place, "
        "FIRST's at the first letter, so the probe cannot tell the failures apart); *forgets* "
        "(far changes are missed, near ones never); *drowned* (near changes are missed from the "
        "first length at which any change is: what the rest of the word wrote outweighs the "
        "change; far ones may be missed there too, the columns say how often); *forgets, then "
        "drowns* (far changes first, near ones at a longer length). docs/theory.md §19.", "",
        *_summary(table), "",
        to_markdown(table) if len(table) else "", "",
    ])
    print(f"{len(table)} runs probed; written to {args.out}")
    return 0


if __name__ == "__main__":
    from expressivity.errors import script_status

    raise SystemExit(script_status(main))
