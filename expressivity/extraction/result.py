"""`Extraction`: an extracted DFA, its distance to the target, and its plain-text report."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.extraction.oracle import QueryCounts

if TYPE_CHECKING:
    from expressivity.algebra.classification import Classification

__all__ = ["Extraction", "LengthAgreement"]


@dataclass(frozen=True)
class LengthAgreement:
    """Agreement of the model with the extracted DFA and with the target on fresh words of one
    length (half members, half non-members of the extracted DFA where both exist)."""

    length: int
    n: int
    with_extracted: int
    with_target: int

    @property
    def rate(self) -> float:
        """with_extracted / n."""
        return self.with_extracted / self.n if self.n else 1.0


@dataclass(frozen=True, eq=False)
class Extraction:
    """The DFA extracted from a recognizer and its comparison with the target."""

    dfa: DFA
    target: DFA
    complete: bool
    stop_reason: str  # "" when complete
    algorithm: str
    length_bound: int
    query_budget: int | None
    counts: QueryCounts
    rounds: int  # hypotheses submitted to the equivalence oracle
    hypothesis_sizes: tuple[int, ...]  # their numbers of states, in order
    counterexamples: tuple[tuple[Word, str], ...]  # (word, source) in the order found
    shortest_difference: Word | None  # shortest word in exactly one of dfa, target
    model_error: Word | None  # shortest word the model answered against the target
    answered: int  # words the model answered (all of length <= exhaustive_up_to among them)
    exhaustive_up_to: int
    difference_density: tuple[float, ...]  # |L △ target| / |Σ|^n for n = 0..length_bound
    agreement: tuple[LengthAgreement, ...]
    seconds: float
    classification: Classification | None = field(default=None, repr=False)
    classification_error: str = ""

    @property
    def equals_target(self) -> bool:
        """Whether the extracted DFA is exactly the target (equal canonical DFAs)."""
        return self.shortest_difference is None

    @property
    def layouts(self) -> dict[str, bool]:
        """Layouts proven to recognize the extracted language (`predicted_recognizers`)."""
        from expressivity.algebra.classification import predicted_recognizers

        return {} if self.classification is None else predicted_recognizers(self.classification)

    @property
    def classes(self) -> dict[str, bool]:
        """Class memberships (R-trivial, definite, ...) of the extracted language."""
        if self.classification is None:
            return {}
        return {cls: v is True for cls, v in self.classification.verdicts}

    def first_disagreement(self) -> int | None:
        """The shortest length at which the model disagrees with the extracted DFA on some
        fresh word (None when it agrees on all of them)."""
        return next((a.length for a in self.agreement if a.with_extracted < a.n), None)

    def summary(self) -> str:
        """A plain-text report of the extraction."""
        fmt = self.target.alphabet.format_word
        c = self.counts
        status = "complete" if self.complete else f"INCOMPLETE ({self.stop_reason})"
        lines = [
            f"extracted DFA: {self.dfa.n_states} states ({status}); target: "
            f"{self.target.n_states} states",
            f"learning: {self.algorithm}, {self.rounds} hypotheses "
            f"({' → '.join(map(str, self.hypothesis_sizes))} states), {len(self.counterexamples)} "
            f"counterexamples, length bound {self.length_bound}, budget "
            f"{self.query_budget if self.query_budget is not None else 'none'}",
            f"queries: {c.learner} learner queries ({c.learner_distinct} distinct), "
            f"{c.model_words} distinct words through the model in {c.batches} batches "
            f"({c.test_words} equivalence test words); "
            f"{self.seconds:.1f}s",
        ]
        if self.equals_target:
            lines.append("distance to target: none (the extracted DFA IS the target)")
        else:
            assert self.shortest_difference is not None
            dens = self.difference_density
            peak = int(np.argmax(dens)) if dens else 0
            lines.append(
                f"distance to target: shortest distinguishing word {fmt(self.shortest_difference)}"
                f" (length {len(self.shortest_difference)}); symmetric-difference density "
                f"{dens[-1]:.3g} at length {len(dens) - 1}, peak {dens[peak]:.3g} at {peak}"
            )
        if self.classification is not None:
            yes = [k for k, v in self.classes.items() if v]
            layouts = [k for k, v in self.layouts.items() if v]
            lines.append(f"class: {', '.join(yes) or 'none of the tested classes'}; "
                         f"predicted layouts: {', '.join(layouts) or 'none'}")
        elif self.classification_error:
            lines.append(f"class: not computed ({self.classification_error})")
        if self.model_error is None:
            lines.append(f"model vs target: no error on the {self.answered} words it answered "
                         f"(every word up to length {self.exhaustive_up_to} among them)")
        else:
            lines.append(f"model vs target: shortest error {fmt(self.model_error)} (length "
                         f"{len(self.model_error)}) among the {self.answered} words it answered "
                         f"(every word up to length {self.exhaustive_up_to} among them)")
        first = self.first_disagreement()
        n_agree = sum(a.with_extracted for a in self.agreement)
        n_all = sum(a.n for a in self.agreement)
        lines.append(
            f"model vs extracted DFA on {n_all} fresh words of lengths 0-{self.length_bound}: "
            f"{n_agree}/{n_all} agree; "
            + ("no disagreement" if first is None else f"first disagreement at length {first}")
        )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (the DFAs as transition tables)."""
        fmt = self.target.alphabet.format_word
        return {
            "states": self.dfa.n_states,
            "transitions": self.dfa.transitions.tolist(),
            "accepting": self.dfa.accepting.tolist(),
            "target_states": self.target.n_states,
            "complete": self.complete,
            "stop_reason": self.stop_reason,
            "equals_target": self.equals_target,
            "algorithm": self.algorithm,
            "length_bound": self.length_bound,
            "query_budget": self.query_budget,
            "queries": asdict(self.counts),
            "rounds": self.rounds,
            "hypothesis_sizes": list(self.hypothesis_sizes),
            "counterexamples": [[fmt(w), src] for w, src in self.counterexamples],
            "shortest_difference": (None if self.shortest_difference is None
                                    else fmt(self.shortest_difference)),
            "difference_density": list(self.difference_density),
            "model_error": None if self.model_error is None else fmt(self.model_error),
            "answered": self.answered,
            "exhaustive_up_to": self.exhaustive_up_to,
            "classes": self.classes,
            "layouts": self.layouts,
            "agreement": [asdict(a) for a in self.agreement],
            "seconds": self.seconds,
        }
