"""`expressivity languages`: list the language catalogue."""

from __future__ import annotations

import argparse
import warnings


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``languages`` subcommand."""
    p = sub.add_parser("languages", help="list the language catalogue", description=__doc__)
    p.add_argument(
        "--dir", default=None, help="only this folder (default: every folder of the search path)"
    )
    p.add_argument("-l", "--long", action="store_true", help="also print descriptions and sources")
    p.add_argument(
        "--no-check", action="store_true", help="do not check the [expected] classes (faster)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print one line per language: name, alphabet, definition, expected classes."""
    from expressivity.catalogue import CatalogueWarning, load_catalogue
    from expressivity.catalogue_check import warn_mismatches
    from expressivity.errors import ExpressivityError

    catalogue = load_catalogue(args.dir)
    if not args.no_check:
        for lang in catalogue.values():
            try:
                warn_mismatches(lang)
            except ExpressivityError as err:  # e.g. too large to compile: list it, say why
                warnings.warn(f"{lang.path or lang.name}: {lang.name} not checked: {err}",
                              CatalogueWarning, stacklevel=1)
    width = max((len(n) for n in catalogue), default=0)
    for name, lang in catalogue.items():
        definition = (
            f"formula {lang.formula}"
            if lang.formula
            else f"regex {lang.regex}"
            if lang.regex
            else "explicit DFA"
            if lang.dfa_table
            else f"non-regular ({lang.nonregular})"
        )
        print(f"{name:<{width}}  Σ={lang.alphabet!s:<20} {definition}")
        if args.long:
            print(f"{'':<{width}}  {lang.description}")
            print(f"{'':<{width}}  source: {lang.source}")
            claims = ", ".join(f"{k}={'yes' if v else 'no'}" for k, v in lang.expected)
            print(f"{'':<{width}}  expected: {claims}")
    print(f"{len(catalogue)} languages")
    return 0
