"""`expressivity masks`: print (and plot) the attention masks a layout spelling gives its heads."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``masks`` subcommand."""
    p = sub.add_parser(
        "masks",
        help="print each distinct head pattern's mask of a layout as a 0/1 grid",
        description=__doc__ + " Rows are queries, columns keys, over the tokens BOS, w1..wN, "
        "EOS; 1 = may attend, as the model attends (the sink rule applied). Example: "
        "`expressivity masks W1 --length 5` (a symmetric window where each token sees itself "
        "and its two neighbours), `expressivity masks AT0+AT2 --length 5` (global tokens at "
        "positions 0 and 2). Spellings: docs/guide/encoders.md and `expressivity.models.layouts`.",
    )
    p.add_argument("layout", metavar="SPELLING",
                   help="a layout preset or custom spelling, e.g. W1, AT0+AT2, longformer-enc-1, "
                   "swin-2, hybrid-1")
    p.add_argument("--length", type=int, default=5,
                   help="tokens of the string, BOS and EOS included (default 5: BOS, w1..w3, "
                   "EOS)")
    p.add_argument("--layer", type=int, default=None,
                   help="only this layer (counted from 0; default: every layer's patterns)")
    p.add_argument("--layers", type=int, default=2, help="layers of the model (default 2)")
    p.add_argument("--heads", type=int, default=4, help="heads per layer (default 4)")
    p.add_argument("--seed", type=int, default=0,
                   help="mask seed of random atoms (ModelConfig.mask_seed; default 0)")
    p.add_argument("--non-strict", action="store_true",
                   help="causal atoms with the diagonal (ModelConfig.strict = false)")
    p.add_argument("--plot", metavar="FILE", default=None,
                   help="also save the masks as a picture (png, pdf or svg, by extension)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print every distinct head mask; save the plot when asked."""
    from expressivity.models.mask_view import layout_masks, plot_masks, token_labels

    views = layout_masks(args.layout, args.length, n_layers=args.layers, n_heads=args.heads,
                         layer=args.layer, seed=args.seed, strict=not args.non_strict)
    labels = token_labels(args.length)
    print(f"layout {args.layout}: {len(views)} distinct head pattern(s) over {args.length} "
          f"tokens ({', '.join(labels)})")
    for view in views:
        print()
        print(view.describe())
    if args.plot:
        plot_masks(views).savefig(args.plot)
        print(f"\nwrote {args.plot}")
    return 0
