"""The LTLf dialect: formulas read with LTLf's semantics, translated exactly into our logic.

LTLf [De Giacomo & Vardi 2013] evaluates a formula at the first position of a finite word
w = w1…wN: X is the strong next (n < N), WX the weak next, and F, G, U are non-strict and
range over the letter positions n..N. The empty word follows ltlf2dfa + MONA: a strong
operator (a letter, X, F, U) is false on it and a weak one (WX, G) true.

`to_toolkit` rewrites such a formula into the toolkit's own logic (docs/theory.md §2), where X,
F, G, U are strict and range up to EOS = N+1, so that both agree at every position 1..N+1
(docs/theory.md §10 proves it):

    τ(X φ) = X(τφ ∧ ¬eos)        τ(WX φ) = WX(τφ ∨ eos)
    τ(F φ) = φ' ∨ F φ'           with φ' = τφ ∧ ¬eos
    τ(G φ) = φ'' ∧ G φ''         with φ'' = τφ ∨ eos
    τ(φ U ψ) = ψ' ∨ (τφ ∧ (τφ U ψ'))   with ψ' = τψ ∧ ¬eos

The result is pure future, so `automata.compile_formula` reads it right to left
deterministically; the shared subformulas (φ', τφ) are one object each, so the translation
takes linear time and memory, although the *printed* formula doubles with each nested F, G or
U. `language_formula` then anchors τφ at position 1, the formula at EOS that is compiled.
Past operators and ``eos`` have no meaning in LTLf and are refused with their position.
"""

from __future__ import annotations

import re

from expressivity.errors import ConfigError, FormulaSyntaxError
from expressivity.logic.anchor import anchored
from expressivity.logic.grammar import line_column
from expressivity.logic.syntax import ATOMS, BOOLEAN, EOS, And, Eos, Formula, Not, Or
from expressivity.logic.temporal import Eventually, Globally, Next, Until, WeakNext

#: The dialects a formula can be read in: the toolkit's LTL (default) and LTLf.
LOGICS: tuple[str, ...] = ("ltl", "ltlf")
NOT_EOS = Not(EOS)
#: Operator spellings the LTLf dialect refuses, for locating them in the text.
_REFUSED = re.compile(r"(?<![A-Za-z0-9_])(P|O|H|Y|S|eos)(?![A-Za-z0-9_])")


def check_logic(logic: str, where: str = "--logic") -> str:
    """``logic`` if it is a dialect, else a `ConfigError` naming ``where``."""
    if logic not in LOGICS:
        raise ConfigError(f"{where}: logic must be 'ltl' or 'ltlf', got {logic!r}")
    return logic


def check_ltlf(formula: Formula, text: str = "") -> Formula:
    """``formula`` if it is an LTLf formula (no past operator, no ``eos``), else a located
    `FormulaSyntaxError` (``text`` is the formula as the user wrote it)."""
    for sub in formula.subformulas():
        if isinstance(sub, (*ATOMS, *BOOLEAN, Next, WeakNext, Eventually, Globally, Until)) and (
            not isinstance(sub, Eos)
        ):
            continue
        name = "eos" if isinstance(sub, Eos) else sub.operator_name
        found = _REFUSED.search(text) if text else None
        line, column = line_column(text, found.start()) if found else (0, 0)
        raise FormulaSyntaxError(
            f"the LTLf dialect has no {name!r}: LTLf formulas use letters, true, false, start, "
            "mod(m,r), ! & | -> <->, X, WX, F, G and U; for past operators (P, Y, H, S) or eos "
            "use the default logic (--logic ltl)",
            text=text,
            line=line,
            column=column,
        )
    return formula


def to_toolkit(formula: Formula) -> Formula:
    """τ(φ): a formula of the toolkit's logic true at n ∈ 1..N+1 iff the LTLf formula is.

    Iterative (post-order with a memo), so it follows the parser's depth limit without
    recursion; shared subformulas are translated once.
    """
    check_ltlf(formula)
    done: dict[Formula, Formula] = {}
    for sub in formula.subformulas():
        if sub not in done:
            done[sub] = _step(sub, [done[c] for c in sub.children])
    return done[formula]


def _step(node: Formula, args: list[Formula]) -> Formula:
    match node:
        case Next():
            return Next(And(args[0], NOT_EOS))
        case WeakNext():
            return WeakNext(Or(args[0], EOS))
        case Eventually():
            letter = And(args[0], NOT_EOS)
            return Or(letter, Eventually(letter))
        case Globally():
            letter_or_end = Or(args[0], EOS)
            return And(letter_or_end, Globally(letter_or_end))
        case Until():
            goal = And(args[1], NOT_EOS)
            return Or(goal, And(args[0], Until(args[0], goal)))
    if not args:
        return node
    return type(node)(*args)


def language_formula(formula: Formula, at: str = "eos", logic: str = "ltl") -> Formula:
    """The toolkit formula whose language at EOS is ``formula``'s language in ``logic``:
    `anchor.anchored` for ``ltl``; for ``ltlf``, τφ evaluated at position 1 (``at`` must then
    be ``start``, LTLf's own anchor, or ``eos`` meaning "not given")."""
    if check_logic(logic) == "ltl":
        return anchored(formula, at)
    return anchored(to_toolkit(formula), "start")


def check_anchor_for(logic: str, at: str | None, where: str = "--at") -> None:
    """Refuse ``--at eos`` with the LTLf dialect (LTLf always reads position 1)."""
    if logic == "ltlf" and at == "eos":
        raise ConfigError(
            f"{where} eos: the LTLf dialect evaluates a formula at the first position by "
            "definition; drop the anchor, or use --logic ltl to read the formula at EOS"
        )
