"""`Classification`: the class verdicts, witnesses and layout verdicts of one regular language."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from expressivity.algebra.locality import LayoutVerdict
from expressivity.algebra.modular import MODULAR_DECISIONS
from expressivity.algebra.varieties import DECISIONS, Verdict
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA

__all__ = [
    "CLASSES",
    "PERIODIC",
    "UNIQUE_HARD",
    "Classification",
    "predicted_recognizers",
]

#: Class names in report order (the keys of the catalogue's ``[expected]`` tables).
CLASSES: tuple[str, ...] = (*DECISIONS, *MODULAR_DECISIONS)
UNIQUE_HARD = "unique-hard-attention"
#: Suffix of the layouts with periodic positions (``global+periodic``, ``hybrid-1+periodic``).
PERIODIC = "+periodic"


@dataclass(frozen=True)
class Classification:
    """Class verdicts (True or a witness), recognizer verdicts and synthesized formulas."""

    name: str
    alphabet: Alphabet
    dfa: DFA = field(repr=False)
    semigroup_size: int
    monoid_size: int
    n_idempotents: int
    verdicts: tuple[tuple[str, Verdict], ...]
    recognizers: tuple[LayoutVerdict, ...]
    formulas: tuple[tuple[str, str], ...] = ()
    ks: tuple[int, ...] = (1, 2, 4)
    layouts: tuple[str, ...] = ()

    @property
    def n_states(self) -> int:
        """States of the minimal complete DFA (sink included)."""
        return self.dfa.n_states

    def verdict(self, cls: str) -> Verdict:
        """True or the witness for one class name (see `CLASSES`)."""
        return dict(self.verdicts)[cls]

    def member(self, cls: str) -> bool:
        """Whether the language is in class ``cls``."""
        return self.verdict(cls) is True

    def recognizer(self, layout: str) -> LayoutVerdict:
        """The verdict for one layout (``global``, ``local-2``, ..., ``unique-hard-attention``)."""
        for r in self.recognizers:
            if r.layout == layout:
                return r
        raise KeyError(f"no layout {layout!r}; known: {[r.layout for r in self.recognizers]}")

    # ---------------------------------------------------------------- renderings
    def _fmt(self, word: Sequence[str]) -> str:
        return self.alphabet.format_word(word)

    def to_table(self) -> str:
        """A plain-text report: classes, recognizers (with reasons) and formulas."""
        lines = [
            f"{self.name} over Σ = {self.alphabet}: minimal DFA {self.n_states} states, "
            f"|S| = {self.semigroup_size}, |M| = {self.monoid_size}, "
            f"{self.n_idempotents} idempotents",
            "",
            f"{'class':<22} verdict",
        ]
        for cls, v in self.verdicts:
            text = "yes" if v is True else "no   " + v.describe(self._fmt)
            lines.append(f"{cls:<22} {text}")
        lines += ["", f"{'attention':<22} {'logic':<16} verdict"]
        for r in self.recognizers:
            verdict = (f"{r.status} {r.reason}" if r.status == "unknown"
                       else f"{r.status:<8} {r.reason}")
            lines.append(f"{r.layout:<22} {r.logic:<16} {verdict}")
        if self.formulas:
            lines.append("")
            lines += [f"{logic:<22} {text}" for logic, text in self.formulas]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready nested dict."""
        return {
            "name": self.name,
            "alphabet": list(self.alphabet.symbols),
            "n_states": self.n_states,
            "semigroup_size": self.semigroup_size,
            "monoid_size": self.monoid_size,
            "n_idempotents": self.n_idempotents,
            "classes": {
                cls: {"member": v is True, "witness": None if v is True else v.to_dict()}
                for cls, v in self.verdicts
            },
            "recognizers": {r.layout: r.to_dict() for r in self.recognizers},
            "formulas": dict(self.formulas),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """`to_dict` as JSON (UTF-8 text, ω and ≤ kept)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def to_row(self) -> dict[str, Any]:
        """One flat row for a pandas DataFrame: classes as bools, layouts as True/False/None."""
        row: dict[str, Any] = {
            "language": self.name,
            "alphabet": ",".join(self.alphabet.symbols),
            "n_states": self.n_states,
            "semigroup_size": self.semigroup_size,
        }
        row.update({cls: v is True for cls, v in self.verdicts})
        status = {"yes": True, "no": False, "unknown": None}
        row.update({r.layout: status[r.status] for r in self.recognizers})
        return row


def predicted_recognizers(
    classification: Classification, *, periodic: bool = False
) -> dict[str, bool]:
    """Layout name (``global``, ``local-k``, ``hybrid-k`` and every spelling passed as
    ``layouts`` to `classify`) → True iff proven to recognize L.

    False covers both a proven "no" and an "unknown"; `Classification.recognizer` tells them
    apart. Unique hard attention is not a model layout and is left out. With ``periodic``,
    the layouts with periodic positions instead (``global+periodic``, ``hybrid-k+periodic``).
    """
    return {
        r.layout: r.status == "yes"
        for r in classification.recognizers
        if r.layout != UNIQUE_HARD and r.layout.endswith(PERIODIC) == periodic
    }
