"""Where a formula is evaluated: at EOS (the papers' convention) or at position 1.

A word w = w1…wN has positions 1..N+1, N+1 being EOS. With the default anchor ``eos``,
L(φ) = {w : w, N+1 ⊨ φ} [LC25, LC26]; past operators look back over the whole word, while
future operators (X, WX, F, G, U) see only the end, so a formula using only them denotes one
of ∅, {ε}, Σ⁺, Σ*. With ``start``, L(φ) = {w : w, 1 ⊨ φ}, LTLf's evaluation point (then it is
the past operators that see nothing) but not LTLf's operators: for those, read the formula
in the LTLf dialect (`expressivity.logic.ltlf`, ``--logic ltlf``), which ports it as below.
Anchoring at the start is itself a formula evaluated at EOS: (start ∧ φ) ∨ P(start ∧ φ),
which is what gets compiled.
Our X, F, G and U are strict and range up to EOS, where every letter is false; LTLf's
operators are non-strict and stop at the last letter. Porting an LTLf formula: X φ is
X(φ & !eos), F φ is φ | F(φ & !eos), G φ is φ & G(φ | eos).
"""

from __future__ import annotations

from expressivity.errors import ConfigError
from expressivity.logic.syntax import And, Formula, Or, Start
from expressivity.logic.temporal import (
    BoundedPast,
    Eventually,
    Globally,
    Historically,
    Next,
    Past,
    Since,
    Until,
    WeakNext,
    Yesterday,
)

#: The evaluation anchors: ``eos`` (default, position N+1) and ``start`` (position 1).
ANCHORS: tuple[str, ...] = ("eos", "start")
#: The future and the past temporal operators (one of them sees nothing at each anchor).
FUTURE = (Next, WeakNext, Eventually, Globally, Until)
PAST = (Past, Yesterday, BoundedPast, Historically, Since)


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
