"""Formulas whose language is constant (∅, {ε}, Σ⁺, Σ*) because of where they are evaluated.

The anchors themselves are `expressivity.logic.anchor`; this module looks at the compiled DFA.
"""

from __future__ import annotations

from expressivity.automata.compile import compile_formula
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import distinguishing_word
from expressivity.errors import ExpressivityError
from expressivity.logic.anchor import FUTURE, PAST
from expressivity.logic.ltlf import language_formula
from expressivity.logic.syntax import Formula


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
    future = any(isinstance(sub, FUTURE) for sub in formula.subformulas())
    past = any(isinstance(sub, PAST) for sub in formula.subformulas())
    constant = constant_language(dfa) if future or past else None
    if constant is None:
        return None
    head = f"{formula} evaluated at {at} denotes the constant language {constant}"
    if at == "eos" and future:
        return (f"{head}: future operators see only the end of the word at EOS; did you mean "
                "--logic ltlf (LTLf's semantics; logic = \"ltlf\" in a catalogue file or sweep "
                "spec)? (--at start would only move the evaluation point to position 1)")
    if at == "start" and past:
        return (f"{head}: past operators see nothing before position 1; did you mean --at eos "
                "(the default)?")
    if at == "start":
        return (f"{head}: X, F, G and U range up to EOS, where every letter is false "
                "(LTLf's G a is G(a | eos) here, its X a is X(a & !eos)); --logic ltlf reads "
                "the formula as LTLf")
    return None


def ltlf_difference_warning(formula: Formula, dfa: DFA) -> str | None:
    """With ``--at start``, a warning when ``formula``'s language differs from its LTLf
    reading (``--logic ltlf``), with the shortest word on which they disagree: ``--at start``
    moves the evaluation point but keeps the toolkit's strict X, F, G, U that range up to EOS."""
    if not any(isinstance(sub, FUTURE) for sub in formula.subformulas()):
        return None
    try:
        ltlf = compile_formula(language_formula(formula, logic="ltlf"), dfa.alphabet)
    except ExpressivityError:  # past operators or eos: no LTLf reading to compare with
        return None
    word = distinguishing_word(dfa, ltlf)
    if word is None:
        return None
    shown = dfa.alphabet.format_word(word) if word else "ε (the empty word)"
    verdict = "accepts" if dfa.accepts(word) else "rejects"
    return (f"--at start reads {formula} at position 1 but keeps the toolkit's strict X, F, G "
            f"and U, which range up to EOS (where no letter holds); this is not LTLf: it "
            f"{verdict} {shown}, which LTLf {'rejects' if verdict == 'accepts' else 'accepts'}. "
            "For LTLf's semantics use --logic ltlf (logic = \"ltlf\" in a catalogue file)")
