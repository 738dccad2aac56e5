"""`expressivity predict`: a trained run's verdicts (accept/reject, with the logit) on words."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``predict`` subcommand."""
    p = sub.add_parser(
        "predict",
        help="run a trained model on words: accept/reject with the logit, beside the target",
        description=__doc__,
    )
    p.add_argument("run_id", help="run id (or a unique prefix) in the results store")
    p.add_argument("words", nargs="+", metavar="WORD",
                   help='words such as abca, "a1 b0" for multi-letter symbols, or eps for ε')
    p.add_argument("--db", required=True, help="results store, e.g. runs/quick.db")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print one line per word: the model's verdict and logit, and the target's verdict."""
    from expressivity.extraction.oracle import MembershipOracle
    from expressivity.extraction.runs import load_run

    stored = load_run(args.db, args.run_id)
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
