"""The compiled formula grammar (``grammar.lark``) and the located syntax errors it reports.

`lark_parser` compiles ``grammar.lark`` once (LALR, contextual lexer). `syntax_error` turns
lark's `UnexpectedInput` into a `FormulaSyntaxError` with line, column, a caret, the tokens the
grammar would accept there (replayed on the grammar, shown as `TOKEN_DESCRIPTIONS` says) and a
hint for common mis-spellings (``=>``, ``&&``, ``Ya``, ...). `token_offset`, `line_column` and
`excerpt` also locate the errors `expressivity.logic.parser` raises while it builds the AST
(depth and shift limits, symbols outside the alphabet, bad ``mod(m,r)``). The spellings and
the precedence of the language are documented in `expressivity.logic.parser`.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

from lark import Lark, Token
from lark.exceptions import UnexpectedInput, UnexpectedToken

from expressivity.errors import FormulaSyntaxError

__all__ = [
    "TOKEN_DESCRIPTIONS", "excerpt", "lark_parser", "line_column", "syntax_error", "token_offset",
]

#: How each grammar terminal is shown in "expected one of: ..." (in this order).
TOKEN_DESCRIPTIONS: dict[str, str] = {
    "SYMBOL": "a symbol",
    "TRUE": "'true'",
    "FALSE": "'false'",
    "START": "'start'",
    "EOS": "'eos'",
    "MOD": "'mod('",
    "_LPAR": "'('",
    "NOT": "'!'",
    "PAST": "'P'",
    "HISTORICALLY": "'H'",
    "YESTERDAY": "'Y'",
    "NEXT": "'X'",
    "WEAK_NEXT": "'WX'",
    "EVENTUALLY": "'F'",
    "GLOBALLY": "'G'",
    "SINCE": "'S'",
    "UNTIL": "'U'",
    "AND": "'&'",
    "OR": "'|'",
    "IMPLIES": "'->'",
    "IFF": "'<->'",
    "_RPAR": "')'",
    "_CARET": "'^'",
    "_LE": "'<='",
    "_LBRACE": "'{'",
    "_RBRACE": "'}'",
    "_COMMA": "','",
    "INT": "a number",
    "$END": "end of input",
}

_HINTS = {
    "=>": "write '->' for implication",
    "<=>": "write '<->' for equivalence",
    "&&": "write a single '&' for conjunction",
    "||": "write a single '|' for disjunction",
    "~": "write '!' for negation",
}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
_OPERATOR_HINT = (
    "operators are the upper-case keywords P O H Y S X WX F G U, set apart from their operand: "
    "write 'Y a', not 'Ya'; symbols are lower-case"
)


@cache
def lark_parser() -> Lark:
    """The LALR parser of ``grammar.lark`` (compiled once)."""
    grammar = files("expressivity.logic").joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer="contextual", propagate_positions=False)


def token_offset(token: Token) -> int:
    """Offset of ``token`` in the parsed text (0 when lark gives none)."""
    return int(token.start_pos or 0)


def line_column(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of offset ``pos``, counting lines as `str.splitlines` does."""
    start = 0
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines, 1):
        if pos < start + len(line):
            content = len(line.splitlines()[0]) if line.splitlines() else 0
            return number, min(pos - start, content) + 1
        start += len(line)
    if not lines:
        return 1, 1
    return len(lines), len(lines[-1].splitlines()[0] if lines[-1].splitlines() else "") + 1


def excerpt(text: str, line: int, column: int) -> str:
    """Line ``line`` of ``text`` with a caret under ``column`` (both 1-based)."""
    src = (text.splitlines() or [""])[line - 1]
    return f"  {src}\n  {' ' * (column - 1)}^"


def _expected(text: str, pos: int) -> tuple[str, ...]:
    """Terminals the parser accepts at offset ``pos``, replaying the tokens before it."""
    interactive = lark_parser().parse_interactive(text)
    try:
        for token in interactive.iter_parse():
            if token_offset(token) >= pos:
                break
    except UnexpectedInput:
        pass
    try:
        accepted = interactive.accepts()
    except UnexpectedInput:  # pragma: no cover - the replay stops before the error
        return ()
    return tuple(desc for name, desc in TOKEN_DESCRIPTIONS.items() if name in accepted)


def syntax_error(text: str, err: UnexpectedInput) -> FormulaSyntaxError:
    """The located `FormulaSyntaxError` for lark's ``err`` on ``text``."""
    if isinstance(err, UnexpectedToken) and err.token.type == "$END":
        pos = len(text.rstrip())
        message = "unexpected end of formula"
    else:
        if isinstance(err, UnexpectedToken):
            pos = token_offset(err.token)
        else:
            pos = int(getattr(err, "pos_in_stream", 0) or 0)
        message = _describe_unexpected(text, pos, err)
    line, column = line_column(text, pos)
    return FormulaSyntaxError(
        message, text=text, line=line, column=column, expected=_expected(text, pos)
    )


def _describe_unexpected(text: str, pos: int, err: UnexpectedInput) -> str:
    for spelling, hint in _HINTS.items():
        if text.startswith(spelling, pos) or text.startswith(spelling, max(pos - 1, 0)):
            return f"unexpected {spelling!r} ({hint})"
    if isinstance(err, UnexpectedToken):
        token = err.token
        if token.type == "SYMBOL":
            return f"unexpected symbol {str(token)!r}"
        if token.type == "INT":
            return f"unexpected number {str(token)!r} (a digit symbol is a single digit)"
        return f"unexpected {str(token)!r}"
    word = _IDENT.match(text, pos)
    if word and word.group()[0].isupper():
        return f"unknown operator {word.group()!r} ({_OPERATOR_HINT})"
    if word and word.group()[0] == "_":
        return f"invalid name {word.group()!r}: symbols start with a lower-case letter"
    if word and word.group().isdigit():
        return f"unexpected number {word.group()!r}"
    return f"unexpected character {text[pos]!r}" if pos < len(text) else "unexpected input"
