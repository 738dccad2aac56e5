"""Depth-bounded type automata (docs/theory.md §4): definability at depth r for any operator set.

An operator set (`Fragment`) is a set of *heads* (`Head`): each reads, at position n, the set of
types at its keys K(n) — all earlier positions (P), fixed offsets n − o (Y^≤k, dilated), the
earlier positions of n's block (block-local) — optionally only whether K(n) is empty, and
optionally skipping the global-token positions; a fragment may add the whole-word summary E of
global tokens. The depth-r *type* of a position: depth 0 is the letter (or EOS), whether each
head's row is empty (for P and Y^≤k that is ``start``, a depth-0 atom as in `logic.syntax`)
and whether the position is a global token; depth j ≥ 1 adds every head's set of depth-(j−1)
types. A left-to-right automaton T_r carries a position clock, the types seen (P) and the last
W types (windows, blocks). L is definable at depth r iff no depth-r type of the EOS position
(with E: and set of all types of the word) is reached both by a word in L and by one outside:
explored on the product of T_r with the minimal DFA, breadth-first, so conflicts come with
short words. The derivations of the heads from the attention masks are in docs/theory.md.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from math import lcm
from typing import Any

import numpy as np

from expressivity.algebra.operators import (
    Fragment,
    Head,
    eos_type,
    hybrid,
    local,
    past,
    position_types,
)
from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA
from expressivity.errors import ConfigError, StateExplosionError

__all__ = [
    "Definable",
    "Fragment",
    "Head",
    "NotDefinable",
    "TypeMachine",
    "check_depth",
    "definability",
    "eos_type",
    "hybrid",
    "layered_ladder",
    "local",
    "past",
    "position_types",
    "type_machines",
]

_EOS = -1


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

    @property
    def n_types(self) -> int:
        return int(self.out.max()) + 1


class _Clock:
    """Positions n = 1, 2, ... up to what the heads can tell apart: min(n, cap) and n mod
    lcm(blocks); per state, each head's key offsets (None: all earlier) and the depth-0 flags."""

    def __init__(self, fragment: Fragment) -> None:
        heads = fragment.operators
        self.heads = heads
        reach = max(h.reach for h in heads)
        self.cap = max(2, fragment.hubs) + max([1, *(h.skip for h in heads)]) + reach + 1
        self.mod = lcm(*[b for h in heads for b in h.blocks]) if any(h.blocks for h in heads) else 1
        self.states: list[tuple[int, int]] = []
        self.index: dict[tuple[int, int], int] = {}
        self.next: list[int] = []
        n, state = 1, (1, 1 % self.mod)
        while state not in self.index:
            self.index[state] = len(self.states)
            self.states.append(state)
            n += 1
            state = (min(n, self.cap), n % self.mod)
        self.next = [self.index[self._succ(s)] for s in self.states]
        self.offsets = [[self._offsets(h, s) for h in heads] for s in self.states]
        self.flags = [
            (tuple(_empty(s, h, o) for h, o in zip(heads, offs, strict=True)), s[0] < fragment.hubs)
            for s, offs in zip(self.states, self.offsets, strict=True)
        ]

    def _succ(self, s: tuple[int, int]) -> tuple[int, int]:
        return (min(s[0] + 1, self.cap), (s[1] + 1) % self.mod)

    def _offsets(self, h: Head, s: tuple[int, int]) -> tuple[int, ...] | None:
        """Offsets o with n − o a key (n − o ≥ max(1, skip)); None for an unbounded past head
        (handled through the seen set), () for an empty row. ``s[0]`` is n when n < cap."""
        n, phase = s
        if n < h.skip:
            return ()
        low = max(1, h.skip)
        far = n >= self.cap  # n − o ≥ low for every bounded offset
        offs = {o for o in h.offsets if far or n - o >= low}
        for b in h.blocks:
            top = (n - 1) if n < b else phase % b
            offs.update(o for o in range(1, top + 1) if far or n - o >= low)
        if h.past:
            return None
        return tuple(sorted(offs))


def _empty(s: tuple[int, int], h: Head, offs: tuple[int, ...] | None) -> bool:
    """Whether K(n) is empty at clock state ``s`` (``offs`` None: a past head)."""
    return s[0] <= max(1, h.skip) if offs is None else not offs


def type_machines(
    fragment: Fragment,
    n_symbols: int,
    max_depth: int,
    max_states: int = 200_000,
    layered: bool = False,
) -> Iterator[TypeMachine]:
    """M_0, M_1, ..., M_max_depth: M_(r+1) is built on M_r plus the position clock, the set of
    depth-r types seen (P) and the last W depth-r types; each is minimized before the next level.

    ``layered``: the types a network of r attention layers computes (docs/theory.md §8): depth 0
    is the letter alone (no empty-row or hub flags: without positions a token does not know
    where it is), so ``start`` costs a layer. From depth 1 on the flags are functions of what
    the heads read, so the two ladders differ only in what depth 0 lets the keys show; for a
    fragment with hubs (g ≥ 2 global tokens) a hub's mark is not such a function and
    `ConfigError` is raised.

    Raises `StateExplosionError` when a level outgrows ``max_states`` states before minimization.
    """
    if layered and fragment.hubs > 1:
        raise ConfigError(
            f"layered types of {fragment}: its {fragment.hubs - 1} hub tokens mark themselves "
            "only through the bidirectional masks, which the type automata do not model; use "
            "the raw-mask types (expressivity.models.layer_types) for layouts with g >= 2"
        )
    clock = _Clock(fragment)
    base_ids: dict[tuple[Any, ...], int] = {}
    letters = [*range(n_symbols), _EOS]
    tp0 = np.array(
        [
            [base_ids.setdefault((a, *clock.flags[c]), len(base_ids)) for a in letters]
            for c in range(len(clock.states))
        ]
    )
    delta0 = np.repeat(np.array(clock.next)[:, None], n_symbols, axis=1)
    out0 = np.tile(np.array(letters), (len(clock.states), 1)) % (n_symbols + 1) if layered else tp0
    machine = TypeMachine(fragment, 0, delta0, out0)
    yield machine
    for _ in range(max_depth):
        machine = _minimal(_next_level(machine, clock, tp0, max_states))
        yield machine


def _next_level(prev: TypeMachine, clock: _Clock, tp0: np.ndarray, max_states: int) -> TypeMachine:
    """States (m, c, seen, buffer): m a state of M_r, c the clock, ``seen`` the bitmasks of
    depth-r types met at keys of the past heads, ``buffer`` the last W depth-r types;
    outputs are interned depth-(r+1) types."""
    frag, heads = prev.fragment, clock.heads
    width = max([h.reach for h in heads] + [0])
    skips = sorted({max(1, h.skip) for h in heads if h.past})
    n_sym = prev.delta.shape[1]
    delta_prev, out_prev, tp0_rows = prev.delta.tolist(), prev.out.tolist(), tp0.tolist()
    start = (0, 0, (0,) * len(skips), ())
    index: dict[tuple[Any, ...], int] = {start: 0}
    states: list[tuple[Any, ...]] = [start]
    ids: dict[tuple[Any, ...], int] = {}
    delta: list[list[int]] = []
    out: list[list[int]] = []
    i = 0
    while i < len(states):
        m, c, seen, buf = states[i]
        n = clock.states[c][0]
        reads = []
        for h, offs in zip(heads, clock.offsets[c], strict=True):
            if offs is None:
                got = seen[skips.index(max(1, h.skip))] if n >= max(1, h.skip) else 0
            else:
                got = 0
                for o in offs:
                    got |= 1 << buf[-o]
            reads.append(got != 0 if h.flag_only else got)
        reads_t = tuple(reads)
        out.append([ids.setdefault((tp0_rows[c][a], reads_t), len(ids)) for a in range(n_sym + 1)])
        row = []
        for a in range(n_sym):
            t = out_prev[m][a]
            nxt = (
                delta_prev[m][a],
                clock.next[c],
                tuple(s | (1 << t) if n >= k else s for s, k in zip(seen, skips, strict=True)),
                (*buf, t)[-width:] if width else (),
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
