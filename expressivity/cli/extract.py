"""`expressivity extract`: the DFA a trained run's model computes, and its target distance."""

from __future__ import annotations

import argparse
import json

from expressivity.cli import add_run_location


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``extract`` subcommand."""
    p = sub.add_parser(
        "extract",
        help="extract the DFA a trained model computes (active learning) and compare it",
        description=__doc__,
    )
    p.add_argument("run_id", help="run id (or a unique prefix): `train` and `sweep` print it, "
                   "`results DB --runs` lists a store's")
    add_run_location(p)
    p.add_argument("--length-bound", type=int, default=None,
                   help="longest word the equivalence oracle tries (default: the run's longest "
                        "test length)")
    p.add_argument("--budget", type=int, default=200_000,
                   help="most distinct words the learner may run through the model "
                        "(default: 200000)")
    p.add_argument("--max-states", type=int, default=64,
                   help="stop when a hypothesis exceeds this many states (default: 64)")
    p.add_argument("--algorithm", choices=("lstar", "kv"), default="lstar")
    p.add_argument("--seed", type=int, default=0, help="seed of the random test words")
    p.add_argument("--dot", action="store_true", help="also print the extracted DFA as DOT")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Extract and print the report; exit 0 when complete, 1 when the extraction stopped early."""
    from expressivity.automata.drawing import to_dot
    from expressivity.errors import ConfigError
    from expressivity.extraction.extract import MAX_LENGTH_BOUND, extract
    from expressivity.extraction.runs import find_run

    if args.seed < 0:
        raise ConfigError(f"--seed: must be a non-negative integer, got {args.seed}")
    if args.length_bound is not None and not 0 <= args.length_bound <= MAX_LENGTH_BOUND:
        raise ConfigError(f"--length-bound: {args.length_bound} is not in 0..{MAX_LENGTH_BOUND} "
                          "(MAX_LENGTH_BOUND: the oracle's work grows with its square)")
    stored = find_run(args.run_id, args.db, args.dir)
    bound = args.length_bound if args.length_bound is not None else stored.max_test_length
    result = extract(stored.model, stored.source.dfa, length_bound=bound,
                     query_budget=args.budget, extra_words=stored.adversarial_words(),
                     max_states=args.max_states, algorithm=args.algorithm, seed=args.seed)
    if args.json:
        print(json.dumps({"run_id": stored.run_id, "language": stored.source.name,
                          "layout": stored.spec.layout, **result.to_dict()}, indent=2,
                         ensure_ascii=False))
    else:
        print(f"run {stored.run_id}: {stored.source.name} with {stored.spec.layout} attention "
              f"(seed {stored.spec.seed})")
        print(result.summary())
        if args.dot:
            print(to_dot(result.dfa, name="extracted"))
    return 0 if result.complete else 1
