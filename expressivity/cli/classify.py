"""`expressivity classify`: class verdicts, witnesses, predicted recognizers and formulas."""

from __future__ import annotations

import argparse
import json

from expressivity.cli import add_anchor_option


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``classify`` subcommand."""
    p = sub.add_parser(
        "classify",
        help="decide the algebraic classes of a language and which attention recognizes it",
        description=(
            "Classify TEXT (a catalogue name, else a formula, else a regular expression; prefix "
            "'ltl:' or 're:' to force a reading): every class verdict with a checkable witness, "
            "the predicted recognizers (global, local-k, hybrid-k, unique hard attention, and "
            "any layout given with --layouts) and synthesized LTL[P] / LTL[Y] formulas. "
            "Membership depends on the alphabet."
        ),
    )
    p.add_argument("text", metavar="TEXT", help='e.g. "P(b & Y a)", "(a b)*" or LT-2')
    p.add_argument(
        "--alphabet", "-a", default=None, help="symbols, e.g. a,b,c (catalogue: its own)"
    )
    p.add_argument(
        "--ks", default="1,2,4", help="window sizes k of the local/hybrid layouts (default 1,2,4)"
    )
    p.add_argument(
        "--layouts",
        default="",
        help="more layouts to decide, separated by spaces (commas belong to custom spellings), "
        "e.g. 'dilated-2-2 block-4 longformer-2-1 L3+R2+T1 4xG,4xB2'; a layout with a readout "
        "suffix '@eos', '@cls', '@mean' or '@last' (e.g. 'W1+CLS@cls', 'F@mean') is answered as "
        "an encoder read there: yes / no / unknown with a proof or a pair of words whose "
        "readout types agree on the masks (docs/theory.md §13)",
    )
    p.add_argument("--max-depth", type=int, default=4, help="depth bound of the type automata")
    p.add_argument("--max-cells", type=int, default=None,
                   help="bound on semigroup elements × DFA states (default "
                   "expressivity.algebra.classify.MAX_CELLS = 1,000,000)")
    p.add_argument("--depth", type=int, default=None, metavar="L",
                   help="also answer for a model of exactly L attention layers: per layout the "
                   "unbounded answer, d* (the least number of layers, with its proof and the "
                   "certificate for one layer fewer) and yes/no/unknown at L "
                   "(docs/theory.md §8)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")
    add_anchor_option(p)
    p.set_defaults(func=run)


#: Largest window k that ``--ks`` accepts (see `run`).
MAX_WINDOW = 8
#: Largest ``--depth``: the type automata are explored to a little beyond it, and their size
#: grows steeply with depth (the state bound then answers "unknown").
MAX_LAYERS = 12


def run(args: argparse.Namespace) -> int:
    """Resolve the text, classify it and print the table (or JSON)."""
    from expressivity.algebra.classify import MAX_CELLS, classify
    from expressivity.errors import ConfigError
    from expressivity.resolve import resolve

    try:
        ks = tuple(int(k) for k in args.ks.split(",") if k.strip())
    except ValueError:
        raise ConfigError(f"--ks: expected comma-separated integers, got {args.ks!r}") from None
    if not ks or min(ks) < 1:
        raise ConfigError(f"--ks: window sizes must be positive integers, got {args.ks!r}")
    if max(ks) > MAX_WINDOW:
        raise ConfigError(
            f"--ks: window sizes up to {MAX_WINDOW} (limit {MAX_WINDOW}; got {max(ks)}): the "
            "type automata grow steeply with k (k = 10 took ~40 s on 2 cores). For larger k "
            "call expressivity.algebra.classify.classify(source.dfa, ks) from Python"
        )
    if args.max_depth < 0:
        raise ConfigError(f"--max-depth: must be >= 0, got {args.max_depth}")
    if args.depth is not None and not 0 <= args.depth <= MAX_LAYERS:
        raise ConfigError(f"--depth: a number of layers from 0 to {MAX_LAYERS}, got {args.depth}")
    source = resolve(args.text, args.alphabet, at=args.at, logic=args.logic)
    from expressivity.models.encoder_classify import is_encoder_spelling

    encoders = tuple(t for t in args.layouts.split() if is_encoder_spelling(t))
    layouts = tuple(t for t in args.layouts.split() if not is_encoder_spelling(t))
    if args.max_cells is not None and args.max_cells < 1:
        raise ConfigError(f"--max-cells: must be a positive integer, got {args.max_cells}")
    max_cells = MAX_CELLS if args.max_cells is None else args.max_cells
    result = classify(source.dfa, ks, name=source.name, layouts=layouts,
                      max_depth=args.max_depth, max_cells=max_cells)
    if source.language is not None and source.alphabet == source.language.alphabet:
        from expressivity.catalogue_check import warn_mismatches

        members = {"regular": True} | {cls: v is True for cls, v in result.verdicts}
        warn_mismatches(source.language, members)
    if encoders:
        return _print_encoders(result, source.dfa, encoders, args)
    if args.depth is None:
        print(result.to_json() if args.json else result.to_table())
        return 0
    from dataclasses import replace

    from expressivity.models.depth import minimal_depths
    from expressivity.models.depth_tables import depth_dict, depth_table

    formulas = [source.formula] if source.formula is not None else []  # anchored at EOS
    attention = replace(result, recognizers=tuple(
        r for r in result.recognizers if not _has_mixers(r.layout)))
    depths = minimal_depths(attention, formulas,
                            max_depth=max(args.max_depth, args.depth, 1) + 2)
    mixers = _mixer_depths(result, args)
    if args.json:
        depth = depth_dict(attention, depths, args.depth)
        depth["layouts"] |= {m["layout"]: m for m in mixers}
        print(json.dumps(result.to_dict() | {"depth": depth}, indent=2, ensure_ascii=False))
    else:
        table = depth_table(attention, depths, args.depth)
        table += "".join(f"\n{m['layout']:<22} {m['unbounded']:<10} {m['min_depth']:<6} "
                         f"{m['at_depth']:<8} {m['reason']}" for m in mixers)
        print(result.to_table() + "\n\n" + table)
    return 0


def _has_mixers(layout: str) -> bool:
    """Whether a recognizer row of a classification is a layout with SSM heads (the rows that
    are not layout spellings, periodic and unique hard attention, have none)."""
    from expressivity.algebra.layout_verdicts import has_mixers
    from expressivity.errors import ExpressivityError

    try:
        return has_mixers(layout)
    except ExpressivityError:
        return False


def _mixer_depths(result: object, args: argparse.Namespace) -> list[dict[str, str]]:
    """The layouts with SSM heads of ``result`` at ``--depth``: "yes" where Theorem 16.1's
    recognizer has at most that many layers, "no" after an unbounded "no", else "unknown"
    (`analysis.mixer_depth.mixer_at_depth`, docs/theory.md §16.4). The construction reads
    the text with the same ``--alphabet``, ``--at`` and ``--logic`` as the classification."""
    from expressivity.algebra.classification import Classification
    from expressivity.analysis.mixer_depth import mixer_at_depth

    assert isinstance(result, Classification)
    rows = []
    for r in result.recognizers:
        if _has_mixers(r.layout):
            least, at, why = mixer_at_depth(args.text, args.alphabet or "", r.layout, r.status,
                                            args.depth, at=args.at, logic=args.logic)
            rows.append({"layout": r.layout, "unbounded": r.status, "min_depth": least,
                         "at_depth": at, "reason": why})
    return rows


def _print_encoders(result: object, dfa: object, spellings: tuple[str, ...],
                    args: argparse.Namespace) -> int:
    """The classification, then one row per encoder spelling (unbounded and at ``--depth``)."""
    from expressivity.algebra.classification import Classification
    from expressivity.automata.dfa import DFA
    from expressivity.models.encoder_classify import classify_encoder

    assert isinstance(result, Classification) and isinstance(dfa, DFA)
    rows = []
    for text in spellings:
        answers = [classify_encoder(dfa, text, max_depth=args.max_depth)]
        if args.depth is not None:
            answers.append(classify_encoder(dfa, text, depth=args.depth,
                                            max_depth=args.max_depth))
        rows.append([a.to_dict() for a in answers])
    if args.json:
        print(json.dumps(result.to_dict() | {"encoders": rows}, indent=2, ensure_ascii=False))
        return 0
    fmt = dfa.alphabet.format_word
    lines = [result.to_table(), "", "encoder (docs/theory.md §13) | readout | answer | "
             "depth | proof or certificate"]
    for per in rows:
        for row in per:
            at = "any" if row["depth"] is None else str(row["depth"])
            n = row["min_depth"]
            found = (f" (proved with {n} layer{'' if n == 1 else 's'})"
                     if row["answer"] == "yes" and n is not None else "")
            pair = (f"; {fmt(row['pair'][0])} ∈ L, {fmt(row['pair'][1])} ∉ L share the readout"
                    if row["pair"] else "")
            lines.append(f"{row['layout']} | {row['readout']} | {row['answer']}{found} | {at} | "
                         f"{row['reason']}{pair}")
    print("\n".join(lines))
    return 0
