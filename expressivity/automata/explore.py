"""Breadth-first exploration of a circuit's register automaton, bit-parallel over a whole layer.

One BFS layer holds F register states. Every (state, column) pair is one bit of a Python
integer, where a column is a letter (with, for future operators, one guess of their values) or
the EOS step. Each circuit node is then evaluated for the whole layer by a handful of
big-integer operations, and the next register values are transposed into per-column state
keys with numpy. The cost per layer is O(|circuit|) integer operations on (columns·F)-bit
numbers plus O(columns·F) dictionary look-ups.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from expressivity.automata.circuit import FUTURE_AT_EOS, FUTURE_KINDS, Circuit
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
    init = np.asarray(c.initial, dtype=np.uint8).reshape(n_regs, 1)
    index: dict[bytes, int] = {_keys(init)[0]: 0}
    frontier = np.asarray(c.initial, dtype=np.uint8).reshape(n_regs, 1)  # registers × states
    start, accepting = 0, 0  # accepting: bit q set when state q accepts
    src, letter, dst = [], [], []
    while frontier.shape[1]:
        first_new, fresh_parts = len(index), []
        for lo in range(0, frontier.shape[1], chunk):
            part = frontier[:, lo : lo + chunk]
            width = part.shape[1]
            work += width * n_blocks
            if work > budget:
                raise StateExplosionError(
                    f"guessing {len(c.future)} future operators at each position takes more than "
                    f"{budget} steps (the work bound for max_states={max_states})"
                )
            packed = np.packbits(part, axis=1, bitorder="little")
            regs = [int.from_bytes(row.tobytes(), "little") for row in packed]
            values, new_regs, valid = _evaluate(c, regs, width, n_letters, n_guess)
            cols = n_blocks * width
            eos_bits = ((values[c.root] & valid) >> (cols - width)) & ((1 << width) - 1)
            accepting |= eos_bits << (start + lo)
            bits = _unpack(new_regs, cols - width)  # (registers, letter columns)
            chosen = None
            if c.future:
                chosen = np.flatnonzero(_unpack([valid], cols - width)[0])
                bits = bits[:, chosen]
            keys = _keys(bits)
            ids = [index.get(key) for key in keys]
            fresh = []
            if None in ids:
                for t, key in enumerate(keys):
                    if ids[t] is None:
                        j = index.get(key)
                        if j is None:
                            if len(index) >= max_states:
                                raise StateExplosionError(
                                    "its register automaton has more than "
                                    f"{max_states} reachable states"
                                )
                            j = index[key] = len(index)
                            fresh.append(t)
                        ids[t] = j
            fresh_parts.append(bits[:, fresh])
            if chosen is None:
                chosen = np.arange(cols - width)
            block, pos = np.divmod(chosen, width)
            src.append(start + lo + pos)
            letter.append(block // n_guess)
            dst.append(np.asarray(ids, dtype=np.int64))
        start = first_new
        frontier = np.concatenate(fresh_parts, axis=1)
    n = len(index)
    return Exploration(
        n,
        np.concatenate(src),
        np.concatenate(letter),
        np.concatenate(dst),
        _unpack([accepting], n)[0].astype(bool),
    )


def _evaluate(
    c: Circuit, regs: list[int], width: int, n_letters: int, n_guess: int
) -> tuple[list[int], list[int], int]:
    """Node values, next register values and guess consistency, as (columns·width)-bit ints."""
    n_blocks = n_letters * n_guess + 1
    cols = n_blocks * width
    ones = (1 << cols) - 1
    one_block = (1 << width) - 1
    spread = _repeat(1, width, cols)  # bit 0 of every block
    old = [r * spread for r in regs]  # each register copied into every block
    run = (1 << (n_guess * width)) - 1  # the blocks of one letter
    eos = one_block << (cols - width)
    guesses = _guess_masks(c, width, n_letters, n_guess, eos)
    v: list[int] = []
    for i, (kind, a, b) in enumerate(c.nodes):
        if kind == "letters":
            x = eos if a >> n_letters else 0
            for letter in range(n_letters):
                if a >> letter & 1:
                    x |= run << (letter * n_guess * width)
        elif kind == "and":
            x = v[a] & v[b]
        elif kind == "or":
            x = v[a] | v[b]
        elif kind == "not":
            x = v[a] ^ ones
        elif kind == "iff":
            x = (v[a] ^ v[b]) ^ ones
        elif kind == "prev":
            x = old[c.shift[a][0] + b - 1]
        elif kind == "bounded":
            x = 0
            for lag in range(b):
                x |= old[c.shift[a][0] + lag]
        elif kind in ("once", "hist", "since"):
            x = old[c.reg[i]]
        elif kind in FUTURE_KINDS:
            x = guesses[i]
        else:  # pragma: no cover - the builder only makes the kinds above
            raise AssertionError(kind)
        v.append(x)
    new = list(old)
    for node, (first, length) in c.shift.items():
        new[first] = v[node]
        for lag in range(1, length):
            new[first + lag] = old[first + lag - 1]
    valid = ones
    for i, r in c.reg.items():
        kind, a, b = c.nodes[i]
        if kind == "once":
            new[r] = old[r] | v[a]
        elif kind == "hist":
            new[r] = old[r] & v[a]
        elif kind == "since":
            new[r] = v[b] | (v[a] & old[r])
        else:  # a future operator: promise its guessed value, check the previous promise
            new[r] = v[i]
            valid &= (v[c.requirement[i]] ^ old[r]) ^ ones
    if c.future:
        valid |= old[c.reg[c.started]] ^ ones  # nothing was promised before position 1
    if c.saturating:
        _forget_dead(c, new, ones)
    return v, new, valid


def _forget_dead(c: Circuit, new: list[int], ones: int) -> None:
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
    for i in range(len(c.nodes) - 1, -1, -1):
        live = need[i]
        if not live:
            continue
        kind, a, b = c.nodes[i]
        if kind == "once":
            need[a] |= live & (new[c.reg[i]] ^ ones)
        elif kind == "hist":
            need[a] |= live & new[c.reg[i]]
        elif kind in ("prev", "bounded"):
            need[a] |= live
            first = c.shift[a][0]
            for lag in range(b):
                lag_need[first + lag] |= live
        elif kind in ("and", "or", "iff", "since", "until"):
            need[a] |= live
            need[b] |= live
        elif kind in ("not", "next", "wnext", "ev", "glob"):
            need[a] |= live
    for i, r in c.reg.items():
        new[r] &= need[i]
    for first, length in c.shift.values():
        for r in range(first, first + length):
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


def _unpack(numbers: list[int], count: int) -> np.ndarray:
    """Little-endian bits ``0..count-1`` of each number, as rows of a uint8 matrix."""
    size = (count + 7) // 8
    mask = (1 << count) - 1
    buf = b"".join((x & mask).to_bytes(size, "little") for x in numbers)
    raw = np.frombuffer(buf, dtype=np.uint8).reshape(len(numbers), size)
    return np.unpackbits(raw, axis=1, count=count, bitorder="little")


def _keys(bits: np.ndarray) -> list[bytes]:
    """One hashable key per column of a (registers × columns) bit matrix."""
    packed = np.ascontiguousarray(np.packbits(bits, axis=0, bitorder="little").T)
    size = packed.shape[1]
    buf = packed.tobytes()
    return [buf[i : i + size] for i in range(0, len(buf), size)]
