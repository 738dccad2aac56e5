"""Where a formula is evaluated: at EOS (the papers' convention) or at position 1 (LTLf's).

A word w = w1…wN has positions 1..N+1, N+1 being EOS. With the default anchor ``eos``,
L(φ) = {w : w, N+1 ⊨ φ} [LC25, LC26]; past operators look back over the whole word, while
future operators (X, WX, F, G, U) see only the end, so a formula using only them denotes one
of ∅, {ε}, Σ⁺, Σ*. With ``start``, L(φ) = {w : w, 1 ⊨ φ}, the LTLf convention of finite-trace
specifications (then it is the past operators that see nothing). Anchoring at the start is
itself a formula evaluated at EOS: (start ∧ φ) ∨ P(start ∧ φ), which is what gets compiled.
Our X, F, G and U are strict and range up to EOS, where every letter is false; LTLf's
operators are non-strict and stop at the last letter. Porting an LTLf formula: X φ is
X(φ & !eos), F φ is φ | F(φ & !eos), G φ is φ & G(φ | eos).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from expressivity.errors import ConfigError
from expressivity.logic.syntax import (
    And,
    BoundedPast,
    Eventually,
    Formula,
    Globally,
    Historically,
    Next,
    Or,
    Past,
    Since,
    Start,
    Until,
    WeakNext,
    Yesterday,
)

if TYPE_CHECKING:
    from expressivity.automata.dfa import DFA

#: The evaluation anchors: ``eos`` (default, position N+1) and ``start`` (position 1).
ANCHORS: tuple[str, ...] = ("eos", "start")
_FUTURE = (Next, WeakNext, Eventually, Globally, Until)
_PAST = (Past, Yesterday, BoundedPast, Historically, Since)


def check_anchor(at: str, where: str = "--at") -> str:
    """``at`` if it is an anchor, else a `ConfigError` naming ``where``."""
    if at not in ANCHORS:
        raise ConfigError(f"{where}: evaluation anchor must be 'eos' or 'start', got {at!r}")
    return at


def anchored(formula: Formula, at: str = "eos") -> Formula:
    """A formula whose language at EOS is the language of ``formula`` evaluated at ``at``."""
    if check_anchor(at) == "eos":
        return formula
    first = And(Start(), formula)
    return Or(first, Past(first))


def constant_language(dfa: DFA) -> str | None:
    """"∅", "{ε}", "Σ⁺" or "Σ*" when the DFA's language is one of them, else None."""
    reached: set[int] = set()
    frontier = {int(q) for q in dfa.transitions[dfa.initial]}
    while frontier:  # the states reached by words of length >= 1
        reached |= frontier
        frontier = {int(r) for q in frontier for r in dfa.transitions[q]} - reached
    accepting = {bool(dfa.accepting[q]) for q in reached}
    if len(accepting) != 1:
        return None
    empty_word = bool(dfa.accepting[dfa.initial])
    nonempty = accepting.pop()
    return {(False, False): "∅", (True, False): "{ε}", (False, True): "Σ⁺", (True, True): "Σ*"}[
        (empty_word, nonempty)
    ]


def anchor_warning(formula: Formula, dfa: DFA, at: str = "eos") -> str | None:
    """A warning when ``formula`` denotes ∅, {ε}, Σ⁺ or Σ* because of the anchor: it uses
    future operators and is read at EOS, or past operators and is read at the start."""
    future = any(isinstance(sub, _FUTURE) for sub in formula.subformulas())
    past = any(isinstance(sub, _PAST) for sub in formula.subformulas())
    constant = constant_language(dfa) if future or past else None
    if constant is None:
        return None
    head = f"{formula} evaluated at {at} denotes the constant language {constant}"
    if at == "eos" and future:
        return (f"{head}: future operators see only the end of the word at EOS; did you mean "
                "--at start (the LTLf convention; evaluate_at = \"start\" in a catalogue file)?")
    if at == "start" and past:
        return (f"{head}: past operators see nothing before position 1; did you mean --at eos "
                "(the default)?")
    if at == "start":
        return (f"{head}: X, F, G and U range up to EOS, where every letter is false "
                "(LTLf's G a is G(a | eos) here, its X a is X(a & !eos))")
    return None
