"""`expressivity rope-range`: the certified length range of standard RoPE for Y^k."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``rope-range`` subcommand."""
    p = sub.add_parser(
        "rope-range",
        help="up to which length standard RoPE can single out Y^k (certified N_max)",
        description=__doc__
        + " A sufficient condition: the float head's target score is the strict maximum up to "
        "N_max (expressivity.models.rope_range, docs/theory.md).",
    )
    p.add_argument("--base", type=float, default=10000.0, help="RoPE base B (default 10000)")
    p.add_argument("--dim", type=int, default=64, help="rotated head width D (default 64)")
    p.add_argument(
        "--dtype", default="float32", help="float16, bfloat16 or float32 (default float32)"
    )
    p.add_argument("--k", type=int, default=1, help="the offset of Y^k (default 1)")
    p.add_argument(
        "--limit", type=int, default=1_000_000, help="search lengths up to this (default 10^6)"
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print N_max (or the JSON record of `rope_range`)."""
    from expressivity.models.rope_range import rope_range

    result = rope_range(args.base, args.dim, args.dtype, args.k, limit=args.limit)
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.describe())
    return 0
