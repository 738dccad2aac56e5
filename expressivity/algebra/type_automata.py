"""Depth-bounded type automata (docs/theory.md §4): the minimal machines of depth-r types.

An operator set (`Fragment`) is a set of *heads* (`Head`): each reads, at position n, the set of
types at its keys K(n) — all earlier positions (P), fixed offsets n − o (Y^≤k, dilated), the
earlier positions of n's block (block-local) — optionally only whether K(n) is empty, and
optionally skipping the global-token positions; a fragment may add the whole-word summary E of
global tokens. The depth-r *type* of a position: depth 0 is the letter (or EOS), whether each
head's row is empty (for P and Y^≤k that is ``start``, a depth-0 atom as in `logic.syntax`)
and whether the position is a global token; depth j ≥ 1 adds every head's set of depth-(j−1)
types. A left-to-right automaton T_r carries a position clock, the types seen (P) and the last
W types (windows, blocks); `type_machines` builds T_0, T_1, ... as minimal Mealy machines
(`TypeMachine`), and `algebra.types` decides definability with them. The derivations of the
heads from the attention masks are in docs/theory.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from math import lcm
from typing import Any

import numpy as np

from expressivity.algebra.operators import Fragment, Head
from expressivity.errors import ConfigError, StateExplosionError

__all__ = ["TypeMachine", "type_machines"]

_EOS = -1


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
