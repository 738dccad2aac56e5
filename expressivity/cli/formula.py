"""``expressivity formula``: parse a formula, report its form and fragment, evaluate it on words."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence

from expressivity.alphabet import Alphabet
from expressivity.cli import add_anchor_option
from expressivity.errors import AlphabetError
from expressivity.logic import Formula, fragment_of, parse, to_text, to_unicode, truth_table
from expressivity.logic.ltlf import check_anchor_for, check_ltlf, to_toolkit
from expressivity.logic.parser import MAX_DEPTH, MAX_SHIFT

EPILOG = """\
examples:
  expressivity formula "P(b & Y a)" --alphabet a,b,c --word abab --word cab
  expressivity formula "Y<=2 a" --alphabet a,b --word "" --word ba --subformulas

Spellings: ! & | -> <-> (or ¬ ∧ ∨ → ↔), true false start eos, P (alias O) Y Y^k Y<=k H S,
X WX F G U. Unary operators bind tightest, then S/U, &, |, -> and <->.
A word is written abc (one-character symbols) or "a1 b0 a1"; "" or ε is the empty word.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``formula`` subcommand."""
    parser = subparsers.add_parser(
        "formula",
        help="parse a formula, show its fragment and evaluate it on words",
        description="Parse a temporal-logic formula, print its canonical form, fragment, "
        "operator depth and size, and its truth at every position of the given words "
        "(L(φ) = words whose EOS position satisfies φ).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("formula", help='formula text, e.g. "P(b & Y a)"')
    parser.add_argument(
        "--alphabet",
        "-a",
        help="alphabet, e.g. a,b,c (default: the symbols of the formula)",
    )
    parser.add_argument(
        "--word",
        "-w",
        action="append",
        default=[],
        metavar="WORD",
        help="a word to evaluate on (repeatable)",
    )
    parser.add_argument(
        "--subformulas",
        action="store_true",
        help="also print the truth of every compound subformula at every position",
    )
    add_anchor_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the report for ``args.formula`` and each ``--word``; returns the exit status."""
    alphabet = Alphabet.parse(args.alphabet) if args.alphabet else None
    formula = parse(args.formula, alphabet, max_depth=MAX_DEPTH, max_shift=MAX_SHIFT)
    ltlf = args.logic == "ltlf"
    if ltlf:
        check_anchor_for("ltlf", args.at)
        check_ltlf(formula, args.formula)
    if alphabet is None:
        if not formula.symbols() and args.word:
            raise AlphabetError("the formula mentions no symbol: give the words' --alphabet")
        alphabet = Alphabet(tuple(sorted(formula.symbols()))) if formula.symbols() else None
    info = fragment_of(formula)
    lines = [
        f"formula    {to_text(formula)}",
        f"unicode    {to_unicode(formula)}",
        f"fragment   {info.label}: {info.description}",
        f"depth      {formula.depth}",
        f"size       {formula.size}",
        f"operators  {', '.join(sorted(info.temporal_operators)) or '(none)'}",
    ]
    if ltlf:
        lines.append("logic      LTLf: read at position 1; F, G, U over positions n..N; X strong")
    if alphabet is not None:
        lines.append(f"alphabet   {alphabet}")
    for text in args.word:
        assert alphabet is not None
        word = alphabet.parse_word(text)
        lines.append("")
        at = "start" if ltlf else args.at or "eos"
        lines.extend(_word_report(formula, word, alphabet, args.subformulas, at, ltlf))
    print("\n".join(lines))
    return 0


def _word_report(
    formula: Formula, word: Sequence[str], alphabet: Alphabet, subformulas: bool, at: str,
    ltlf: bool = False,
) -> list[str]:
    """A header line and a small table: position, symbol, truth of φ (and its subformulas);
    with ``ltlf``, truth in LTLf's semantics (that of the translation `logic.ltlf.to_toolkit`,
    equal at every position 1..N+1, docs/theory.md §10)."""

    def truth_table_in_dialect(f: Formula, w: Sequence[str]) -> Iterable[bool]:
        return truth_table(to_toolkit(f) if ltlf else f, w)

    table = list(truth_table_in_dialect(formula, word))
    verdict = "in L(φ)" if table[-1 if at == "eos" else 0] else "not in L(φ)"
    verdict += "" if at == "eos" else " (evaluated at position 1)"
    header = f"word {alphabet.format_word(word)} (N = {len(word)}): {verdict}"
    rows: list[tuple[str, list[str]]] = [
        ("position", [str(n) for n in range(1, len(word) + 2)]),
        ("symbol", [*word, "EOS"]),
    ]
    if subformulas:
        seen: set[Formula] = set()
        for sub in formula.subformulas():
            if sub.children and sub not in seen and sub is not formula:
                seen.add(sub)
                rows.append((to_text(sub), _bits(truth_table_in_dialect(sub, word))))
    rows.append(("φ", _bits(table)))
    widths = [max(len(cells[i]) for _, cells in rows) for i in range(len(word) + 1)]
    label_width = max(len(label) for label, _ in rows)
    out = [header]
    for label, cells in rows:
        body = " ".join(cell.rjust(w) for cell, w in zip(cells, widths, strict=True))
        out.append(f"  {label.ljust(label_width)}  {body}")
    return out


def _bits(values: Iterable[bool]) -> list[str]:
    return ["1" if v else "0" for v in values]
