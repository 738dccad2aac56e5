"""`expressivity compile`: a catalogue name, formula or regex → its minimal DFA (table, picture)."""

from __future__ import annotations

import argparse
from pathlib import Path

from expressivity.automata.drawing import render, to_dot, transition_table
from expressivity.cli import add_anchor_option


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``compile`` subcommand."""
    p = sub.add_parser(
        "compile",
        help="compile a catalogue name, formula or regex into its minimal DFA",
        description=(
            "Compile TEXT into its canonical minimal DFA and print the state count and the "
            "transition table ('->' marks the initial state, '*' accepting states). TEXT is "
            "read as a catalogue name, else a formula, else a regular expression; prefix "
            "'ltl:' or 're:' to force a reading."
        ),
    )
    p.add_argument("text", metavar="TEXT", help='e.g. "P(b & Y a)", "(a b)*" or LT-2')
    p.add_argument(
        "--alphabet", "-a", default=None, help="symbols, e.g. a,b,c (catalogue: its own)"
    )
    p.add_argument("--max-states", type=int, default=None, help="state bound of the construction")
    p.add_argument("--dot", type=Path, default=None, metavar="FILE", help="write Graphviz DOT text")
    p.add_argument(
        "--png", type=Path, default=None, metavar="FILE", help="render a picture (needs graphviz)"
    )
    p.add_argument("--hide-sink", action="store_true", help="leave the sink out of pictures")
    add_anchor_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the DFA of ``args.text``; write ``--dot`` / ``--png`` files when asked."""
    from expressivity.resolve import resolve

    source = resolve(args.text, args.alphabet, at=args.at, logic=args.logic,
                     max_states=args.max_states)
    dfa = source.dfa
    print(f"{source.kind} {source.name} over {source.alphabet}")
    print(transition_table(dfa))
    if args.dot is not None:
        args.dot.parent.mkdir(parents=True, exist_ok=True)
        args.dot.write_text(to_dot(dfa, hide_sink=args.hide_sink), encoding="utf-8")
        print(f"wrote {args.dot}")
    if args.png is not None:
        args.png.parent.mkdir(parents=True, exist_ok=True)
        render(dfa, args.png, hide_sink=args.hide_sink)
        print(f"wrote {args.png}")
    return 0
