"""`expressivity train`: train one recognizer and print its per-length table and verdict."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``train`` subcommand."""
    p = sub.add_parser(
        "train",
        help="train a recognizer on a language and judge its length generalization",
        description=__doc__,
    )
    p.add_argument("language", help="catalogue name (e.g. LT-2), formula or regex")
    p.add_argument("--layout", default="global", help="attention layout (default: global)")
    p.add_argument("--profile", default="quick", help="paper, quick or tiny (default: quick)")
    p.add_argument("--alphabet", default=None, help="alphabet override, e.g. a,b,c")
    p.add_argument("--seed", type=int, default=None, help="seed (default: the profile's first)")
    p.add_argument("--lr", type=float, default=None, help="learning rate (default: the profile's)")
    p.add_argument("--steps", type=int, default=None, help="step budget (default: the profile's)")
    p.add_argument("--device", default=None, help="cpu, cuda or cuda:N (default: cpu)")
    p.add_argument("--threads", type=int, default=None,
                   help="CPU threads offered (default: 1); the model computes on one thread, "
                   "so metrics do not depend on it")
    p.add_argument("--out", default=None, help="directory for the checkpoint and data cache")
    p.add_argument("--no-resume", action="store_true", help="ignore an existing checkpoint")
    p.add_argument("--every", type=int, default=1, help="print every N-th length (errors always)")
    p.add_argument("--json", action="store_true", help="print the full run record as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train, then print the table and verdict; exit 0 when completed, 1 when the run failed."""
    from expressivity.errors import ConfigError
    from expressivity.training.evaluate import length_table
    from expressivity.training.loop import train
    from expressivity.training.prepare import check_spec
    from expressivity.training.profiles import run_spec

    given = {"steps": args.steps, "device": args.device, "threads": args.threads}
    changes = {key: value for key, value in given.items() if value is not None}
    spec = run_spec(args.language, args.layout, args.profile, seed=args.seed, lr=args.lr,
                    alphabet=args.alphabet, **changes)
    _, model, _ = check_spec(spec)  # bad configs stop here with a ConfigError naming the field
    if spec.train.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ConfigError(f"--device: {spec.train.device!r} requested but CUDA is not "
                              "available on this machine; use --device cpu")
    print(f"run {spec.run_id}: {spec.language} with {spec.layout} attention "
          f"({model.n_layers} layers x {model.n_heads} heads, width {model.d_model}), "
          f"profile {spec.profile}, seed {spec.seed}, lr {spec.train.lr:g}, "
          f"{spec.train.steps} steps max on {spec.train.device}", flush=True,
          file=sys.stderr if args.json else sys.stdout)  # --json: stdout is JSON only
    record = train(spec, out_dir=args.out, quiet=args.quiet, resume=not args.no_resume)
    if args.json:
        json.dump(record.to_dict(), sys.stdout, indent=2, default=str)
        print()
    else:
        print(length_table(record, every=max(1, args.every)))
    return 0 if record.status == "completed" else 1
