"""`expressivity check`: validate catalogue files (syntax, alphabet, expected classes) for CI."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``check`` subcommand."""
    p = sub.add_parser(
        "check",
        help="validate catalogue files: TOML syntax, alphabet, definitions, [expected] classes",
        description=(
            "Load each FILE (a directory stands for its *.toml files; none: the catalogue), "
            "compile its language and decide every class its [expected] table claims. Prints "
            "one line per file; exit status 0 when every file is valid, 1 otherwise."
        ),
        epilog="example: expressivity check languages/my-lang.toml",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="catalogue files or directories")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the files; exit 1 if any has a problem."""
    from expressivity.catalogue_check import check_files

    results = check_files(args.files)
    for result in results:
        if result.ok:
            print(f"ok    {result.path} ({result.name})")
        else:
            for problem in result.problems:
                print(f"FAIL  {problem}")
    bad = sum(not r.ok for r in results)
    print(f"{len(results)} file{'s' if len(results) != 1 else ''} checked, {bad} with problems")
    return 1 if bad else 0
