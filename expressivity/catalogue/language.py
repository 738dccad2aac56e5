"""A catalogue language as a frozen value: alphabet, definitions, provenance, expected classes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from expressivity.alphabet import Alphabet
from expressivity.errors import ExpressivityError

if TYPE_CHECKING:
    from expressivity.automata.dfa import DFA
    from expressivity.logic.syntax import Formula

__all__ = ["CLASS_KEYS", "NONREGULAR", "Language"]

#: Class names an entry may list under ``[expected]`` (the keys of `algebra.classify`).
CLASS_KEYS = frozenset(
    {
        "regular",
        "aperiodic",
        "r_trivial",
        "l_trivial",
        "j_trivial",
        "da",
        "definite",
        "reverse_definite",
        "generalized_definite",
        "locally_testable",
        "locally_r_trivial",
        "group",
        "qr",
        "qlr",
    }
)


def _anbn(word: Sequence[str]) -> bool:
    n = len(word)
    return (
        n % 2 == 0
        and all(s == "a" for s in word[: n // 2])
        and all(s == "b" for s in word[n // 2 :])
    )


#: Built-in non-regular membership predicates, by the name used in ``nonregular = "..."``.
NONREGULAR: Mapping[str, Callable[[Sequence[str]], bool]] = {"anbn": _anbn}


@dataclass(frozen=True)
class Language:
    """A catalogue language: its alphabet, definitions, provenance and expected classes."""

    name: str
    alphabet: Alphabet
    description: str = ""
    source: str = ""
    formula: str | None = None
    regex: str | None = None
    nonregular: str | None = None
    dfa_table: tuple[int, tuple[int, ...], tuple[tuple[int, ...], ...]] | None = None
    expected: tuple[tuple[str, bool], ...] = ()
    path: str = ""
    evaluate_at: str = "eos"  # where the formula is evaluated: "eos" or "start" (logic.anchor)
    logic: str = "ltl"  # the formula's dialect: "ltl" or "ltlf" (logic.ltlf; then at "start")

    @property
    def is_regular(self) -> bool:
        """False for the non-regular controls (such as CNT = aⁿbⁿ)."""
        return self.nonregular is None

    @property
    def expected_classes(self) -> dict[str, bool]:
        """The ``[expected]`` table as a dict."""
        return dict(self.expected)

    def parsed_formula(self) -> Formula | None:
        """The formula as an AST (None when the entry has no formula); with ``logic = "ltlf"``
        it must be an LTLf formula (no past operator, no ``eos``)."""
        if self.formula is None:
            return None
        from expressivity.logic.ltlf import check_ltlf
        from expressivity.logic.parser import MAX_DEPTH, MAX_SHIFT, parse

        formula = parse(self.formula, self.alphabet, max_depth=MAX_DEPTH, max_shift=MAX_SHIFT)
        return check_ltlf(formula, self.formula) if self.logic == "ltlf" else formula

    def dfa(self) -> DFA:
        """The canonical minimal DFA (from the formula, else the regex, else the table)."""
        return _compile(self)

    def accepts(self, word: Sequence[str]) -> bool:
        """Membership of ``word`` (works for the non-regular controls too)."""
        word = self.alphabet.check_word(word)
        if self.nonregular is not None:
            return NONREGULAR[self.nonregular](word)
        return self.dfa().accepts(word)


@cache
def _compile(lang: Language) -> DFA:
    if lang.nonregular is not None:
        raise ExpressivityError(
            f"{lang.name} is not regular ({lang.description}); it has no DFA. "
            "Use Language.accepts for membership."
        )
    if lang.formula is not None:
        from expressivity.automata.compile import compile_formula
        from expressivity.logic.ltlf import language_formula

        formula = language_formula(
            lang.parsed_formula(), lang.evaluate_at, lang.logic  # type: ignore[arg-type]
        )
        return compile_formula(formula, lang.alphabet)
    if lang.regex is not None:
        from expressivity.automata.regex import compile_regex

        return compile_regex(lang.regex, lang.alphabet)
    assert lang.dfa_table is not None
    from expressivity.automata.dfa import DFA
    from expressivity.automata.ops import canonical

    initial, accepting, rows = lang.dfa_table
    acc = [q in set(accepting) for q in range(len(rows))]
    return canonical(DFA(lang.alphabet, rows, acc, initial))
