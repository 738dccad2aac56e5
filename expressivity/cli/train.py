"""`expressivity train`: train one recognizer and print its per-length table and verdict."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from expressivity.cli import add_anchor_option

if TYPE_CHECKING:
    from expressivity.training.spec import RunRecord


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``train`` subcommand."""
    p = sub.add_parser(
        "train",
        help="train a recognizer on a language and judge its length generalization",
        description=__doc__,
    )
    p.add_argument("language", help="catalogue name (e.g. LT-2), formula or regex")
    p.add_argument("--layout", default="global", help="attention layout (default: global)")
    p.add_argument("--profile", default="quick",
                   help="paper, standard, quick or tiny (default: quick)")
    p.add_argument("--alphabet", default=None, help="alphabet override, e.g. a,b,c")
    p.add_argument("--seed", type=int, default=None, help="seed (default: the profile's first)")
    p.add_argument("--lr", type=float, default=None, help="learning rate (default: the profile's)")
    p.add_argument("--steps", type=int, default=None, help="step budget (default: the profile's)")
    p.add_argument("--device", default=None, help="cpu, cuda or cuda:N (default: cpu)")
    p.add_argument("--attention-scale", choices=("none", "log-n", "ssmax"), default=None,
                   help="length-aware logits: times log n, or s_h log n with a learnable s per "
                        "head (docs/theory.md §9; default: the profile's, none)")
    p.add_argument("--plateau-rule", choices=("gain", "improving"), default=None,
                   help="plateau rule of profiles that use one: 'improving' never stops a run "
                        "still improving (default: the profile's, gain)")
    p.add_argument("--threads", type=int, default=None,
                   help="CPU threads offered (default: 1); the model computes on one thread, "
                   "so metrics do not depend on it")
    p.add_argument("--db", default=None,
                   help="results store to record the run in, checkpoint beside it in <db "
                   "stem>.runs/ (default: runs/train.db unless --out is given); `predict` and "
                   "`extract` find the run there by its id")
    p.add_argument("--out", default=None,
                   help="directory for the checkpoint and data cache (then `predict RUN --dir "
                   "DIR`); without --db the run is not recorded in a store")
    p.add_argument("--no-resume", action="store_true", help="ignore an existing checkpoint")
    p.add_argument("--verbose", dest="per_length", action="store_true",
                   help="print the per-length table (default: a compact summary)")
    p.add_argument("--every", type=int, default=1,
                   help="with --verbose, print every N-th length (and the first error)")
    p.add_argument("--json", action="store_true", help="print the full run record as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    add_anchor_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train, then print the table and verdict; exit 0 when completed, 1 when the run failed."""
    from expressivity.errors import ConfigError
    from expressivity.resolve import resolve
    from expressivity.sweeps.cells import run_cell
    from expressivity.training.evaluate import length_table
    from expressivity.training.loop import train
    from expressivity.training.prepare import check_spec
    from expressivity.training.spec import run_spec

    given = {"steps": args.steps, "device": args.device, "threads": args.threads,
             "plateau_rule": args.plateau_rule}
    changes = {key: value for key, value in given.items() if value is not None}
    language, alphabet = _anchored(args.language, args.alphabet, args.at, args.logic)
    overrides = {"attention_scale": args.attention_scale} if args.attention_scale else None
    spec = run_spec(language, args.layout, args.profile, seed=args.seed, lr=args.lr,
                    alphabet=alphabet, model=overrides, **changes)
    _, model, _ = check_spec(spec)  # bad configs stop here with a ConfigError naming the field
    resolve(spec.language, spec.alphabet)  # so does an unknown language, before any output
    if spec.train.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ConfigError(f"--device: {spec.train.device!r} requested but CUDA is not "
                              "available on this machine; use --device cpu")
    print(f"run {spec.run_id}: {spec.language} with {spec.layout} attention "
          f"({model.n_layers} layer{'s' if model.n_layers != 1 else ''} x {model.n_heads} heads, "
          f"width {model.d_model}), "
          f"profile {spec.profile}, seed {spec.seed}, lr {spec.train.lr:g}, "
          f"{spec.train.steps} steps max on {spec.train.device}", flush=True,
          file=sys.stderr if args.json else sys.stdout)  # --json: stdout is JSON only
    db, out_dir = _where_kept(args.db, args.out)
    record = train(spec, out_dir=out_dir, quiet=args.quiet, resume=not args.no_resume)
    if db is not None:
        _record(db, record)
    if args.json:
        json.dump(record.to_dict(), sys.stdout, indent=2, default=str)
        print()
    elif args.per_length:
        print(length_table(record, every=max(1, args.every)))
        print(prediction_line(spec.language, spec.alphabet, run_cell(spec), record))
    else:
        print(compact_summary(record))
        print(prediction_line(spec.language, spec.alphabet, run_cell(spec), record))
    if record.status == "completed":
        print(kept_line(record.run_id, db, out_dir), file=sys.stderr if args.json else sys.stdout)
    return 0 if record.status == "completed" else 1


def _where_kept(db: str | None, out: str | None) -> tuple[Path | None, str]:
    """The store (None: --out without --db) and the checkpoint folder of a single run."""
    from expressivity.extraction.runs import DEFAULT_STORE

    if db is None and out is not None:
        return None, out
    store = Path(db or DEFAULT_STORE)
    return store, out or str(store.with_suffix(".runs"))


def _record(db: Path, record: RunRecord) -> None:
    from expressivity.sweeps.store import ResultsStore

    db.parent.mkdir(parents=True, exist_ok=True)
    with ResultsStore(db) as store:
        store.record(record)


def kept_line(run_id: str, db: Path | None, out_dir: str) -> str:
    """Where the run is kept and the commands that use it."""
    from expressivity.extraction.runs import DEFAULT_STORE

    if db is None:
        where, flag = f"checkpoint {Path(out_dir) / (run_id + '.pt')}", f" --dir {out_dir}"
    else:
        where = f"{db} (checkpoint {Path(out_dir) / (run_id + '.pt')})"
        flag = "" if db == Path(DEFAULT_STORE) else f" --db {db}"
    return (f"kept run {run_id} in {where}: `expressivity predict {run_id}{flag} WORD...`, "
            f"`expressivity extract {run_id}{flag}`")


def _anchored(
    language: str, alphabet: str | None, at: str | None, logic: str | None = None
) -> tuple[str, str | None]:
    """With ``--at`` or ``--logic``, the run's language becomes the formula that denotes it at
    EOS (anchored, or translated from LTLf), so the run spec and its id need no anchor or
    logic field of their own."""
    if at is None and logic is None:
        return language, alphabet
    from expressivity.errors import ConfigError
    from expressivity.logic.printer import to_text
    from expressivity.resolve import resolve

    source = resolve(language, alphabet, at=at, logic=logic)
    if source.kind == "formula" and source.logic == "ltlf":  # the run keeps the LTLf text
        body = language.removeprefix("ltlf:").removeprefix("ltl:").strip()
        return "ltlf:" + body, ",".join(source.alphabet.symbols)
    if source.formula is None:
        what = f"--at {at}" if at is not None else f"--logic {logic}"
        raise ConfigError(f"{what} applies to formulas; {language!r} has none")
    return "ltl:" + to_text(source.formula), ",".join(source.alphabet.symbols)


def compact_summary(record: RunRecord) -> str:
    """A few lines: the test lengths at a glance, adversarial accuracy, the verdict line."""
    from expressivity.training.evaluate import summary_line

    ms = sorted(record.lengths, key=lambda m: m.length)
    lines = []
    if ms:
        perfect = sum(m.correct == m.n for m in ms)
        worst = min(ms, key=lambda m: (m.accuracy, m.length))
        mean = sum(m.correct for m in ms) / max(1, sum(m.n for m in ms))
        first = next((m.length for m in ms if m.correct < m.n), None)
        lines.append(
            f"test lengths {ms[0].length}-{ms[-1].length}: {perfect} of {len(ms)} perfect; "
            f"accuracy min {100 * worst.accuracy:.1f}% (N={worst.length}), "
            f"overall {100 * mean:.1f}%"
            + (f"; first error at N={first}" if first is not None else "")
        )
    lines += [f"adversarial {a.kind}: {a.correct}/{a.n} = {100 * a.accuracy:.1f}%"
              for a in record.adversarial]
    lines.append(summary_line(record))
    return "\n".join(lines)


def prediction_line(language: str, alphabet: str | None, layout: str, record: RunRecord) -> str:
    """What the theory predicts for ``layout`` on the language, and how this run compares."""
    from expressivity.analysis.prediction_table import predictions

    row = predictions([(language, alphabet or "")], [layout]).iloc[0]
    predicted, reason = str(row["predicted"]), str(row["reason"])
    if predicted not in ("yes", "no") or record.status != "completed":
        judged = "nothing to compare" if predicted in ("yes", "no") else "no proven prediction"
    elif (predicted == "yes") == bool(record.recognized):
        judged = "agrees with this run"
    elif record.recognized:
        judged = "this run learned beyond the prediction (on the tested lengths)"
    else:
        judged = "this run failed within it (other seeds or learning rates may succeed)"
    return f"theory: {layout} recognizes it? {predicted} ({reason}); {judged}"
