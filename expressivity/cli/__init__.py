"""The `expressivity` command line: thin subcommands, each calling one library function."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import threading
import warnings
from collections.abc import Sequence

from expressivity.catalogue import CATALOGUE_ENV
from expressivity.errors import ECHO_LIMIT, ExpressivityError, ExpressivityWarning
from expressivity.interrupts import stop_on_first_interrupt, stop_requested

#: Subcommand modules under `expressivity.cli`; each defines ``register(subparsers)``.
COMMANDS: tuple[str, ...] = (
    "languages",
    "check",
    "formula",
    "compile",
    "classify",
    "sample",
    "train",
    "construct",
    "sweep",
    "results",
    "figures",
    "extract",
    "predict",
    "rope_range",
    "masks",
)


def add_anchor_option(parser: argparse.ArgumentParser) -> None:
    """The ``--at eos|start`` and ``--logic ltl|ltlf`` options of the commands that read a
    formula."""
    parser.add_argument(
        "--at", choices=("eos", "start"), default=None,
        help="where a formula is evaluated: eos (default, the papers' convention) or start "
        "(position 1). --at start moves only the evaluation point: X, F, G and U keep the "
        "toolkit's strict meaning and range up to EOS, so this is NOT LTLf (G(a -> X b) "
        "accepts 'a'); a warning names a word where the two differ. For LTLf use --logic ltlf. "
        "A catalogue entry has its own evaluate_at",
    )
    parser.add_argument(
        "--logic", choices=("ltl", "ltlf"), default=None,
        help="how a formula is read: ltl (default: the toolkit's LTL with past and strict "
        "future operators, docs/theory.md §2) or ltlf (LTLf: evaluated at the first position, "
        "F/G/U non-strict over the letters, X strong, WX weak; docs/theory.md §10). The prefix "
        "ltlf: does the same; a catalogue entry has its own logic",
    )


def add_run_location(parser: argparse.ArgumentParser) -> None:
    """The ``--db STORE`` / ``--dir DIR`` options of the commands that load a trained run."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--db", default=None,
                       help="results store of a sweep, e.g. results.db (default: runs/train.db, "
                       "where `expressivity train` keeps single runs; ids: `results DB --runs`)")
    where.add_argument("--dir", default=None, metavar="DIR",
                       help="a folder of checkpoints <run id>.pt, as `train --out DIR` leaves")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    from expressivity._version import __version__

    parser = argparse.ArgumentParser(
        prog="expressivity",
        description="Which attention pattern can recognize which formal language?",
    )
    parser.add_argument("--version", action="version", version=f"expressivity {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    catalogue_help = (
        "also search this folder of language files, before ./languages and the shipped "
        "catalogue (repeatable; or set $EXPRESSIVITY_CATALOGUE)"
    )
    parser.add_argument("--catalogue", action="append", metavar="DIR", help=catalogue_help)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"expressivity.cli.{name}").register(sub)
    for command in sub.choices.values():  # accepted after the command name too
        command.add_argument("--catalogue", action="append", metavar="DIR",
                             default=argparse.SUPPRESS, help=catalogue_help)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    saved = os.environ.get(CATALOGUE_ENV)
    if args.catalogue:  # an environment variable, so that sweep workers inherit it
        os.environ[CATALOGUE_ENV] = os.pathsep.join([*args.catalogue, *filter(None, [saved])])
    previous = signal.getsignal(signal.SIGINT)
    try:
        if previous is signal.default_int_handler and _in_main_thread():  # a caller's own
            signal.signal(signal.SIGINT, stop_on_first_interrupt)  # handler, or SIG_IGN, is kept
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            status = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows up here, not at exit
        if status == 130:  # interrupted and said so: another Ctrl-C must not break the exit
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        return status
    except BrokenPipeError:  # `expressivity languages | head -1`: stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing more to flush at exit
        return 141  # 128 + SIGPIPE, the status of a Unix tool killed by its reader
    except ExpressivityError as err:
        print(f"error: {capped_echo(str(err), sys.argv[1:] if argv is None else argv)}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if signal.getsignal(signal.SIGINT) is stop_on_first_interrupt:  # not interrupted:
            signal.signal(signal.SIGINT, previous)  # leave the caller's handler as it was
        elif stop_requested():  # interrupted: another Ctrl-C must not break the exit
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        if saved is None:
            os.environ.pop(CATALOGUE_ENV, None)
        else:
            os.environ[CATALOGUE_ENV] = saved


def _in_main_thread() -> bool:
    """Whether signal handlers can be set here (Python allows it in the main thread only)."""
    return threading.current_thread() is threading.main_thread()


def capped_echo(message: str, argv: Sequence[str]) -> str:
    """``message`` with every argument longer than `ECHO_LIMIT` it repeats cut to a prefix and
    its length (an error names what is wrong; it need not print a 5,000-character input)."""
    for arg in sorted({str(a) for a in argv}, key=len, reverse=True):
        if len(arg) <= ECHO_LIMIT:
            break
        for variant in dict.fromkeys((arg, arg.strip(), arg.lower(), arg.upper())):
            if len(variant) > ECHO_LIMIT and variant in message:
                message = message.replace(
                    variant, f"{variant[: ECHO_LIMIT // 2]}… ({len(variant)} characters)")
    return message


def _show_warning(  # type: ignore[no-untyped-def]
    message, category, filename, lineno, file=None, line=None
) -> None:
    """Print the toolkit's own warnings as ``warning: ...`` lines, others as Python does."""
    if issubclass(category, ExpressivityWarning):
        print(f"warning: {message}", file=sys.stderr)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
