"""``expressivity construct``: compile a formula or language into a hand-weighted transformer."""

from __future__ import annotations

import argparse

from expressivity.cli import add_anchor_option

EPILOG = """\
examples:
  expressivity construct "P(b & Y a)" --alphabet a,b,c
  expressivity construct DYCK-(1,1) --check-up-to 10 --precision
  expressivity construct "re:a b (a|b)*" --alphabet a,b --layout global --save ab.pt
  expressivity construct "Y^2 a | Y^4 a" --alphabet a,b --layout dilated-2-2
  expressivity construct "mod(2,1) & !start & Y a" --alphabet a,b --layout block-2
  expressivity construct EVEN-LENGTH --layout global+periodic
  expressivity construct PARITY --layout mamba-signed
  expressivity construct "mod(2,1) & Y a" --alphabet a,b --layout MS,L1
  expressivity construct TOMITA-4 --layout jamba-2

The argument is a catalogue name, a formula of LTL[P, Y^{<=k}] (P, H, Y, Y^k, Y<=k, start,
eos, mod(m,r) with periodic positions) or a regex; a regex or DFA-only language gets a
synthesized formula when it is R-trivial (LTL[P]) or definite (LTL[Y]). Layouts dilated-k-d
and block-b take the formulas their heads read (see README, "Constructed transformers").
SSM layouts (M / mamba, MS / mamba-signed, optionally with L1 heads) take pure-past
formulas (P, H, Y, S, start, eos; mod(2,r) with MS) and, with MS, DFAs whose letters act as
commuting involutions (PARITY, EVEN-LENGTH). The hybrids samba-k and jamba-n get the M
recognizer laid on their M rows, the attention rows silent; see docs/guide/ssm.md.
The model is checked in float32, bfloat16 and float16; exit status 1 when it disagrees with
the DFA in any of them.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``construct`` subcommand."""
    parser = subparsers.add_parser(
        "construct",
        help="compile a formula into a transformer with exact hand-set weights",
        description="Build a Recognizer whose hand-set weights recognize the language of an "
        "LTL[P, Y^{<=k}] formula (global heads for P/H, k-local heads for Y/Y^{<=k}), print "
        "its size and where each subformula lives, and check it against the DFA.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("language", help="formula, catalogue name or regex (prefix ltl:/re:)")
    parser.add_argument("--alphabet", "-a", help="alphabet, e.g. a,b,c")
    parser.add_argument("--layout", help="restrict heads: global, local-k, hybrid-k, "
                        "dilated-k-d, block-b, global+periodic, hybrid-k+periodic, or an SSM "
                        "layout (mamba, mamba-signed, M,L1, MS,L1, samba-k, jamba-n) "
                        "(default: exactly the heads the formula needs)")
    parser.add_argument("--sharpness", type=float, default=None,
                        help="attention score λ of a satisfying key (default 20)")
    parser.add_argument("--attention-scale", choices=("none", "log-n", "ssmax"),
                        default="none", help="length-aware logits (times log n; ssmax with "
                        "s = 1): the same weights in a length-aware model, checked as it is "
                        "(default %(default)s; docs/theory.md §9)")
    parser.add_argument("--s4d-output", choices=("linear", "gelu-glu"), default="linear",
                        help="the output map of S4D mixers (layouts s4d, SD, SDC): linear, or "
                        "S4D's GELU then GLU (default %(default)s; docs/theory.md §16.6)")
    parser.add_argument("--check-up-to", type=int, default=None, metavar="N",
                        help="check every word up to length N (default 8, or less where the "
                        "alphabet would give more than 2,000,000 words)")
    parser.add_argument("--random", type=int, default=16, metavar="K",
                        help="also check K random longer words (default %(default)s)")
    parser.add_argument("--max-length", type=int, default=500, metavar="L",
                        help="longest random word, and the range of --precision (default 500)")
    parser.add_argument("--precision", action="store_true",
                        help="report the agreement length in float32, bfloat16 and float16")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print only the size and the checks, not the coordinates")
    parser.add_argument("--save", metavar="FILE",
                        help="write the model as a checkpoint (load with load_constructed)")
    add_anchor_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Construct, report and check; returns 1 if the model disagrees with the DFA."""
    from expressivity.extraction.agreement import (
        DTYPES,
        check_agreement,
        longest_enumerable,
        precision_report,
    )
    from expressivity.models.construct import DEFAULT_SHARPNESS, construct_language

    sharpness = DEFAULT_SHARPNESS if args.sharpness is None else args.sharpness
    cm, source = construct_language(args.language, args.alphabet, args.layout,
                                    sharpness=sharpness, at=args.at, logic=args.logic,
                                    attention_scale=args.attention_scale,
                                    s4d_output=args.s4d_output)
    origin = "synthesized from the DFA" if source.formula is None else source.kind
    print(f"language   {source.name} over {source.alphabet} ({origin})")
    if cm.formula is None:  # an SSM parity construction: read off the DFA
        print("formula    none: built from the DFA's letter parities (one flip channel each)")
    elif source.kind != "formula":  # a formula is its own name: print it once
        print(f"formula    {cm.formula}")
    print(cm.size_line() if args.quiet else cm.summary(header=False))
    up_to = (longest_enumerable(source.dfa.n_symbols) if args.check_up_to is None
             else args.check_up_to)
    agrees = True
    for dtype in DTYPES:  # the README's promise: every short word, in each format
        check = check_agreement(cm.model, source.dfa, up_to=up_to, n_random=args.random,
                                max_length=args.max_length, dtype=dtype)
        scope = (f"every word up to length {up_to} and {args.random} random words up to "
                 f"length {args.max_length} ({check.checked} words, {dtype})")
        if check.agrees:
            print(f"check      agrees with the DFA on {scope}")
        else:
            word = source.alphabet.format_word(check.first or ())
            print(f"check      DISAGREES with the DFA on {check.disagreements} of {scope}; "
                  f"shortest: {word or 'ε'}")
        agrees = agrees and check.agrees
    if args.precision:
        lengths = precision_report(cm.model, source.dfa, max_length=args.max_length)
        print("agreement  longest length with full agreement on a fixed test set: "
              + ", ".join(f"{k} {v}" for k, v in lengths.items()))
    if args.save:
        print(f"saved      {cm.save(args.save)}")
    return 0 if agrees else 1
