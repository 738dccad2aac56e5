"""`expressivity predict`: a trained run's verdicts (accept/reject, with the logit) on words."""

from __future__ import annotations

import argparse

from expressivity.cli import add_run_location


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``predict`` subcommand."""
    p = sub.add_parser(
        "predict",
        help="run a trained model on words: accept/reject with the logit, beside the target",
        description=__doc__,
    )
    p.add_argument("run_id", help="run id (or a unique prefix): `train` and `sweep` print it, "
                   "`results DB --runs` lists a store's")
    p.add_argument("words", nargs="+", metavar="WORD",
                   help='words such as abca, "a1 b0" for multi-letter symbols, or eps for ε')
    add_run_location(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print one line per word: the model's verdict and logit, and the target's verdict."""
    from expressivity.extraction.oracle import MembershipOracle
    from expressivity.extraction.runs import find_run

    stored = find_run(args.run_id, args.db, args.dir)
    sigma = stored.source.alphabet
    words = [sigma.parse_word(text) for text in args.words]
    values = MembershipOracle(stored.model).logits([sigma.encode(w) for w in words])
    width = max(len(sigma.format_word(w)) for w in words)
    for word, logit in zip(words, values.tolist(), strict=True):
        verdict = "accept" if logit > 0 else "reject"
        target = "accept" if stored.source.dfa.accepts(word) else "reject"
        mark = "" if verdict == target else "   ← differs from the target"
        print(f"{sigma.format_word(word):<{width}}  {verdict}  logit {logit:+.4f}  "
              f"(target: {target}){mark}")
    return 0
