"""Print formulas as canonical ASCII (`to_text`, re-parses to the same AST) or Unicode.

Parentheses are minimal for the precedence table of `expressivity.logic.parser`:
unary operators bind tightest, then ``S``/``U`` (right-associative), ``&``, ``|``,
``->`` (right-associative) and ``<->`` (left-associative), so ``parse(to_text(f)) == f`` and
``parse(to_unicode(f)) == f`` for every AST ``f``. Keyword operators are followed by a space
unless their operand is parenthesized (``P a``, ``P(a & b)``; in Unicode also ``P⊤``, ``P¬a``);
``Y^k`` and ``Y<=k`` always are (``Y^3 a``, ``Y<=2 (a | b)``); ``!`` never is (``!P a``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

__all__ = ["PRECEDENCE", "Node", "to_text", "to_unicode"]


class Node(Protocol):
    """What the printer reads of a formula node: its operator name and its children.

    `logic.syntax.Formula` is one (its ``__str__`` calls `to_text`, so this module does not
    import it); atoms are told apart by ``op`` and their parameters read by name.
    """

    @property
    def op(self) -> str: ...

    @property
    def children(self) -> tuple[Node, ...]: ...

#: Binding strength of binary connectives by operator (higher binds tighter), and associativity.
PRECEDENCE: dict[str, tuple[int, str]] = {
    "<->": (1, "left"),
    "->": (2, "right"),
    "|": (3, "left"),
    "&": (4, "left"),
    "S": (5, "right"),
    "U": (5, "right"),
}
_UNARY_LEVEL = 6
_ATOM_LEVEL = 7


@dataclass(frozen=True)
class _Style:
    top: str
    bottom: str
    names: dict[str, str]
    bounded: str  # format string for Y^{≤k}
    glue: str  # operand starts after which keyword operators need no space


_ASCII = _Style("true", "false", {}, "Y<={k}", "(")
_UNICODE = _Style(
    "⊤",
    "⊥",
    {"!": "¬", "&": "∧", "|": "∨", "->": "→", "<->": "↔"},
    "Y^{{≤{k}}}",
    "(¬⊤⊥",
)


def to_text(formula: Node) -> str:
    """Canonical ASCII text of ``formula``; ``parse(to_text(f)) == f``."""
    return _render(formula, _ASCII)


def to_unicode(formula: Node) -> str:
    """Text of ``formula`` with ¬ ∧ ∨ → ↔ ⊤ ⊥ and Y^{≤k}, for display (also re-parses)."""
    return _render(formula, _UNICODE)


def _level(formula: Node) -> int:
    if formula.children and formula.op in PRECEDENCE:
        return PRECEDENCE[formula.op][0]
    return _UNARY_LEVEL if formula.children else _ATOM_LEVEL


def _render(root: Node, style: _Style) -> str:
    """The text of ``root``, built bottom-up without recursion (any nesting depth): each node's
    text from its children's, each node object rendered once."""
    texts: dict[int, str] = {}  # id(node) -> its text; every node lives as long as root
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in texts:
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.children) if id(c) not in texts)
            continue
        texts[id(node)] = _render_node(node, lambda g: texts[id(g)], style)
    return texts[id(root)]


def _render_node(f: Node, text_of: Callable[[Node], str], style: _Style) -> str:
    """The text of ``f`` given ``text_of`` its children (unwrapped)."""
    render = getattr(f, "render", None)
    if render is not None:  # a node defined outside logic (e.g. models.construct.nodes)
        return str(render(lambda g: _wrap(text_of(g), _level(g) < _UNARY_LEVEL)))
    children = f.children
    if not children:
        return _render_atom(f, style)
    if len(children) == 1:
        return _render_unary(f, children[0], text_of(children[0]), style)
    level, assoc = PRECEDENCE[f.op]
    left, right = children
    left_text = _wrap(text_of(left), _level(left) < level + (assoc == "right"))
    right_text = _wrap(text_of(right), _level(right) < level + (assoc == "left"))
    return f"{left_text} {style.names.get(f.op, f.op)} {right_text}"


def _render_atom(f: Node, style: _Style) -> str:
    match f.op:
        case "":  # a letter
            return str(getattr(f, "name"))  # noqa: B009 - Symbol.name; atoms differ in fields
        case "true":
            return style.top
        case "false":
            return style.bottom
        case "mod":
            return f"mod({getattr(f, 'modulus')},{getattr(f, 'residue')})"  # noqa: B009
    return f.op  # start, eos


def _render_unary(f: Node, arg: Node, arg_text: str, style: _Style) -> str:
    operand = _wrap(arg_text, _level(arg) < _UNARY_LEVEL)
    k = int(getattr(f, "k", 1))
    if f.op == "Y" and k > 1:
        return f"Y^{k} {operand}"
    if f.op == "Y<=":
        return f"{style.bounded.format(k=k)} {operand}"
    op = style.names.get(f.op, f.op)
    if op in ("!", "¬") or operand[0] in style.glue:
        return op + operand
    return f"{op} {operand}"


def _wrap(text: str, needed: bool) -> str:
    return f"({text})" if needed else text
