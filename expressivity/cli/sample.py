"""`expressivity sample`: draw a split (or all splits) for a language and save it to a directory."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from expressivity.cli import add_anchor_option

EPILOG = """\
examples:
  expressivity sample LAST --out data/last --seed 1 --show 5
  expressivity sample LT-2 --split all --profile paper --out data/lt2 --format jsonl

formats (one directory per split with --split all, else OUT itself):
  npz    examples.npz + dataset.json, the toolkit's own format (Dataset.load reads it).
         examples.npz is a zip of .npy arrays, numpy.load opens it: word i is
         codes[offsets[i]:offsets[i+1]] (symbol indices into the alphabet of dataset.json),
         labels (bool, membership), and one array per example for split, kind (positive,
         negative, perturbed, hard, adversarial), edits, distance, pair_id, family, fragment,
         depth. dataset.json holds the alphabet and the provenance (language, DFA hash, seed,
         generator config, toolkit version).
  txt    SPLIT.txt: one example a line, symbols separated by spaces, a tab, label 1 or 0.
  jsonl  SPLIT.jsonl: one JSON object a line: word, symbols, label, length, kind, split.
"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sample`` subcommand."""
    p = sub.add_parser(
        "sample",
        help="sample a dataset split for a language",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("language", help="catalogue name, formula or regex (prefix ltl: or re:)")
    p.add_argument(
        "--alphabet", default=None, help="alphabet, e.g. a,b,c (default: the catalogue's)"
    )
    p.add_argument(
        "--split",
        default="test",
        choices=("train", "val_short", "val_long", "test", "adversarial", "short", "all"),
        help="which split to save (train is always drawn, so held-out splits avoid it; short: "
        "every word up to length 8, or a fixed sample of 511 such words)",
    )
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--profile",
        default="quick",
        help="data sizes and lengths of a profile: quick, paper or tiny (default: quick; "
        "paper draws 41-500 x 512 test strings)",
    )
    p.add_argument(
        "--format",
        choices=("npz", "txt", "jsonl"),
        default="npz",
        help="npz (the toolkit's format), txt or jsonl (default npz; layouts below)",
    )
    p.add_argument("--show", type=int, default=0, metavar="N", help="print N examples per split")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    add_anchor_option(p)
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="override a SplitConfig field; VALUE is JSON, e.g. --set test_lengths=[41,60]",
    )
    p.set_defaults(func=run)


def _runs(per_length: dict[int, tuple[int, int]]) -> list[tuple[int, int, int, int]]:
    """Group consecutive lengths with equal (members, non-members) counts."""
    runs: list[tuple[int, int, int, int]] = []
    for n, (pos, neg) in sorted(per_length.items()):
        if runs and runs[-1][1] == n - 1 and runs[-1][2:] == (pos, neg):
            runs[-1] = (runs[-1][0], n, pos, neg)
        else:
            runs.append((n, n, pos, neg))
    return runs


def run(args: argparse.Namespace) -> int:
    """Resolve the language, draw the splits, save, and print per-length counts and balance."""
    import numpy as np

    from expressivity.config import from_mapping, parse_overrides, to_plain
    from expressivity.data.splits import SPLITS, SplitConfig, make_splits
    from expressivity.errors import ConfigError
    from expressivity.resolve import resolve
    from expressivity.training.profiles import get_profile

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out: {out} is a file, but --out names a folder for the splits; "
                          "pass a folder path (it is created)")
    source = resolve(args.language, args.alphabet, at=args.at, logic=args.logic)
    base = get_profile(args.profile).split_config()
    wanted = SPLITS if args.split == "all" else (args.split,)
    fields = {**to_plain(base), **parse_overrides(args.set), "splits": list(wanted)}
    config = from_mapping(SplitConfig, fields, "--set")
    if args.show < 0:
        raise ConfigError(f"--show: expected a number of examples >= 0, got {args.show}")
    drawn = ("train", *(s for s in SPLITS[1:] if s in wanted))
    with _progress(drawn, quiet=args.quiet) as step:
        splits = make_splits(source.dfa, config, args.seed, name=source.name, progress=step)
    written = _save(splits, args.out, args.format, single=args.split != "all")
    print(f"language {source.name}  Σ={source.alphabet}  profile {args.profile}  "
          f"seed {args.seed}  → {written}")
    for name, ds in splits.items():
        pos = int(ds.labels.sum())
        print(f"\n[{name}] {len(ds)} examples: {pos} members, {len(ds) - pos} non-members")
        print(f"  {'lengths':<11} {'members':>8} {'non-members':>12} {'balance':>8}")
        for lo, hi, p, n in _runs(ds.per_length()):
            span = f"{lo}" if lo == hi else f"{lo}-{hi}"
            print(f"  {span:<11} {p:>8} {n:>12} {p / (p + n):>8.2f}")
        kinds = {str(k): int((ds.kind == k).sum()) for k in dict.fromkeys(ds.kind.tolist())}
        print("  kinds: " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
        for note in splits.notes.get(name, ()):
            print(f"  note: {note}")
        shown = np.random.default_rng(args.seed).choice(len(ds), min(args.show, len(ds)), False)
        for i in sorted(shown.tolist()):
            word = ds.alphabet.format_word(ds.symbols(i))
            verdict = "member    " if ds.labels[i] else "non-member"
            print(f"  {verdict} {ds.kind[i]:<11} {word}")
    return 0


def _save(splits: Any, out: str, fmt: str, *, single: bool) -> str:
    """Write the split(s) in ``fmt``; returns what to report as the destination."""
    from pathlib import Path

    from expressivity.data.export import export

    if fmt == "npz":
        if single:
            next(iter(splits.values())).save(out)
        else:
            splits.save(out)
        return out
    for name, ds in splits.items():
        export(ds, Path(out) / f"{name}.{fmt}", fmt)
    return str(Path(out) / f"*.{fmt}")


class _progress:
    """A tqdm bar over the splits being drawn (on stderr; off with --quiet)."""

    def __init__(self, splits: tuple[str, ...], *, quiet: bool) -> None:
        from tqdm import tqdm  # not tqdm.auto: it warns in a kernel without ipywidgets

        # disable=None: no bar when stderr is not a terminal (logs, CI)
        self.bar = tqdm(total=len(splits), unit="split", disable=True if quiet else None,
                        leave=False)

    def __enter__(self) -> Any:
        started: list[str] = []

        def step(split: str) -> None:
            if started:  # the previous split is done
                self.bar.update(1)
            started.append(split)
            self.bar.set_description(f"drawing {split}")

        return step

    def __exit__(self, *exc: object) -> None:
        self.bar.close()
