"""`expressivity sample`: draw a split (or all splits) for a language and save it to a directory."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from expressivity.errors import ConfigError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sample`` subcommand."""
    p = sub.add_parser(
        "sample",
        help="sample a dataset split for a language",
        description=__doc__,
        epilog="example: expressivity sample LAST --split test --out data/last --seed 1 --quick",
    )
    p.add_argument("language", help="catalogue name, formula or regex (prefix ltl: or re:)")
    p.add_argument(
        "--alphabet", default=None, help="alphabet, e.g. a,b,c (default: the catalogue's)"
    )
    p.add_argument(
        "--split",
        default="test",
        choices=("train", "val_short", "val_long", "test", "adversarial", "all"),
        help="which split to save (train is always drawn, so held-out splits avoid it)",
    )
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--quick", action="store_true", help="the scaled-down CPU profile")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="override a SplitConfig field; VALUE is JSON, e.g. --set test_lengths=[41,60]",
    )
    p.set_defaults(func=run)


def _overrides(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set expects FIELD=VALUE, got {item!r}")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


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
    from expressivity.config import from_mapping, to_plain
    from expressivity.data.splits import SPLITS, SplitConfig, make_splits
    from expressivity.errors import ConfigError
    from expressivity.resolve import resolve

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out: {out} is a file, but --out names a folder for the splits; "
                          "pass a folder path (it is created)")
    source = resolve(args.language, args.alphabet)
    base = SplitConfig.quick() if args.quick else SplitConfig()
    wanted = SPLITS if args.split == "all" else (args.split,)
    fields = {**to_plain(base), **_overrides(args.set), "splits": list(wanted)}
    config = from_mapping(SplitConfig, fields, "--set")
    splits = make_splits(source.dfa, config, args.seed, name=source.name)
    if args.split == "all":
        splits.save(args.out)
    else:
        splits[args.split].save(args.out)
    print(f"language {source.name}  Σ={source.alphabet}  seed {args.seed}  → {args.out}")
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
    return 0
