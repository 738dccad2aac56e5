"""How far a trained model carries its first letter: gate paths, influence and signal by length.

The measures themselves, what each means and what it bounds, are `analysis.first_letter`'s;
this module takes them over a store: `memory_store` tabulates `memory_by_length` for its runs
and `memory_summary` sums the table up. `python -m expressivity.analysis.memory STORE --out
FILE` writes them for every completed run of a store whose layout has diagonal mixers, from
the checkpoints beside the store (not committed), with the command and the runs digest.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection, Sequence

import pandas as pd

from expressivity.algebra.layout_verdicts import has_mixers
from expressivity.analysis.first_letter import LENGTHS, memory_by_length
from expressivity.models.ssm.mixers import DiagonalSSM, SelectiveSSM

__all__ = ["USES_LETTER", "memory_store", "memory_summary"]


def memory_store(db: str, lengths: Sequence[int] = LENGTHS, *, words: int = 16,
                 run_ids: Collection[str] | None = None) -> pd.DataFrame:
    """One row per completed run of ``db`` (of ``run_ids`` only, when given) whose layout has
    diagonal mixers: its cell, whether it is recognized (ours), its test accuracy and
    `memory_by_length` (columns "kept n=40", ..., log10, then "influence n=40", ..., logit
    units, then "signal n=40", ..., residual units, then "relative n=40", ..., the signal over
    the residual's norm)."""
    from expressivity.extraction.runs import load_run
    from expressivity.sweeps.store import ResultsStore

    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    done = runs[runs["status"] == "completed"]
    if run_ids is not None:
        done = done[done["run_id"].isin(set(run_ids))]
    rows = []
    for run in done.itertuples():
        if not has_mixers(str(run.layout)):  # the spelling says so: no checkpoint to load
            continue
        model = load_run(db, str(run.run_id)).model
        if not any(isinstance(m, (SelectiveSSM, DiagonalSSM))
                   for block in model.blocks for m in block.attn.mixers):
            continue
        found = memory_by_length(model, lengths, words=words)
        rows.append({"language": run.language, "layout": run.layout, "run": run.run_id,
                     "seed": run.seed, "recognized": bool(run.recognized),
                     "test accuracy": round(float(run.test_accuracy), 3),
                     **{f"kept n={n}": round(v[0], 2) for n, v in found.items()},
                     **{f"influence n={n}": round(v[1], 2) for n, v in found.items()},
                     **{f"signal n={n}": round(v[2], 3) for n, v in found.items()},
                     **{f"relative n={n}": round(v[3], 3) for n, v in found.items()}})
    return pd.DataFrame(rows)


#: A run *uses* the first letter when its influence at the shortest length is at least this.
USES_LETTER = 1.0


def memory_summary(table: pd.DataFrame) -> list[str]:
    """The generated page's summary lines: kept at the longest length over all runs, and, over
    the runs that use the first letter at the shortest length (influence ≥ `USES_LETTER`), the
    signal at the longest length as a fraction of the shortest's, beside their kept values."""
    if not len(table):
        return []
    lengths = sorted(int(c.split("=")[1]) for c in table.columns if c.startswith("kept n="))
    short, long = lengths[0], lengths[-1]
    kept = table[f"kept n={long}"]
    lines = [f"**Kept at n = {long}, over the {len(table)} runs: lowest {kept.min():.2f}, "
             f"median {kept.median():.2f}, highest {kept.max():.2f} (log10).**", ""]
    using = table[table[f"influence n={short}"] >= USES_LETTER]
    if len(using):
        raw = using[f"signal n={long}"] / using[f"signal n={short}"]
        rel = using[f"relative n={long}"] / using[f"relative n={short}"]
        held = using[f"influence n={long}"] >= USES_LETTER
        lines += [f"**Of these, {len(using)} runs use the first letter at n = {short} (influence "
                  f"≥ {USES_LETTER:g}). At n = {long} their signal is {raw.min():.2f}–"
                  f"{raw.max():.2f} of its n = {short} value (median {raw.median():.2f}), their "
                  f"relative signal {rel.min():.2f}–{rel.max():.2f} of it (median "
                  f"{rel.median():.2f}), their kept {using[f'kept n={long}'].min():.2f}–"
                  f"{using[f'kept n={long}'].max():.2f}, and {int(held.sum())} of them still "
                  f"have influence ≥ {USES_LETTER:g}.**", ""]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Write `memory_store`'s table as Markdown, with the command and the runs digest."""
    from expressivity.analysis.levers import lever_selection
    from expressivity.analysis.provenance import runs_digest, write_page
    from expressivity.sweeps.report import to_markdown

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--out", required=True)
    parser.add_argument("--words", type=int, default=16, help="words per length (default 16)")
    parser.add_argument("--lever", help="measure the runs of this [[lever]] of the store's "
                        "sweeps only (default: every completed run)")
    parser.add_argument("--layout", action="append", help="measure the runs of this layout "
                        "only (repeatable; with --lever, the lever's runs of it)")
    args = parser.parse_args(argv)
    runs, ids = lever_selection(args.store, args.lever, args.layout)
    table = memory_store(args.store, words=args.words, run_ids=ids)
    digest = runs_digest(runs)
    summary = memory_summary(table)
    options = ("" if args.words == 16 else f" --words {args.words}") + (
        "" if args.lever is None else f" --lever {args.lever}") + "".join(
        f" --layout {layout}" for layout in args.layout or ())
    command = f"python -m expressivity.analysis.memory {args.store} --out {args.out}{options}"
    write_page(args.out, "How far the mixers carry the first letter", command,
               f"the store's runs digest `{digest}` and the checkpoints beside it", [
        "Per completed run with diagonal mixers (`expressivity.analysis.memory`), the median "
        f"over {args.words} uniform random words of each length n of: *kept*, log10 of the "
        "largest product of gates on any path from the word's first letter to its EOS (0 keeps "
        "the letter whole, -6 a millionth of it; evidence, not proof: the readout may amplify); "
        "*influence*, how far the accept logit moves when the first letter is replaced by each "
        "letter (max - min); *signal*, the largest distance between the final residual vectors "
        "at EOS (before the last LayerNorm) of the words that differ in the first letter only, "
        "and *relative*, that distance over the vectors' mean norm (the scale the LayerNorm "
        "removes). "
        "Kept near 0 with influence 0 at every length: the memory is there and unused (the run "
        "never learned the letter). Kept is a maximum over every channel, used or not; the "
        "signal is what of the letter reaches the decision, and the influence is its "
        "thresholded image (flat while the signal clears the readout's threshold, then 0).",
        "",
        *summary,
        to_markdown(table) if len(table) else "No completed run has diagonal mixers.", "",
    ])
    print(f"{len(table)} runs measured; written to {args.out}")
    return 0


if __name__ == "__main__":
    from expressivity.errors import script_status

    raise SystemExit(script_status(main))
