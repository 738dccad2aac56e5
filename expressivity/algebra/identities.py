"""Identities over variables and ω: terms, their printing, and the element and word they denote."""

from __future__ import annotations

from dataclasses import dataclass
from math import lcm

import numpy as np

from expressivity.algebra.monoid import compose, index_and_period, omega_exponent, power
from expressivity.alphabet import Word

__all__ = ["Identity", "Pow", "Term", "evaluate", "exponent_for", "instantiate", "render"]


@dataclass(frozen=True)
class Pow:
    """``body^ω``, the idempotent power of the product of ``body``."""

    body: Term


Term = tuple[str | Pow, ...]


def render(term: Term) -> str:
    """Write a term as in the literature: ``(xy)^ω x``, ``x^ω``; the empty term is ``1``."""
    if not term:
        return "1"
    out = ""
    for i, atom in enumerate(term):
        if isinstance(atom, Pow):
            inner = render(atom.body)
            piece = f"{inner}^ω" if len(atom.body) == 1 else f"({inner})^ω"
        else:
            piece = atom
        spaced = i and (isinstance(atom, Pow) or isinstance(term[i - 1], Pow))
        out += (" " if spaced else "") + piece
    return out


@dataclass(frozen=True)
class Identity:
    """An equation lhs = rhs between terms; ``monoid`` says whether variables may be 1."""

    name: str
    lhs: Term
    rhs: Term
    monoid: bool = True

    def __str__(self) -> str:
        return f"{render(self.lhs)} = {render(self.rhs)}"

    @property
    def variables(self) -> tuple[str, ...]:
        """Variables in order of first appearance."""
        seen: list[str] = []

        def walk(t: Term) -> None:
            for a in t:
                if isinstance(a, Pow):
                    walk(a.body)
                elif a not in seen:
                    seen.append(a)

        walk(self.lhs + self.rhs)
        return tuple(seen)


def evaluate(term: Term, assignment: dict[str, np.ndarray], n_states: int) -> np.ndarray:
    """The transformation a term denotes, from transformation rows for its variables."""
    row = np.arange(n_states)
    for atom in term:
        if isinstance(atom, Pow):
            inner = evaluate(atom.body, assignment, n_states)
            val = power(inner[None, :], omega_exponent(inner))[0]
        else:
            val = assignment[atom]
        row = compose(row[None, :], val[None, :])[0]
    return row


def instantiate(term: Term, words: dict[str, Word], exponent: int) -> Word:
    """The word of a term with every ω replaced by ``exponent``."""
    out: list[str] = []
    for atom in term:
        if isinstance(atom, Pow):
            out.extend(instantiate(atom.body, words, exponent) * exponent)
        else:
            out.extend(words[atom])
    return tuple(out)


def exponent_for(term: Term, rows: dict[str, np.ndarray], n_states: int, at_least: int) -> int:
    """The least K ≥ ``at_least`` with x^K = x^ω for every ω-subterm x of ``term``.

    K is a multiple of every period and at least every index, so one K serves all the
    (possibly nested) ω's of a term at once.
    """
    indices, periods = [max(at_least, 1)], [1]

    def walk(t: Term) -> None:
        for atom in t:
            if isinstance(atom, Pow):
                walk(atom.body)
                index, period = index_and_period(evaluate(atom.body, rows, n_states))
                indices.append(index)
                periods.append(period)

    walk(term)
    base = lcm(*periods)
    return -(-max(indices) // base) * base
