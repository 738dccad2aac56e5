"""Compile regular expressions over named symbols into canonical minimal DFAs.

Syntax (loosest first; grammar in ``regex.lark``):

================================  ==============================================
``r | s``                         union
``r s``                           concatenation (juxtaposition)
``r*``  ``r+``  ``r?``            star, plus, optional
``r{m}`` ``r{m,}`` ``r{m,n}`` ``r{,n}``  bounded repetition (m ≤ n)
``( r )``                         grouping
``ε`` ``eps``                     the empty word; ``∅`` the empty language
``.`` ``Σ``                       any one symbol of the alphabet
``[a b0]``  ``[^a b0]``           one symbol of the class / one symbol outside it
================================  ==============================================

Tokenization. When every symbol of the alphabet is a single character, each letter or digit
is one symbol and whitespace is optional: ``(ab)*`` = ``(a b)*``, ``[^ab]`` = ``[^a b]``.
Otherwise symbols are identifiers (``a``, ``b0``, ``a_1``; or one digit) and adjacent ones must
be separated by whitespace or punctuation: ``a b0`` is a·b0, while ``ab0`` is the single
(unknown) symbol ``ab0``. ``eps`` always means ε (in a one-character alphabet containing
e, p and s, write ``e p s`` for the word). Malformed text raises `RegexSyntaxError` (line,
column, caret, expected tokens); a symbol outside the alphabet raises `AlphabetError`.
"""

from __future__ import annotations

import itertools
from functools import cache
from importlib.resources import files

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.nfa import DEFAULT_MAX_STATES, NFA
from expressivity.automata.ops import minimize
from expressivity.errors import AlphabetError, RegexSyntaxError, StateExplosionError

__all__ = ["MAX_DEPTH", "compile_regex", "regex_nfa"]

#: Deepest nesting of repetitions and groups a regex may have (a chain ``a b c`` or ``a|b|c``
#: counts as one level): the Thompson construction recurses on it.
MAX_DEPTH = 200
_CHAINS = ("concat", "union")

_SHOWN = {
    "SYMBOL": "a symbol", "ANY": "'.'", "EPSILON": "'ε'", "EMPTY": "'∅'", "INT": "a number",
    "STAR": "'*'", "PLUS": "'+'", "QUESTION": "'?'", "_BAR": "'|'", "_CARET": "'^'",
    "_COMMA": "','", "_LBRACE": "'{'", "_RBRACE": "'}'", "_LPAR": "'('", "_RPAR": "')'",
    "_LBRACKET": "'['", "_RBRACKET": "']'", "$END": "end of input",
}  # fmt: skip


def compile_regex(
    text: str, alphabet: Alphabet | str, *, max_states: int = DEFAULT_MAX_STATES
) -> DFA:
    """The canonical minimal DFA of the regular expression ``text`` over ``alphabet``.

    ``max_states`` bounds the Thompson NFA and the subset construction
    (`StateExplosionError` beyond it).
    """
    sigma = alphabet if isinstance(alphabet, Alphabet) else Alphabet.parse(alphabet)
    return minimize(
        regex_nfa(text, sigma, max_states=max_states).determinize(max_states, what=repr(text))
    )


def regex_nfa(text: str, alphabet: Alphabet, *, max_states: int = DEFAULT_MAX_STATES) -> NFA:
    """A Thompson ε-NFA of the regular expression (see the module docstring for the syntax)."""
    if not isinstance(text, str):
        raise RegexSyntaxError(f"a regular expression must be text, not {type(text).__name__}")
    parser = _parser(alphabet.single_char)
    try:
        tree = parser.parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(text, err) from None
    _check_depth(text, tree)
    return _Thompson(text, alphabet, max_states).build(tree)


def _chain(t: Tree) -> list[Tree | Token]:
    """The operands of a left-nested chain of ``t.data`` (``a b c`` → a, b, c), iteratively."""
    out: list[Tree | Token] = []
    while isinstance(t, Tree) and t.data in _CHAINS:
        out.append(t.children[-1])
        head = t.children[0]
        if not (isinstance(head, Tree) and head.data == t.data):
            out.append(head)
            break
        t = head
    return out[::-1]


def _first_token(node: Tree | Token) -> Token | None:
    """A direct token of ``node`` (its operator), else the first token below it, iteratively."""
    while isinstance(node, Tree):
        own = [k for k in node.children if isinstance(k, Token)]
        if own or not node.children:
            return own[0] if own else None
        node = node.children[0]
    return node


def _check_depth(text: str, tree: Tree | Token) -> None:
    """`RegexSyntaxError` at the first token nested deeper than `MAX_DEPTH` levels."""
    todo: list[tuple[Tree | Token, int]] = [(tree, 0)]
    while todo:
        node, depth = todo.pop()
        if not isinstance(node, Tree):
            continue
        kids = _chain(node) if node.data in _CHAINS else node.children
        depth += 1
        if depth > MAX_DEPTH:
            tok = _first_token(node)
            raise RegexSyntaxError(
                f"regular expression too deep: groups and repetitions nest more than "
                f"{MAX_DEPTH} levels (limit {MAX_DEPTH}); simplify it (r** is r*, ((r)*)* is r*)",
                text=text, line=getattr(tok, "line", 1) or 1, column=getattr(tok, "column", 1) or 1,
            )
        todo.extend((kid, depth) for kid in kids)


@cache
def _parser(single_char: bool) -> Lark:
    grammar = files("expressivity.automata").joinpath("regex.lark").read_text(encoding="utf-8")

    def edit(terminal):  # type: ignore[no-untyped-def]
        if single_char and terminal.name == "SYMBOL":
            terminal.pattern.value = "[a-z0-9]"
            terminal.pattern.flags = ()

    return Lark(grammar, parser="lalr", lexer="contextual", edit_terminals=edit)


def _syntax_error(text: str, err: UnexpectedInput) -> RegexSyntaxError:
    line, column = getattr(err, "line", 0) or 1, getattr(err, "column", 0) or 1
    expected: tuple[str, ...] = ()
    if isinstance(err, UnexpectedToken):
        found = "end of input" if err.token.type == "$END" else repr(str(err.token))
        if err.token.type == "$END":  # point just past the last character
            lines = text.splitlines() or [""]
            line, column = len(lines), len(lines[-1]) + 1
        reason = f"unexpected {found} in regular expression"
        expected = tuple(sorted(_SHOWN.get(t, t) for t in err.expected))
    elif isinstance(err, UnexpectedCharacters):
        reason = f"unexpected character {err.char!r} in regular expression"
        expected = tuple(sorted(_SHOWN.get(t, t) for t in err.allowed or ()))
    else:
        reason = "malformed regular expression"
    return RegexSyntaxError(reason, text=text, line=line, column=column, expected=expected)


class _Thompson:
    """Builds the ε-NFA of a parse tree, one fragment (entry, exit) per node."""

    def __init__(self, text: str, alphabet: Alphabet, max_states: int) -> None:
        self.text, self.alphabet, self.max_states = text, alphabet, max_states
        self.moves: list[tuple[int, frozenset[int], int]] = []  # (state, letters, state)
        self.eps: list[set[int]] = []

    def state(self) -> int:
        if len(self.eps) >= self.max_states:
            raise StateExplosionError(
                f"the NFA of the regular expression {self.text!r} needs more than "
                f"{self.max_states} states; raise max_states or shorten the repetitions"
            )
        self.eps.append(set())
        return len(self.eps) - 1

    def build(self, tree: Tree | Token) -> NFA:
        start, end = self.fragment(tree)
        k = len(self.alphabet)
        rows: list[list[set[int]]] = [[set() for _ in range(k)] for _ in self.eps]
        for p, letters, q in self.moves:
            for a in letters:
                rows[p][a].add(q)
        delta = tuple(tuple(frozenset(s) for s in row) for row in rows)
        eps = tuple(frozenset(s) for s in self.eps)
        return NFA(self.alphabet, delta, frozenset((start,)), frozenset((end,)), eps)

    def letters(self, letters: frozenset[int]) -> tuple[int, int]:
        p, q = self.state(), self.state()
        self.moves.append((p, letters, q))
        return p, q

    def fragment(self, t: Tree | Token) -> tuple[int, int]:
        if isinstance(t, Token):  # a lone SYMBOL / ANY / EPSILON / EMPTY reduced by `?atom`
            t = Tree(
                {"SYMBOL": "symbol", "ANY": "any", "EPSILON": "epsilon"}.get(t.type, "empty"), [t]
            )
        kind, kids = t.data, t.children
        if kind == "symbol":
            return self.letters(frozenset((self.code(kids[0]),)))
        if kind == "any":
            return self.letters(frozenset(range(len(self.alphabet))))
        if kind in ("members", "non_members"):
            chosen = {self.code(tok) for tok in kids}
            if kind == "non_members":
                chosen = set(range(len(self.alphabet))) - chosen
            return self.letters(frozenset(chosen))
        if kind in ("epsilon", "empty"):
            p, q = self.state(), self.state()
            if kind == "epsilon":
                self.eps[p].add(q)
            return p, q
        if kind == "union":  # a chain r1 | r2 | ... without recursing along it
            parts = [self.fragment(k) for k in _chain(t)]
            p, q = self.state(), self.state()
            for a, b in parts:
                self.eps[p].add(a)
                self.eps[b].add(q)
            return p, q
        if kind == "concat":
            parts = [self.fragment(k) for k in _chain(t)]
            for (_, a2), (b1, _) in itertools.pairwise(parts):
                self.eps[a2].add(b1)
            return parts[0][0], parts[-1][1]
        if kind in ("star", "plus", "optional"):
            return self.repeat(
                kids[0], 1 if kind == "plus" else 0, None if kind != "optional" else 1
            )
        bounds = [int(tok) for tok in kids[1:] if isinstance(tok, Token)]
        low, high = {
            "exactly": (bounds[0], bounds[0]),
            "at_least": (bounds[0], None),
            "between": (bounds[0], bounds[-1]),
            "at_most": (0, bounds[0]),
        }[kind]
        if high is not None and low > high:
            tok = [tok for tok in kids if isinstance(tok, Token)][-1]
            raise RegexSyntaxError(
                f"repetition {{{low},{high}}} has its lower bound above its upper bound",
                text=self.text,
                line=tok.line or 1,
                column=tok.column or 1,
            )
        return self.repeat(kids[0], low, high)

    def repeat(self, body: Tree | Token, low: int, high: int | None) -> tuple[int, int]:
        """``body{low,high}`` (``high`` None: unbounded) by copying the body's fragment."""
        start = cur = self.state()
        for _ in range(low):
            a, b = self.fragment(body)
            self.eps[cur].add(a)
            cur = b
        if high is None:
            a, b = self.fragment(body)
            loop = self.state()
            self.eps[cur].add(loop)
            self.eps[loop].add(a)
            self.eps[b].add(loop)
            return start, loop
        end = self.state()
        self.eps[cur].add(end)
        for _ in range(high - low):
            a, b = self.fragment(body)
            self.eps[cur].add(a)
            self.eps[b].add(end)
            cur = b
        return start, end

    def code(self, tok: Tree | Token) -> int:
        name = str(tok)
        if name in self.alphabet:
            return self.alphabet.index(name)
        hint = ""
        if not self.alphabet.single_char and all(c in self.alphabet for c in name):
            hint = f"; separate symbols by spaces ({' '.join(name)!r})"
        line, column = getattr(tok, "line", 1) or 1, getattr(tok, "column", 1) or 1
        src = self.text.splitlines()[line - 1] if self.text.splitlines() else ""
        raise AlphabetError(
            f"symbol {name!r} is not in the alphabet {self.alphabet} (line {line}, column "
            f"{column}){hint}:\n  {src}\n  {' ' * (column - 1)}^"
        )
