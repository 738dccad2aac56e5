"""Turn user text (catalogue name, formula or regex) into a language with its DFA."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

from expressivity.alphabet import Alphabet
from expressivity.automata.constant import (
    anchor_warning,
    constant_language,
    ltlf_difference_warning,
)
from expressivity.errors import (
    AlphabetError,
    ConfigError,
    ExpressivityError,
    ExpressivityWarning,
    FormulaLimitError,
    FormulaSyntaxError,
    echo,
)
from expressivity.logic.anchor import anchored, check_anchor
from expressivity.logic.ltlf import check_anchor_for, check_logic, check_ltlf, language_formula

if TYPE_CHECKING:
    from expressivity.automata.dfa import DFA
    from expressivity.catalogue import Language
    from expressivity.logic.syntax import Formula


@dataclass(frozen=True)
class Source:
    """A resolved language: where it came from, its alphabet, its formula (if any) and DFA."""

    text: str
    kind: str  # "catalogue" | "formula" | "regex"
    name: str
    alphabet: Alphabet
    dfa: DFA
    formula: Formula | None = None  # denotes the language at EOS (anchored, logic.anchor)
    language: Language | None = None
    at: str = "eos"  # where the user's formula is evaluated: "eos" or "start"
    logic: str = "ltl"  # the dialect the formula was read in: "ltl" or "ltlf" (logic.ltlf)


def resolve(
    text: str,
    alphabet: Alphabet | str | None = None,
    *,
    at: str | None = None,
    logic: str | None = None,
    max_states: int | None = None,
) -> Source:
    """Resolve ``text`` as a catalogue name, else a formula, else a regex.

    Text is read as a formula first, then as a regex. Prefix ``ltl:`` or ``re:`` to force a
    reading: ``a | b`` parses both ways, but as a formula it is the empty language (letters are
    false at the EOS position), so write ``re:a | b`` for the regex. Prefix ``ltlf:`` (or pass
    ``logic="ltlf"``) to read a formula with LTLf's semantics (`expressivity.logic.ltlf`).
    A catalogue name may be given a different ``alphabet``: its formula or regex is then
    recompiled over that alphabet (class membership depends on the alphabet).

    ``at`` anchors a formula: ``"eos"`` (the default, the papers' convention) or ``"start"``
    (position 1, with the toolkit's strict operators, so not LTLf; `expressivity.logic.anchor`).
    A catalogue entry brings its own ``evaluate_at``. A formula whose language is ∅, {ε}, Σ⁺
    or Σ* because of the anchor gets an `ExpressivityWarning`, and so does a formula read
    ``--at start`` whose language differs from its LTLf reading (``logic="ltlf"``).
    """
    from expressivity.automata.compile import compile_formula
    from expressivity.automata.regex import compile_regex
    from expressivity.catalogue import close_names, find_language, unknown_language
    from expressivity.logic.parser import MAX_DEPTH, MAX_SHIFT, parse

    sigma = Alphabet.parse(alphabet) if isinstance(alphabet, str) else alphabet
    limit = {} if max_states is None else {"max_states": max_states}
    forced, body = _split_prefix(text)
    dialect = "ltlf" if forced == "ltlf" else check_logic(logic or "ltl")
    check_anchor_for(dialect, at)
    if forced is None:
        lang = find_language(body)
        if lang is not None:
            return _from_language(lang, sigma, text, limit, at, logic)
        if sigma is None and (_looks_like_name(body) or close_names(body)):
            raise unknown_language(body)
    if sigma is None:
        raise AlphabetError(
            f"no alphabet given for {body!r}: pass one, e.g. --alphabet a,b,c "
            "(class membership depends on the alphabet)"
        )
    anchor = check_anchor(at or ("start" if dialect == "ltlf" else "eos"))
    if forced in (None, "ltl", "ltlf"):
        try:
            formula = parse(body, sigma, max_depth=MAX_DEPTH, max_shift=MAX_SHIFT)
        except FormulaLimitError:  # a formula over a bound: that error, never a regex reading
            raise
        except (FormulaSyntaxError, AlphabetError) as formula_error:
            if forced is not None or dialect == "ltlf":
                raise
            try:
                dfa = compile_regex(body, sigma, **limit)
            except (FormulaSyntaxError, AlphabetError):
                if forced is None and close_names(body):
                    raise unknown_language(body) from None
                if isinstance(formula_error, AlphabetError):
                    raise formula_error from None
                raise FormulaSyntaxError(
                    f"{echo(body)} is neither a catalogue name, a formula nor a regex; "
                    f"as a formula: {formula_error.reason}",
                    text=body,
                    line=formula_error.line,
                    column=formula_error.column,
                    expected=formula_error.expected,
                ) from None
            return Source(text, "regex", body, sigma, _regex_only(dfa, body, anchor, dialect))
        if dialect == "ltlf":
            check_ltlf(formula, body)
        goal = language_formula(formula, anchor, dialect)
        dfa = compile_formula(goal, sigma, **limit)
        _warn_anchor(formula, dfa, anchor, dialect)
        name = _named(body, anchor, dialect)
        return Source(text, "formula", name, sigma, dfa, goal, at=anchor, logic=dialect)
    dfa = _regex_only(compile_regex(body, sigma, **limit), body, anchor, dialect)
    return Source(text, "regex", body, sigma, dfa)


def _regex_only(dfa: DFA, body: str, anchor: str, logic: str = "ltl") -> DFA:
    if anchor != "eos" or logic != "ltl":
        raise ConfigError(f"{_what(anchor, logic)} applies to formulas; {body!r} was read as a "
                          "regex")
    return dfa


def _warn_anchor(formula: Formula, dfa: DFA, anchor: str, logic: str = "ltl") -> None:
    if logic == "ltlf":  # LTLf's own operators: nothing about anchors to warn of
        return
    message = anchor_warning(formula, dfa, anchor) or _anchor_made(formula, dfa, anchor)
    if message is None and anchor == "start":
        message = ltlf_difference_warning(formula, dfa)
    if message is not None:
        warnings.warn(message, ExpressivityWarning, stacklevel=3)


def _named(body: str, anchor: str, logic: str) -> str:
    if logic == "ltlf":
        return f"{body} (LTLf)"
    return body if anchor == "eos" else f"{body} (at {anchor})"
def _anchor_made(formula: Formula, dfa: DFA, anchor: str) -> str | None:
    """At start, the warning for a constant language that EOS does not give (``eos`` or
    ``!a & !b``: {ε} at start, Σ* at EOS), which `anchor_warning` leaves to this check."""
    from expressivity.automata.compile import compile_formula

    here = constant_language(dfa) if anchor == "start" else None  # EOS: `anchor_warning`
    if here is None:
        return None
    other = "eos"
    try:
        there = constant_language(compile_formula(anchored(formula, other), dfa.alphabet))
    except ExpressivityError:  # too large to compile at the other anchor: say nothing
        return None
    if there == here:
        return None  # a tautology or contradiction at both anchors: not the anchor's doing
    return (f"{formula} evaluated at {anchor} denotes the constant language {here}; the anchor "
            f"makes it so (at {other} it is {there or 'not constant'}): "
            "position 1 is the first letter, and EOS holds there only in the empty word")


#: What a catalogue name looks like (LT-2, SUFFIX-a, DYCK-(1,1), PARITY), as opposed to a formula.
_NAME = re.compile(r"[A-Z][A-Za-z0-9_(),]*(-[A-Za-z0-9_(),-]+|[A-Z0-9][A-Za-z0-9_(),]*)")


def _looks_like_name(text: str) -> bool:
    """Shaped like a catalogue name and not a formula over its own symbols."""
    from expressivity.logic.parser import parse

    if _NAME.fullmatch(text) is None:
        return False
    try:
        parse(text)
    except ExpressivityError:
        return True
    return False


def _split_prefix(text: str) -> tuple[str | None, str]:
    for prefix in ("ltlf:", "ltl:", "re:"):
        if text.startswith(prefix):
            return prefix[:-1], text[len(prefix) :].strip()
    return None, text.strip()


def _from_language(
    lang: Language, sigma: Alphabet | None, text: str, limit: dict[str, int], at: str | None,
    logic: str | None = None,
) -> Source:
    from expressivity.automata.compile import compile_formula
    from expressivity.automata.regex import compile_regex
    from expressivity.logic.parser import parse

    dialect = check_logic(logic or lang.logic)
    check_anchor_for(dialect, at)
    own_anchor = lang.evaluate_at if dialect == lang.logic else "eos"
    anchor = check_anchor(at or ("start" if dialect == "ltlf" else own_anchor))
    own = lang.formula is None or (anchor == lang.evaluate_at and dialect == lang.logic)
    if own and (sigma is None or sigma == lang.alphabet):
        if (anchor != "eos" or dialect != "ltl") and lang.formula is None:
            raise ConfigError(f"{_what(anchor, dialect)} applies to formulas; {lang.name} has none")
        formula = lang.parsed_formula()
        goal = None if formula is None else language_formula(formula, anchor, dialect)
        return Source(text, "catalogue", lang.name, lang.alphabet, lang.dfa(), goal, lang, anchor,
                      dialect)
    sigma = sigma or lang.alphabet
    name = lang.name + ("" if sigma == lang.alphabet else f"/{sigma}")
    if dialect != lang.logic:
        name += f"@{dialect}"
    elif anchor != lang.evaluate_at:
        name += f"@{anchor}"
    if lang.formula is not None:
        formula = parse(lang.formula, sigma)
        if dialect == "ltlf":
            check_ltlf(formula, lang.formula)
        goal = language_formula(formula, anchor, dialect)
        dfa = compile_formula(goal, sigma, **limit)
        _warn_anchor(formula, dfa, anchor, dialect)
        return Source(text, "catalogue", name, sigma, dfa, goal, lang, anchor, dialect)
    if anchor != "eos" or dialect != "ltl":
        raise ConfigError(f"{_what(anchor, dialect)} applies to formulas; {lang.name} has none")
    if lang.regex is not None:
        dfa = compile_regex(lang.regex, sigma, **limit)
        return Source(text, "catalogue", f"{lang.name}/{sigma}", sigma, dfa, None, lang)
    raise AlphabetError(
        f"{lang.name} is defined by an explicit DFA over {lang.alphabet}; "
        f"it cannot be moved to the alphabet {sigma}"
    )


def _what(anchor: str, logic: str) -> str:
    return "--logic ltlf" if logic == "ltlf" else f"--at {anchor}"
