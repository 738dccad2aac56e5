"""Turn user text (catalogue name, formula or regex) into a language with its DFA."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from expressivity.alphabet import Alphabet
from expressivity.errors import AlphabetError, CatalogueError, FormulaSyntaxError

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
    formula: Formula | None = None
    language: Language | None = None


def resolve(
    text: str, alphabet: Alphabet | str | None = None, *, max_states: int | None = None
) -> Source:
    """Resolve ``text`` as a catalogue name, else a formula, else a regex.

    Text is read as a formula first, then as a regex. Prefix ``ltl:`` or ``re:`` to force a
    reading: ``a | b`` parses both ways, but as a formula it is the empty language (letters are
    false at the EOS position), so write ``re:a | b`` for the regex. A catalogue name may be
    given a different ``alphabet``: its formula or regex is then recompiled over that alphabet
    (class membership depends on the alphabet).
    """
    from expressivity.automata.compile import compile_formula
    from expressivity.automata.regex import compile_regex
    from expressivity.catalogue import get_language
    from expressivity.logic.parser import MAX_DEPTH, MAX_SHIFT, parse

    sigma = Alphabet.parse(alphabet) if isinstance(alphabet, str) else alphabet
    limit = {} if max_states is None else {"max_states": max_states}
    forced, body = _split_prefix(text)
    if forced is None:
        try:
            lang = get_language(body)
        except CatalogueError:
            lang = None
        if lang is not None:
            return _from_language(lang, sigma, text, limit)
    if sigma is None:
        raise AlphabetError(
            f"no alphabet given for {body!r}: pass one, e.g. --alphabet a,b,c "
            "(class membership depends on the alphabet)"
        )
    if forced in (None, "ltl"):
        try:
            formula = parse(body, sigma, max_depth=MAX_DEPTH, max_shift=MAX_SHIFT)
        except (FormulaSyntaxError, AlphabetError) as formula_error:
            if forced == "ltl":
                raise
            try:
                dfa = compile_regex(body, sigma, **limit)
            except (FormulaSyntaxError, AlphabetError):
                if isinstance(formula_error, AlphabetError):
                    raise formula_error from None
                raise FormulaSyntaxError(
                    f"{body!r} is neither a catalogue name, a formula nor a regex; "
                    f"as a formula: {formula_error.reason}",
                    text=body,
                    line=formula_error.line,
                    column=formula_error.column,
                    expected=formula_error.expected,
                ) from None
            return Source(text, "regex", body, sigma, dfa)
        return Source(
            text, "formula", body, sigma, compile_formula(formula, sigma, **limit), formula
        )
    return Source(text, "regex", body, sigma, compile_regex(body, sigma, **limit))


def _split_prefix(text: str) -> tuple[str | None, str]:
    for prefix in ("ltl:", "re:"):
        if text.startswith(prefix):
            return prefix[:-1], text[len(prefix) :].strip()
    return None, text.strip()


def _from_language(
    lang: Language, sigma: Alphabet | None, text: str, limit: dict[str, int]
) -> Source:
    from expressivity.automata.compile import compile_formula
    from expressivity.automata.regex import compile_regex
    from expressivity.logic.parser import parse

    if sigma is None or sigma == lang.alphabet:
        return Source(
            text, "catalogue", lang.name, lang.alphabet, lang.dfa(), lang.parsed_formula(), lang
        )
    if lang.formula is not None:
        formula = parse(lang.formula, sigma)
        dfa = compile_formula(formula, sigma, **limit)
        return Source(text, "catalogue", f"{lang.name}/{sigma}", sigma, dfa, formula, lang)
    if lang.regex is not None:
        dfa = compile_regex(lang.regex, sigma, **limit)
        return Source(text, "catalogue", f"{lang.name}/{sigma}", sigma, dfa, None, lang)
    raise AlphabetError(
        f"{lang.name} is defined by an explicit DFA over {lang.alphabet}; "
        f"it cannot be moved to the alphabet {sigma}"
    )
