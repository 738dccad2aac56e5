"""`expressivity figures`: regenerate every figure and table of a results store, with provenance."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``figures`` subcommand."""
    p = sub.add_parser(
        "figures",
        help="write every figure and table of a results store (with provenance.json)",
        description=(
            "Regenerate every figure (heatmaps of accuracy and N*, accuracy vs length, "
            "predicted vs observed, class diagram, DFAs, attention masks) and table (summary, "
            "by class, predicted vs observed; Markdown, LaTeX, CSV) of a results store into "
            "OUT, with a generated README.md and provenance.json, and list the files written. "
            "Files listed by an earlier provenance.json in OUT are replaced; an OUT made from "
            "another store is refused unless --force."
        ),
        epilog="example: expressivity figures runs/quick.db --out runs/figures/",
    )
    p.add_argument("db", help="results store, e.g. results.db")
    p.add_argument(
        "--out", default=None,
        help="output directory (default: beside the store, e.g. runs/quick_figures for "
        "runs/quick.db)",
    )
    p.add_argument("--sweep", default=None, help="only the runs of this sweep (by name)")
    p.add_argument(
        "--formats", default="png,pdf", help="figure formats: png, pdf, svg (default png,pdf)"
    )
    p.add_argument("--dpi", type=int, default=150, help="resolution of PNG figures (default 150)")
    p.add_argument("--readme", default=None, metavar="FILE",
                   help="also rewrite FILE's results block for this store (between the lines "
                   "'<!-- results DB: ... -->' and '<!-- /results -->'; e.g. README.md)")
    p.add_argument("--force", action="store_true",
                   help="replace an OUT whose provenance.json records another store")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write everything and print one path per line."""
    from expressivity.analysis.figures import write_figures
    from expressivity.disk import disk_space
    from expressivity.errors import ConfigError

    if args.out is None:
        from pathlib import Path

        args.out = str(Path(args.db).with_suffix("")) + "_figures"
    formats = tuple(f.strip().lower() for f in args.formats.split(",") if f.strip())
    command = (
        f"expressivity figures {args.db} --out {args.out}"
        + (f" --sweep {args.sweep}" if args.sweep else "")
        + f" --formats {','.join(formats)} --dpi {args.dpi}"
        + (f" --readme {args.readme}" if args.readme else "")
    )
    try:
        paths = write_figures(
            args.db, args.out, sweep=args.sweep, formats=formats, command=command, dpi=args.dpi,
            force=args.force, readme=args.readme,
        )
    except OSError as err:  # a read-only or full folder: say where, never a traceback
        where = err.filename or args.out
        raise ConfigError(f"{where}: cannot write the figures ({err.strerror or err}); "
                          f"{disk_space(args.out)}. Pass --out a writable folder") from None
    for path in paths:
        print(path)
    print(f"{len(paths)} files written to {args.out}", file=sys.stderr)
    note = _code_note(args.out)
    if note:
        print(f"warning: {args.db}: {note} (named in {args.out}/provenance.json and README.md)",
              file=sys.stderr)
    return 0


def _code_note(out: str) -> str | None:
    """The note on the code that made the runs, as `write_figures` recorded it."""
    import json
    from pathlib import Path

    record = json.loads((Path(out) / "provenance.json").read_text(encoding="utf-8"))
    note = record["store"].get("code_note")
    return str(note) if note else None
