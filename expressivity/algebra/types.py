"""Depth-bounded type automata (theory.md §4): definability at depth r for {P}, {Y^≤k}, {P,Y^≤k}.

The depth-r *type* of a position is the set of formulas of depth ≤ r (over the operator set)
true there. Depth 0: the letter (or EOS) and whether the position is the first (``start`` and
``eos`` are atoms of depth 0, as in `logic.syntax`). Depth j ≥ 1: the depth-0 type plus, for P,
the *set* of depth-(j−1) types of all earlier positions and, for Y^≤k, the *set* of depth-(j−1)
types of the window max(1, n−k) ≤ m < n. A left-to-right automaton T_r carries, for each level
j < r, the set of types seen (P) and the last k types (Y^≤k). L is definable at depth r iff no
depth-r type of the EOS position is reached both by a word in L and by one outside: explored on
the product of T_r with the minimal DFA, breadth-first, so conflicts come with short words.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.errors import ConfigError, StateExplosionError

_EOS = -1


@dataclass(frozen=True)
class Fragment:
    """An operator set: ``past`` adds P, ``window`` = k adds Y^≤k (0: none; Y^≤1 = Y)."""

    past: bool
    window: int = 0

    def __post_init__(self) -> None:
        if self.window < 0 or (not self.past and self.window == 0):
            raise ConfigError(
                f"a fragment needs P or Y^<=k with k >= 1, got past={self.past}, "
                f"window={self.window}"
            )

    @property
    def name(self) -> str:
        """``P``, ``Y``, ``Y<=2``, ``P,Y<=4`` ..."""
        parts = ["P"] if self.past else []
        if self.window:
            parts.append("Y" if self.window == 1 else f"Y<={self.window}")
        return ",".join(parts)

    def __str__(self) -> str:
        return f"LTL[{self.name}]"


def past() -> Fragment:
    """{P}: LTL[P], global attention."""
    return Fragment(past=True)


def local(k: int) -> Fragment:
    """{Y^≤k}: k-local attention (k = 1 is LTL[Y])."""
    return Fragment(past=False, window=k)


def hybrid(k: int) -> Fragment:
    """{P, Y^≤k}: global plus k-local attention."""
    return Fragment(past=True, window=k)


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
    (at EOS) but exactly one is in L. ``exhausted``: the search stopped at the state bound."""

    fragment: Fragment
    max_depth: int
    words: tuple[Word, Word]
    accepted: tuple[bool, bool]
    exhausted: bool = False

    def __bool__(self) -> bool:
        return False

    def describe(self, fmt: Any = None) -> str:
        f = fmt or (lambda w: "".join(w) if w else "ε")
        a, b = self.words
        return (
            f"not definable in {self.fragment} up to depth {self.max_depth}: {f(a)} and "
            f"{f(b)} have the same type but only {f(a) if self.accepted[0] else f(b)} is in L"
        )


@dataclass(frozen=True)
class TypeMachine:
    """The minimal Mealy machine of depth-r types: reading a word from state 0 (the empty
    prefix) and then a letter (or EOS, column |Σ|), it outputs the depth-r type id of that
    position. Minimal: two prefixes share a state iff every continuation gets the same types."""

    fragment: Fragment
    depth: int
    delta: np.ndarray  # (states, |Σ|) next state
    out: np.ndarray  # (states, |Σ| + 1) type id of the next position (last column: EOS)

    @property
    def n_states(self) -> int:
        return int(self.delta.shape[0])


def type_machines(
    fragment: Fragment, n_symbols: int, max_depth: int, max_states: int = 200_000
) -> Iterator[TypeMachine]:
    """M_0, M_1, ..., M_max_depth: M_(r+1) is built on M_r plus, for P, the set of depth-r types
    seen and, for Y^≤k, the last k depth-r types; each is minimized before the next level.

    Raises `StateExplosionError` when a level outgrows ``max_states`` states before minimization.
    """
    k = n_symbols
    base_ids: dict[tuple[int, bool], int] = {}
    tp0 = np.array(
        [
            [base_ids.setdefault((a, m == 0), len(base_ids)) for a in [*range(k), _EOS]]
            for m in (0, 1)
        ]
    )
    machine = TypeMachine(fragment, 0, np.ones((2, k), dtype=np.int64), tp0)
    yield machine
    for _ in range(max_depth):
        machine = _minimal(_next_level(machine, tp0, max_states))
        yield machine


def _next_level(prev: TypeMachine, tp0: np.ndarray, max_states: int) -> TypeMachine:
    """States (m, seen, window): m a state of M_r, ``seen`` the bitmask of depth-r types met
    (P), ``window`` the last k of them (Y^≤k); outputs are interned depth-(r+1) types."""
    frag, kw = prev.fragment, prev.fragment.window
    n_sym = prev.delta.shape[1]
    delta_prev, out_prev = prev.delta.tolist(), prev.out.tolist()
    tp0_rows = tp0.tolist()
    start = (0, 0 if frag.past else -1, ())
    index: dict[tuple[int, int, tuple[int, ...]], int] = {start: 0}
    states: list[tuple[int, int, tuple[int, ...]]] = [start]
    ids: dict[tuple[int, int, int], int] = {}
    delta: list[list[int]] = []
    out: list[list[int]] = []
    i = 0
    while i < len(states):
        m, seen, win = states[i]
        wmask = 0
        for t in win:
            wmask |= 1 << t
        tp0_row = tp0_rows[0 if m == 0 else 1]
        out.append([ids.setdefault((tp0_row[a], seen, wmask), len(ids)) for a in range(n_sym + 1)])
        row = []
        for a in range(n_sym):
            t = out_prev[m][a]
            nxt = (
                delta_prev[m][a],
                seen | (1 << t) if seen >= 0 else -1,
                (*win, t)[-kw:] if kw else (),
            )
            j = index.get(nxt)
            if j is None:
                j = index[nxt] = len(states)
                states.append(nxt)
                if len(states) > max_states:
                    raise StateExplosionError(
                        f"the depth-{prev.depth + 1} type automaton of {frag} exceeds "
                        f"max_states={max_states} states; lower the depth"
                    )
            row.append(j)
        delta.append(row)
        i += 1
    return TypeMachine(frag, prev.depth + 1, np.array(delta, np.int64), np.array(out, np.int64))


def _minimal(tm: TypeMachine) -> TypeMachine:
    """Moore-style partition refinement of a Mealy machine; the initial state stays 0."""
    _, block = np.unique(tm.out, axis=0, return_inverse=True)
    block = block.ravel()
    count = int(block.max()) + 1
    while True:
        sig = np.column_stack([block, block[tm.delta]])
        _, new = np.unique(sig, axis=0, return_inverse=True)
        new = new.ravel()
        new_count = int(new.max()) + 1
        block = new
        if new_count == count:
            break
        count = new_count
    # renumber blocks in order of first appearance, so the initial state's block is 0
    _, first = np.unique(block, return_index=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    reps = first[order]
    return TypeMachine(tm.fragment, tm.depth, rank[block[tm.delta[reps]]], tm.out[reps])


def check_depth(machine: TypeMachine, dfa: DFA) -> tuple[Word, Word] | None:
    """None if L(dfa) is a union of depth-r EOS types; else two words of one type, one in L."""
    start = (0, dfa.initial)
    parent: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {start: None}
    seen_final: dict[int, dict[bool, tuple[int, int]]] = {}
    queue = deque([start])
    delta, out, trans = machine.delta.tolist(), machine.out.tolist(), dfa.transitions.tolist()
    eos = dfa.n_symbols
    while queue:
        node = queue.popleft()
        m, q = node
        by_acc = seen_final.setdefault(out[m][eos], {})
        by_acc.setdefault(bool(dfa.accepting[q]), node)
        if len(by_acc) == 2:
            return _word(dfa, parent, by_acc[True]), _word(dfa, parent, by_acc[False])
        for a in range(eos):
            nxt = (delta[m][a], trans[q][a])
            if nxt not in parent:
                parent[nxt] = (node, a)
                queue.append(nxt)
    return None


def _word(dfa: DFA, parent: dict[Any, Any], node: Any) -> Word:
    codes: list[int] = []
    while (link := parent[node]) is not None:
        node, a = link
        codes.append(a)
    return dfa.alphabet.decode(reversed(codes))


def definability(
    dfa: DFA, fragment: Fragment, max_depth: int = 6, max_states: int = 200_000
) -> Definable | NotDefinable:
    """The least depth r ≤ ``max_depth`` at which L(dfa) is definable, or a same-type pair.

    Depths are tried in order 0, 1, ...; if a type machine outgrows ``max_states`` the answer
    is a `NotDefinable` for the last depth completed, with ``exhausted=True``.
    """
    last: tuple[Word, Word] | None = None
    machines, exhausted = _ladder(fragment, dfa.n_symbols, max_depth, max_states)
    for machine in machines:
        pair = check_depth(machine, dfa)
        if pair is None:
            return Definable(fragment, machine.depth, machine.n_states)
        last = pair
    assert last is not None
    return _not(dfa, fragment, len(machines) - 1, last, exhausted=exhausted)


@lru_cache(maxsize=64)
def _ladder(
    fragment: Fragment, n_symbols: int, max_depth: int, max_states: int
) -> tuple[tuple[TypeMachine, ...], bool]:
    """M_0..M_r (cached: they do not depend on the language) and whether the bound cut it short."""
    machines: list[TypeMachine] = []
    try:
        machines.extend(type_machines(fragment, n_symbols, max_depth, max_states))
    except StateExplosionError:
        return tuple(machines), True
    return tuple(machines), False


def _not(
    dfa: DFA, fragment: Fragment, depth: int, pair: tuple[Word, Word], exhausted: bool
) -> NotDefinable:
    return NotDefinable(
        fragment, depth, pair, (dfa.accepts(pair[0]), dfa.accepts(pair[1])), exhausted
    )


def eos_type(word: Sequence[str], fragment: Fragment, depth: int) -> Hashable:
    """Reference: the depth-``depth`` type of the EOS position of ``word``, as a nested value.

    Computed position by position straight from the definition (no automaton), for tests.
    """
    letters: list[Hashable] = [*word, "<eos>"]
    types: list[Hashable] = [(s, i == 0) for i, s in enumerate(letters)]
    for _ in range(depth):
        nxt: list[Hashable] = []
        for n in range(len(letters)):
            seen = frozenset(types[:n]) if fragment.past else None
            lo = max(0, n - fragment.window)
            window = frozenset(types[lo:n]) if fragment.window else None
            nxt.append(((letters[n], n == 0), seen, window))
        types = nxt
    return types[-1]
