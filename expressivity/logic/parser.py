"""Parse formula text (ASCII or Unicode) into the frozen AST of `expressivity.logic.syntax`.

Spellings (ASCII first; all spellings of a node give the same AST):

- symbols: lower-case identifiers ``a``, ``b0``, ``a1_x`` (or a single digit ``7``);
- constants: ``true`` ``⊤``, ``false`` ``⊥``, ``start`` (n = 1), ``eos`` (n = N+1);
- position predicates: ``mod(m,r)`` for n ≡ r (mod m), with m ≥ 1 and 0 ≤ r < m (``mod`` is a
  keyword only when "(" follows, so a symbol may still be called ``mod``);
- boolean: ``!`` ``¬``, ``&`` ``∧``, ``|`` ``∨``, ``->`` ``→``, ``<->`` ``↔``, parentheses;
- past: ``P a`` (strict once; alias ``O a``), ``Y a``, ``Y^3 a`` (also ``Y^{3} a``),
  ``Y<=3 a`` for Y^{≤3} (also ``Y≤3 a``, ``Y^{≤3} a``, ``Y^{<=3} a``, ``Y^<=3 a``), ``H a``,
  ``a S b``;
- future: ``X a``, ``WX a``, ``F a``, ``G a``, ``a U b``.

``Y^1`` is ``Y``; ``Y<=1`` parses to ``BoundedPast(k=1)`` (equivalent to, not the same node as,
``Y``); k must be at least 1. ``O`` is the name of *once* in the LTL literature and in
ltlf2dfa. Beware: in ltlf2dfa's past grammar ``P`` is the binary *past release* (the dual of
since), whereas here ``P`` is always the unary strict once of [LC25]/[LC26].

Precedence, tightest first (``printer.to_text`` inserts exactly the parentheses it needs):

1. unary operators ``! P O H Y Y^k Y<=k X WX F G`` (so ``P a & b`` is ``(P a) & b`` and
   ``!a S b`` is ``(!a) S b``; unary operators nest: ``P Y !a``);
2. ``S`` and ``U``, one level, right-associative: ``a S b U c`` is ``a S (b U c)``;
3. ``&``, left-associative;
4. ``|``, left-associative;
5. ``->``, right-associative: ``a -> b -> c`` is ``a -> (b -> c)``;
6. ``<->``, left-associative.

Operator keywords are upper-case and may not run into the next identifier: ``Y a`` and
``P(a)`` are fine, ``Ya`` is an error (there is no such operator, and symbols are lower-case).
Whitespace, including newlines, is free between tokens. Every malformed input raises
`FormulaSyntaxError` (line, column, caret, expected tokens), never a lark exception.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lark import Token, Transformer_NonRecursive
from lark.exceptions import UnexpectedInput, VisitError

from expressivity.alphabet import Alphabet
from expressivity.errors import AlphabetError, FormulaLimitError, FormulaSyntaxError
from expressivity.logic import syntax as ast
from expressivity.logic import temporal as tl
from expressivity.logic.grammar import (
    excerpt,
    lark_parser,
    line_column,
    syntax_error,
    token_offset,
)
from expressivity.logic.syntax import Formula

__all__ = ["MAX_DEPTH", "MAX_SHIFT", "parse"]

#: Deepest operator nesting of a formula read from the command line or a catalogue (a chain
#: ``a | b | c`` nests one level per ``|``): `parse`, compilation, printing, `subformulas` and
#: fragment labels are iterative, but node equality and hashing (dataclass-generated) and
#: construction recurse on the AST, so `resolve` and the CLI pass ``max_depth=MAX_DEPTH`` and a
#: deeper formula is refused with its position.
MAX_DEPTH = 200
#: Largest k of ``Y^k`` / ``Y<=k`` in such text: compilation keeps k registers per state, so a
#: huge k would allocate (or explore) before any state limit applies. `parse` from Python
#: takes ``max_shift=None`` for no limit.
MAX_SHIFT = 256


def parse(
    text: str, alphabet: Alphabet | None = None, *, max_depth: int | None = None,
    max_shift: int | None = None,
) -> Formula:
    """Parse ``text`` into a `Formula`.

    ``max_depth`` bounds the operator nesting and ``max_shift`` the k of ``Y^k``/``Y<=k``
    (located errors beyond them; the CLI uses `MAX_DEPTH` and `MAX_SHIFT`).

    With an ``alphabet``, every symbol must belong to it: an `AlphabetError` names the symbol,
    the alphabet and the line/column where it occurs. Malformed text raises
    `FormulaSyntaxError` with line, column, a caret and the tokens that would be accepted.
    """
    if not isinstance(text, str):
        raise FormulaSyntaxError(f"a formula must be text, not {type(text).__name__}")
    try:
        tree = lark_parser().parse(text)
    except UnexpectedInput as err:
        raise syntax_error(text, err) from None
    try:
        result = _ToFormula(text, alphabet, max_depth, max_shift).transform(tree)
    except VisitError as err:  # lark wraps what a callback raises: our located errors
        raise err.orig_exc from None
    assert isinstance(result, Formula)
    return result


class _ToFormula(Transformer_NonRecursive):
    """The lark tree → AST nodes: one method per named alternative of grammar.lark.

    lark's non-recursive transformer visits the tree bottom-up, left to right, without
    recursion, so deep nesting is fine; the operator nesting of every node built is kept
    (by object id) to refuse a formula deeper than ``max_depth`` at its first operator beyond.
    """

    def __init__(
        self, text: str, alphabet: Alphabet | None, max_depth: int | None, max_shift: int | None
    ) -> None:
        super().__init__()
        self.text = text
        self.alphabet = alphabet
        self.max_depth = max_depth
        self.max_shift = max_shift
        self._nesting: dict[int, int] = {}  # id(node) -> operator nesting; atoms are absent (0)

    def _op(self, make: Callable[..., Formula], op: Token, *operands: Formula) -> Formula:
        nesting = 1 + max(self._nesting.get(id(f), 0) for f in operands)
        if self.max_depth is not None and nesting > self.max_depth:
            line, column = line_column(self.text, token_offset(op))
            raise FormulaLimitError(
                f"formula too deep: operators nest more than {self.max_depth} levels (limit "
                f"{self.max_depth}); this operator is the first beyond it. Name repeated parts "
                "with Y^k / Y<=k, or split the formula",
                text=self.text, line=line, column=column,
            )
        node = make(*operands)
        self._nesting[id(node)] = nesting
        return node

    # ------------------------------------------------------------ atoms
    def symbol(self, children: list[Token]) -> Formula:
        (token,) = children
        name = str(token)
        if self.alphabet is not None and name not in self.alphabet:
            line, column = line_column(self.text, token_offset(token))
            raise AlphabetError(
                f"symbol {name!r} at line {line}, column {column} is not in the alphabet "
                f"{self.alphabet}:\n{excerpt(self.text, line, column)}"
            )
        return ast.Symbol(name)

    def top(self, _: list[Token]) -> Formula:
        return ast.TRUE

    def bottom(self, _: list[Token]) -> Formula:
        return ast.FALSE

    def start_(self, _: list[Token]) -> Formula:
        return ast.START

    def eos(self, _: list[Token]) -> Formula:
        return ast.EOS

    def mod(self, children: list[Token]) -> Formula:
        _, modulus, residue = children
        m, r = int(str(modulus)), int(str(residue))
        if m >= 1 and r < m:
            return ast.Mod(m, r)
        if m < 1:
            bad, message, expected = modulus, f"mod(m,r) needs a modulus m >= 1, got {m}", ">= 1"
        else:
            bad, message = residue, f"mod(m,r) needs a residue 0 <= r < m = {m}, got {r}"
            expected = f"in 0..{m - 1}"
        line, column = line_column(self.text, token_offset(bad))
        raise FormulaSyntaxError(
            message, text=self.text, line=line, column=column, expected=(f"a number {expected}",)
        )

    # ------------------------------------------------------------ unary operators
    def power(self, children: list[Token]) -> Token:
        return children[-1]  # Y^3, Y^{3}: the number

    def bound(self, children: list[Token]) -> Token:
        return children[-1]  # Y<=3, Y^{<=3}, ...: the number

    def not_(self, children: list[Any]) -> Formula:
        return self._op(ast.Not, *children)

    def past(self, children: list[Any]) -> Formula:
        return self._op(tl.Past, *children)

    def historically(self, children: list[Any]) -> Formula:
        return self._op(tl.Historically, *children)

    def yesterday(self, children: list[Any]) -> Formula:
        return self._op(tl.Yesterday, *children)

    def yesterday_k(self, children: list[Any]) -> Formula:
        op, k, arg = children
        return self._op(lambda f: tl.Yesterday(f, self._bound(k, "Y^k")), op, arg)

    def bounded_past(self, children: list[Any]) -> Formula:
        op, k, arg = children
        return self._op(lambda f: tl.BoundedPast(f, self._bound(k, "Y<=k")), op, arg)

    def next_(self, children: list[Any]) -> Formula:
        return self._op(tl.Next, *children)

    def weak_next(self, children: list[Any]) -> Formula:
        return self._op(tl.WeakNext, *children)

    def eventually(self, children: list[Any]) -> Formula:
        return self._op(tl.Eventually, *children)

    def globally(self, children: list[Any]) -> Formula:
        return self._op(tl.Globally, *children)

    # ------------------------------------------------------------ binary operators
    def iff(self, children: list[Any]) -> Formula:
        left, op, right = children
        return self._op(ast.Iff, op, left, right)

    def implies(self, children: list[Any]) -> Formula:
        left, op, right = children
        return self._op(ast.Implies, op, left, right)

    def or_(self, children: list[Any]) -> Formula:
        left, op, right = children
        return self._op(ast.Or, op, left, right)

    def and_(self, children: list[Any]) -> Formula:
        left, op, right = children
        return self._op(ast.And, op, left, right)

    def since(self, children: list[Any]) -> Formula:
        left, op, right = children
        return self._op(tl.Since, op, left, right)

    def until(self, children: list[Any]) -> Formula:
        left, op, right = children
        return self._op(tl.Until, op, left, right)

    def _bound(self, token: Token, what: str) -> int:
        digits = str(token).lstrip("0") or "0"
        limit = self.max_shift
        if limit is not None and (len(digits) > len(str(limit)) or int(digits) > limit):
            line, column = line_column(self.text, token_offset(token))
            raise FormulaLimitError(
                f"{what} needs k <= {limit} here (limit {limit}; got {digits[:30]}"
                f"{'...' if len(digits) > 30 else ''}): its automaton keeps k registers. Use "
                "expressivity.logic.parse(..., max_shift=None) from Python for larger k",
                text=self.text, line=line, column=column, expected=(f"a number <= {limit}",),
            )
        k = int(digits)
        if k < 1:
            line, column = line_column(self.text, token_offset(token))
            raise FormulaSyntaxError(
                f"{what} needs k >= 1, got {k}",
                text=self.text,
                line=line,
                column=column,
                expected=("a number >= 1",),
            )
        return k
