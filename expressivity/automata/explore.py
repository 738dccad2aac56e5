"""Breadth-first exploration of a circuit's register automaton, bit-parallel over a whole layer.

One BFS layer holds F register states. Every (state, column) pair is one bit of a Python
integer, where a column is a letter (with, for future operators, one guess of their values) or
the EOS step. Each circuit node is then evaluated for the whole layer by a handful of
big-integer operations (a `_Program` flattens the circuit once, so no per-layer lookups), and
the next register values are transposed into per-column state keys, strings of register bits,
by ``zip`` over their binary expansions (C-level work). The cost per layer is O(|circuit|)
integer operations on (columns·F)-bit numbers, O(registers·columns) character operations and
O(columns·F) dictionary look-ups.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import chain, compress, repeat
from operator import is_

import numpy as np

from expressivity.automata.circuit import FUTURE_AT_EOS, FUTURE_KINDS, PAST_KINDS, Circuit
from expressivity.errors import StateExplosionError

#: Columns (state, letter, guess) evaluated together: bounds the memory of one step.
_MAX_COLUMNS = 1 << 20
#: With future operators, total columns evaluated ≤ _WORK_FACTOR · max_states · (|Σ| + 1).
_WORK_FACTOR = 16


@dataclass(frozen=True)
class Exploration:
    """The reachable register automaton: edges ``src --letter--> dst`` and acceptance at EOS.

    Without future operators every (state, letter) has exactly one edge (a complete DFA);
    with them, one edge per consistent guess (an NFA whose initial state is 0).
    """

    n_states: int
    src: np.ndarray
    letter: np.ndarray
    dst: np.ndarray
    accepting: np.ndarray


def explore(c: Circuit, n_letters: int, *, max_states: int) -> Exploration:
    """Enumerate the register states reachable from the initial one, layer by layer."""
    n_regs = len(c.registers)
    n_guess = 1 << len(c.future)
    if n_guess > max_states:  # the promises alone make 2^|future| successors of the start
        raise StateExplosionError(
            f"guessing {len(c.future)} future operators gives more than {max_states} states"
        )
    n_blocks = n_letters * n_guess + 1  # letter a with guess g is block a*n_guess + g; EOS last
    chunk = max(1, _MAX_COLUMNS // n_blocks)  # frontier states evaluated together
    # Work bound: without guesses the state bound bounds the work; with them every state costs
    # n_blocks columns, so allow what `max_states` states of a guess-free automaton would cost.
    budget = _WORK_FACTOR * max_states * (n_letters + 1)
    work = 0
    # A register state is keyed by the string of its register bits ("0"/"1", register order).
    # Keys and per-register big integers are transposed into each other with `zip(*...)` over
    # strings, which runs in C and keeps the per-layer cost free of per-bit Python work.
    prog = _Program(c)
    init_key = "".join("1" if x else "0" for x in c.initial)
    index: dict[str, int] = {init_key: 0}
    frontier = [init_key]
    start, accepting = 0, 0  # accepting: bit q set when state q accepts
    src: list[np.ndarray] = []
    letter: list[np.ndarray] = []
    dst: list[int] = []
    while frontier:
        first_new, fresh = len(index), list[str]()
        for lo in range(0, len(frontier), chunk):
            part = frontier[lo : lo + chunk]
            width = len(part)
            work += width * n_blocks
            if work > budget:
                raise StateExplosionError(
                    f"guessing {len(c.future)} future operators at each position takes more than "
                    f"{budget} steps (the work bound for max_states={max_states})"
                )
            # register r as an integer whose bit t is its value in state part[t]
            regs = list(map(int, map("".join, zip(*reversed(part), strict=True)), repeat(2)))
            values, new_regs, valid = _evaluate(c, prog, regs, width, n_letters, n_guess)
            cols = n_blocks * width
            m = cols - width  # the letter columns; the EOS block is last
            eos_bits = ((values[c.root] & valid) >> m) & ((1 << width) - 1)
            accepting |= eos_bits << (start + lo)
            if n_regs:
                # the letter columns only (the EOS block is masked off), column m-1 first
                rows = map(format, map(((1 << m) - 1).__and__, new_regs), repeat(f"0{m}b"))
                keys = list(map("".join, zip(*rows, strict=True)))
                keys.reverse()  # keys[j]: the state of column j
            else:
                keys = [""] * m
            chosen = None
            if c.future:
                flags = format(valid & ((1 << m) - 1), "b").zfill(m)[::-1]
                chosen = np.flatnonzero(np.frombuffer(flags.encode(), dtype=np.uint8) == 49)
                keys = [keys[j] for j in chosen.tolist()]
            found = list(map(index.get, keys))
            ids: list[int]
            if None in found:  # new states, numbered in column order
                new = dict.fromkeys(compress(keys, map(is_, found, repeat(None))))
                if len(index) + len(new) > max_states:
                    raise StateExplosionError(
                        f"its register automaton has more than {max_states} reachable states"
                    )
                for key in new:
                    index[key] = len(index)
                fresh.extend(new)
                ids = list(map(index.__getitem__, keys))
            else:
                ids = found  # type: ignore[assignment]  # no None in it
            if chosen is None:  # one edge per (state, letter): store them state-major
                by_letter = [ids[a * width : (a + 1) * width] for a in range(n_letters)]
                dst.extend(chain.from_iterable(zip(*by_letter, strict=True)))
            else:
                dst.extend(ids)
                block, pos = np.divmod(chosen, width)
                src.append(start + lo + pos)
                letter.append(block // n_guess)
        start = first_new
        frontier = fresh
    n = len(index)
    if not c.future:  # complete and deterministic: edges (q, a) in state-major order
        edge = np.arange(n * n_letters)
        src, letter = [edge // n_letters], [edge % n_letters]
    return Exploration(
        n,
        np.concatenate(src),
        np.concatenate(letter),
        np.asarray(dst, dtype=np.int64),
        np.frombuffer(format(accepting, f"0{n}b")[::-1].encode(), dtype=np.uint8) == ord("1"),
    )


# Opcodes of the node program (see `_Program`), most frequent first in `_evaluate`.
_REG, _LETTERS, _OR, _AND, _NOT, _BOUNDED, _IFF, _GUESS = range(8)
_ONCE, _HIST, _SINCE, _PROMISE = range(4)
_NEED_ONE, _NEED_TWO, _NEED_ONCE, _NEED_HIST, _NEED_LAGS = range(5)
#: Node kinds that read registers (or lags) of the previous position.
_STATEFUL = PAST_KINDS | FUTURE_KINDS


class _Program:
    """A circuit flattened once per exploration into integer-coded steps (no per-layer lookups).

    ``nodes``: per node ``(op, x, y)`` with registers already resolved (``_REG``: register x;
    ``_BOUNDED``: registers x..x+y-1; ``_LETTERS``: letter mask x; ``_GUESS``: node x).
    ``shifts``: ``(first, length, node)`` per shift register; ``updates``: ``(op, r, x, y)``
    per one-bit register; ``needs``: the dead-register analysis of `_forget_dead`, root last.
    """

    def __init__(self, c: Circuit) -> None:
        binary = {"and": _AND, "or": _OR, "iff": _IFF}
        nodes: list[tuple[int, int, int]] = []
        self.letters: list[tuple[int, ...]] = []
        saturating = False  # some P / H besides `started` can saturate (`Circuit.saturating`)
        for i, (kind, a, b) in enumerate(c.nodes):
            if kind in binary:
                nodes.append((binary[kind], a, b))
            elif kind == "not":
                nodes.append((_NOT, a, -1))
            elif kind == "letters":  # x: the index of its letter tuple (bit |Σ| = EOS)
                nodes.append((_LETTERS, len(self.letters), -1))
                self.letters.append(_bits(a))
            elif kind == "prev":
                nodes.append((_REG, c.shift[a][0] + b - 1, -1))
            elif kind == "bounded":
                nodes.append((_BOUNDED, c.shift[a][0], b))
            elif kind in ("once", "hist", "since"):
                nodes.append((_REG, c.reg[i], -1))
                saturating = saturating or kind == "hist" or (kind == "once" and i != c.started)
            elif kind in FUTURE_KINDS:
                nodes.append((_GUESS, i, -1))
            else:  # pragma: no cover - the builder only makes the kinds above
                raise AssertionError(kind)
        self.nodes = nodes
        self.shifts = [(first, length, node) for node, (first, length) in c.shift.items()]
        updates: list[tuple[int, int, int, int]] = []
        for i, r in c.reg.items():
            kind, a, b = c.nodes[i]
            if kind == "once":
                updates.append((_ONCE, r, a, -1))
            elif kind == "hist":
                updates.append((_HIST, r, a, -1))
            elif kind == "since":
                updates.append((_SINCE, r, a, b))
            else:
                updates.append((_PROMISE, r, i, c.requirement[i]))
        self.updates = updates
        self.saturating = saturating
        self.needs: list[tuple[int, int, int, int, tuple[int, ...]]] = []
        self.reg_items = list(c.reg.items())
        self.shift_regs = [
            r for first, length in c.shift.values() for r in range(first, first + length)
        ]
        if saturating:
            self._plan_liveness(c)

    def _plan_liveness(self, c: Circuit) -> None:
        """The steps of `_forget_dead`, root side first."""
        # Only nodes with a register or a lag below them take part in the liveness analysis.
        relevant = [False] * len(c.nodes)
        for i, (kind, a, b) in enumerate(c.nodes):
            if kind in _STATEFUL:
                relevant[i] = True
            elif kind in ("and", "or", "iff"):
                relevant[i] = relevant[a] or relevant[b]
            elif kind != "letters":
                relevant[i] = relevant[a]
        needs = self.needs
        for i in range(len(c.nodes) - 1, -1, -1):
            if not relevant[i]:
                continue
            kind, a, b = c.nodes[i]
            if kind == "once":
                needs.append((i, _NEED_ONCE, a, c.reg[i], ()))
            elif kind == "hist":
                needs.append((i, _NEED_HIST, a, c.reg[i], ()))
            elif kind in ("prev", "bounded"):
                first = c.shift[a][0]
                needs.append((i, _NEED_LAGS, a, -1, tuple(range(first, first + b))))
            elif kind in ("and", "or", "iff", "since", "until"):
                if relevant[a] and relevant[b]:
                    needs.append((i, _NEED_TWO, a, b, ()))
                else:
                    needs.append((i, _NEED_ONE, a if relevant[a] else b, -1, ()))
            elif kind in ("not", "next", "wnext", "ev", "glob"):
                needs.append((i, _NEED_ONE, a, -1, ()))


@cache
def _bits(mask: int) -> tuple[int, ...]:
    """The positions of the set bits of ``mask``, lowest first."""
    return tuple(j for j in range(mask.bit_length()) if mask >> j & 1)


def _evaluate(
    c: Circuit, prog: _Program, regs: list[int], width: int, n_letters: int, n_guess: int
) -> tuple[list[int], list[int], int]:
    """Node values, next register values and guess consistency, as (columns·width)-bit ints."""
    n_blocks = n_letters * n_guess + 1
    cols = n_blocks * width
    ones = (1 << cols) - 1
    one_block = (1 << width) - 1
    spread = _repeat(1, width, cols)  # bit 0 of every block
    old = list(map(spread.__mul__, regs))  # each register copied into every block
    run = (1 << (n_guess * width)) - 1  # the blocks of one letter
    eos = one_block << (cols - width)
    blocks = [run << (letter * n_guess * width) for letter in range(n_letters)] + [eos]
    guesses = _guess_masks(c, width, n_letters, n_guess, eos) if c.future else {}
    v: list[int] = []
    append = v.append
    for op, a, b in prog.nodes:
        if op == _REG:
            append(old[a])
        elif op == _LETTERS:
            append(sum(map(blocks.__getitem__, prog.letters[a])))
        elif op == _OR:
            append(v[a] | v[b])
        elif op == _AND:
            append(v[a] & v[b])
        elif op == _NOT:
            append(v[a] ^ ones)
        elif op == _BOUNDED:
            x = 0
            for r in range(a, a + b):
                x |= old[r]
            append(x)
        elif op == _IFF:
            append(v[a] ^ v[b] ^ ones)
        else:  # _GUESS
            append(guesses[a])
    new = list(old)
    for first, length, node in prog.shifts:
        new[first] = v[node]
        new[first + 1 : first + length] = old[first : first + length - 1]
    valid = ones
    for op, r, a, b in prog.updates:
        if op == _ONCE:
            new[r] = old[r] | v[a]
        elif op == _HIST:
            new[r] = old[r] & v[a]
        elif op == _SINCE:
            new[r] = v[b] | (v[a] & old[r])
        else:  # a future operator: promise its guessed value, check the previous promise
            new[r] = v[a]
            valid &= (v[b] ^ old[r]) ^ ones
    if c.future:
        valid |= old[c.reg[c.started]] ^ ones  # nothing was promised before position 1
    if prog.saturating:
        _forget_dead(c, prog, new, ones)
    return v, new, valid


def _forget_dead(c: Circuit, prog: _Program, new: list[int], ones: int) -> None:
    """Clear, in each column, the registers that can no longer influence the output.

    Once ``P ψ`` is true (or ``H ψ`` false) it stays so, and ψ no longer matters to it. A node
    is *needed* if the root or a future operator (whose promises must stay checkable) depends
    on it through unsaturated operators; registers of unneeded nodes are set to 0. Two states
    that differ only in such registers accept the same words, so this only merges states.
    """
    need = [0] * len(c.nodes)
    need[c.root] = need[c.started] = ones  # `started` gates the promise check
    for i in c.future:
        need[i] = ones
    lag_need = [0] * len(new)
    for i, op, a, b, lags in prog.needs:
        live = need[i]
        if not live:
            continue
        if op == _NEED_TWO:
            need[a] |= live
            need[b] |= live
        elif op == _NEED_ONE:
            need[a] |= live
        elif op == _NEED_ONCE:
            need[a] |= live & (new[b] ^ ones)
        elif op == _NEED_HIST:
            need[a] |= live & new[b]
        else:  # _NEED_LAGS
            need[a] |= live
            for r in lags:
                lag_need[r] |= live
    for i, r in prog.reg_items:
        new[r] &= need[i]
    for r in prog.shift_regs:
        new[r] &= lag_need[r]


def _guess_masks(c: Circuit, width: int, n_letters: int, n_guess: int, eos: int) -> dict[int, int]:
    """For each future node: the columns that guess it true (its forced value at EOS)."""
    out: dict[int, int] = {}
    for j, i in enumerate(c.future):
        half = 1 << j  # guess g has bit j set: runs of `half` blocks in every 2·half blocks
        on = ((1 << (half * width)) - 1) << (half * width)
        mask = _repeat(on, 2 * half * width, n_letters * n_guess * width)
        out[i] = mask | (eos if FUTURE_AT_EOS[c.nodes[i][0]] else 0)
    return out


def _repeat(pattern: int, period: int, total: int) -> int:
    """``pattern`` (``period`` bits) repeated to fill ``total`` bits (a multiple of ``period``).

    Doubling with shifts: O(log(total/period)) big-integer operations (no long division).
    """
    out, length = pattern, period
    while length < total:
        out |= out << length
        length *= 2
    return out & ((1 << total) - 1)
