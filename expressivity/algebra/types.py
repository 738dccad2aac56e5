"""Definability at depth r (docs/theory.md §4): the type automata of a fragment against a DFA.

L is definable at depth r in an operator set (`Fragment`) iff no depth-r type of the EOS
position (with E: and set of all types of the word) is reached both by a word in L and by one
outside: explored on the product of T_r (`type_automata.type_machines`) with the minimal DFA,
breadth-first, so conflicts come with short words. `definability` tries r = 0, 1, ... in turn.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from expressivity.algebra.operators import Fragment
from expressivity.algebra.type_automata import TypeMachine, type_machines
from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.errors import StateExplosionError

__all__ = [
    "Definable",
    "NotDefinable",
    "check_depth",
    "definability",
    "layered_ladder",
]


@dataclass(frozen=True)
class Definable:
    """L is definable in the fragment by a formula of this (least) depth."""

    fragment: Fragment
    depth: int
    machine_states: int

    def __bool__(self) -> bool:
        return True

    def describe(self) -> str:
        return f"definable in {self.fragment} at depth {self.depth}"


@dataclass(frozen=True)
class NotDefinable:
    """No formula of depth ≤ ``max_depth`` defines L: ``words`` share their depth-max_depth type
    (at EOS) but exactly one is in L. ``exhausted``: the search stopped at the state bound.
    ``stable``: the types had stopped refining, so the pair shares its type at every depth."""

    fragment: Fragment
    max_depth: int
    words: tuple[Word, Word]
    accepted: tuple[bool, bool]
    exhausted: bool = False
    stable: bool = False

    def __bool__(self) -> bool:
        return False

    def describe(self, fmt: Any = None) -> str:
        f = fmt or (lambda w: "".join(w) if w else "ε")
        a, b = self.words
        depth = "at every depth" if self.stable else f"up to depth {self.max_depth}"
        return (
            f"not definable in {self.fragment} {depth}: {f(a)} and "
            f"{f(b)} have the same type but only {f(a) if self.accepted[0] else f(b)} is in L"
        )


def check_depth(
    machine: TypeMachine, dfa: DFA, max_nodes: int = 2_000_000
) -> tuple[Word, Word] | None:
    """None if L(dfa) is a union of depth-r EOS types (with E: EOS type and the set of all
    types of the word); else two words of one type, one in L. Raises `StateExplosionError` when
    the product (with E: times the set of types seen) outgrows ``max_nodes``."""
    summary = machine.fragment.summary
    start = (0, dfa.initial, 0)
    parent: dict[tuple[int, int, int], tuple[tuple[int, int, int], int] | None] = {start: None}
    seen_final: dict[tuple[int, int], dict[bool, tuple[int, int, int]]] = {}
    queue = deque([start])
    delta, out, trans = machine.delta.tolist(), machine.out.tolist(), dfa.transitions.tolist()
    eos = dfa.n_symbols
    while queue:
        node = queue.popleft()
        m, q, seen = node
        t = out[m][eos]
        by_acc = seen_final.setdefault((t, seen | (1 << t) if summary else 0), {})
        by_acc.setdefault(bool(dfa.accepting[q]), node)
        if len(by_acc) == 2:
            return _word(dfa, parent, by_acc[True]), _word(dfa, parent, by_acc[False])
        for a in range(eos):
            nxt = (delta[m][a], trans[q][a], seen | (1 << out[m][a]) if summary else 0)
            if nxt not in parent:
                parent[nxt] = (node, a)
                queue.append(nxt)
                if len(parent) > max_nodes:
                    raise StateExplosionError(
                        f"the product of the depth-{machine.depth} type automaton of "
                        f"{machine.fragment} with the DFA exceeds {max_nodes} nodes"
                    )
    return None


def _word(dfa: DFA, parent: dict[Any, Any], node: Any) -> Word:
    codes: list[int] = []
    while (link := parent[node]) is not None:
        node, a = link
        codes.append(a)
    return dfa.alphabet.decode(reversed(codes))


def definability(
    dfa: DFA,
    fragment: Fragment,
    max_depth: int = 6,
    max_states: int = 200_000,
    layered: bool = False,
) -> Definable | NotDefinable:
    """The least depth r ≤ ``max_depth`` at which L(dfa) is definable, or a same-type pair.

    Depths are tried in order 0, 1, ...; if a type machine outgrows ``max_states`` the answer
    is a `NotDefinable` for the last depth completed, with ``exhausted=True``. When the types
    stop refining (M_(r+1) has no more types than M_r) the search stops: the pair is then a
    pair at every depth (``stable=True``), an exact "no". ``layered``: depth counts attention
    layers (`type_machines`; docs/theory.md §8).
    """
    last: tuple[int, tuple[Word, Word]] | None = None
    machines, exhausted = _ladder(fragment, dfa.n_symbols, max_depth, max_states, layered)
    for i, machine in enumerate(machines):
        try:
            pair = check_depth(machine, dfa, max_nodes=10 * max_states)
        except StateExplosionError:
            exhausted = True
            break
        if pair is None:
            return Definable(fragment, machine.depth, machine.n_states)
        last = (machine.depth, pair)
        if i + 1 < len(machines) and machines[i + 1].n_types == machine.n_types:
            return _not(dfa, fragment, machine.depth, pair, exhausted=False, stable=True)
    if last is None:
        raise StateExplosionError(f"the type automata of {fragment} exceed their bounds at depth 0")
    return _not(dfa, fragment, last[0], last[1], exhausted=exhausted)


def layered_ladder(
    fragment: Fragment, n_symbols: int, max_depth: int, max_states: int
) -> tuple[tuple[TypeMachine, ...], bool]:
    """The layered M_0..M_r (`type_machines` with ``layered``; cached) and whether the state
    bound cut the ladder short."""
    return _ladder(fragment, n_symbols, max_depth, max_states, True)


@lru_cache(maxsize=64)
def _ladder(
    fragment: Fragment, n_symbols: int, max_depth: int, max_states: int, layered: bool = False
) -> tuple[tuple[TypeMachine, ...], bool]:
    """M_0..M_r (cached: they do not depend on the language) and whether the bound cut it short."""
    machines: list[TypeMachine] = []
    try:
        machines.extend(type_machines(fragment, n_symbols, max_depth, max_states, layered))
    except StateExplosionError:
        return tuple(machines), True
    return tuple(machines), False


def _not(
    dfa: DFA,
    fragment: Fragment,
    depth: int,
    pair: tuple[Word, Word],
    exhausted: bool,
    stable: bool = False,
) -> NotDefinable:
    return NotDefinable(
        fragment, depth, pair, (dfa.accepts(pair[0]), dfa.accepts(pair[1])), exhausted, stable
    )
