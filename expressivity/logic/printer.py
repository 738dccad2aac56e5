"""Print formulas as canonical ASCII (`to_text`, re-parses to the same AST) or Unicode.

Parentheses are minimal for the precedence table of `expressivity.logic.parser`:
unary operators bind tightest, then ``S``/``U`` (right-associative), ``&``, ``|``,
``->`` (right-associative) and ``<->`` (left-associative), so ``parse(to_text(f)) == f`` and
``parse(to_unicode(f)) == f`` for every AST ``f``. Keyword operators are followed by a space
unless their operand is parenthesized (``P a``, ``P(a & b)``; in Unicode also ``P⊤``, ``P¬a``);
``Y^k`` and ``Y<=k`` always are (``Y^3 a``, ``Y<=2 (a | b)``); ``!`` never is (``!P a``).
"""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.logic.syntax import (
    And,
    Bottom,
    BoundedPast,
    Eos,
    Formula,
    Iff,
    Implies,
    Mod,
    Or,
    Since,
    Start,
    Symbol,
    Top,
    Until,
    Yesterday,
)

__all__ = ["PRECEDENCE", "to_text", "to_unicode"]

#: Binding strength of binary connectives (higher binds tighter) and their associativity.
PRECEDENCE: dict[type[Formula], tuple[int, str]] = {
    Iff: (1, "left"),
    Implies: (2, "right"),
    Or: (3, "left"),
    And: (4, "left"),
    Since: (5, "right"),
    Until: (5, "right"),
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


def to_text(formula: Formula) -> str:
    """Canonical ASCII text of ``formula``; ``parse(to_text(f)) == f``."""
    return _render(formula, _ASCII)


def to_unicode(formula: Formula) -> str:
    """Text of ``formula`` with ¬ ∧ ∨ → ↔ ⊤ ⊥ and Y^{≤k}, for display (also re-parses)."""
    return _render(formula, _UNICODE)


def _level(formula: Formula) -> int:
    if type(formula) in PRECEDENCE:
        return PRECEDENCE[type(formula)][0]
    return _UNARY_LEVEL if formula.children else _ATOM_LEVEL


def _render(f: Formula, style: _Style) -> str:
    match f:
        case Symbol(name):
            return name
        case Top():
            return style.top
        case Bottom():
            return style.bottom
        case Start() | Eos():
            return f.op
        case Mod(modulus, residue):
            return f"mod({modulus},{residue})"
    render = getattr(f, "render", None)
    if render is not None:  # a node defined outside logic (e.g. models.construct_nodes)
        return str(render(lambda g: _wrap(_render(g, style), _level(g) < _UNARY_LEVEL)))
    children = f.children
    if len(children) == 1:
        return _render_unary(f, children[0], style)
    level, assoc = PRECEDENCE[type(f)]
    left, right = children
    left_text = _wrap(_render(left, style), _level(left) < level + (assoc == "right"))
    right_text = _wrap(_render(right, style), _level(right) < level + (assoc == "left"))
    return f"{left_text} {style.names.get(f.op, f.op)} {right_text}"


def _render_unary(f: Formula, arg: Formula, style: _Style) -> str:
    operand = _wrap(_render(arg, style), _level(arg) < _UNARY_LEVEL)
    if isinstance(f, Yesterday) and f.k > 1:
        return f"Y^{f.k} {operand}"
    if isinstance(f, BoundedPast):
        return f"{style.bounded.format(k=f.k)} {operand}"
    op = style.names.get(f.op, f.op)
    if op in ("!", "¬") or operand[0] in style.glue:
        return op + operand
    return f"{op} {operand}"


def _wrap(text: str, needed: bool) -> str:
    return f"({text})" if needed else text
