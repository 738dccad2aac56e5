"""Circuit → automaton: breadth-first exploration of its register states, bit-parallel per layer.

A register state is keyed by the bytes of its register bits (register r is bit r, K bytes per
key). One BFS layer of F states is packed into one integer, state-major: state t owns a slot
of T = B·S bits, where B is the number of columns per state (a letter, with, for future
operators, one guess of their values, or the EOS step) and S = 8K bits hold one column; the
key of state t is copied into every column of its slot. Register r of the whole layer is then
``(packed >> r) & ones``, with ``ones`` the lowest bit of every column, and each circuit node
is evaluated for the layer by a handful of big-integer operations (a `Program` flattens the
circuit once). The successors come back the same way: ``Σ_r new_r << r`` holds in every column
the key of its successor, read off with one ``to_bytes`` and a numpy view. Per layer the cost
is O(|circuit|) big-integer operations on F·T-bit numbers plus O(F·B) dictionary look-ups,
with no per-bit Python work.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import compress, repeat
from operator import is_, lshift

import numpy as np

from expressivity.automata.circuit import Circuit
from expressivity.automata.circuit_to_program import Program, evaluate, repeat_bits
from expressivity.errors import StateExplosionError

#: Bits of one packed layer: bounds the memory of one step (each node value is one such int).
_MAX_BITS = 1 << 23
#: With future operators, total columns evaluated ≤ _WORK_FACTOR · max_states · (|Σ| + 1).
_WORK_FACTOR = 16


@dataclass(frozen=True)
class Exploration:
    """The reachable register automaton; state 0 is the initial one.

    ``accepting[q]`` is 1 when q accepts at EOS (0 otherwise). Without future operators it is a
    complete DFA: ``dst[q·|Σ| + a]`` is δ(q, a) and ``src``/``letter`` are ``None``. With them
    it is an NFA with one edge ``src[i] --letter[i]--> dst[i]`` per consistent guess.
    """

    n_states: int
    dst: list[int]
    accepting: bytes
    src: np.ndarray | None = None
    letter: np.ndarray | None = None


def explore(c: Circuit, n_letters: int, *, max_states: int) -> Exploration:
    """Enumerate the register states reachable from the initial one, layer by layer."""
    n_guess = 1 << len(c.future)
    if n_guess > max_states:  # the promises alone make 2^|future| successors of the start
        raise StateExplosionError(
            f"guessing {len(c.future)} future operators gives more than {max_states} states"
        )
    prog = Program(c, n_letters, n_guess)
    n_blocks, n_moves, key_bytes = prog.n_blocks, prog.n_blocks - 1, prog.key_bytes
    slot_bits = n_blocks * 8 * key_bytes  # T
    slot_bytes = slot_bits >> 3
    slot_type = _slot_type(key_bytes, n_moves, slot_bytes)
    chunk = max(1, _MAX_BITS // slot_bits)  # frontier states evaluated together
    # Work bound: without guesses the state bound bounds the work; with them every state costs
    # n_blocks columns, so allow what `max_states` states of a guess-free automaton would cost.
    budget = _WORK_FACTOR * max_states * (n_letters + 1)
    work = 0
    initial = int("".join(map("01".__getitem__, reversed(c.initial))) or "0", 2)
    init_key = initial.to_bytes(key_bytes, "little")
    index: dict[bytes, int] = {init_key: 0}
    frontier = [init_key]
    accepting: list[bytes] = []
    src: list[np.ndarray] = []
    letter: list[np.ndarray] = []
    dst: list[int] = []
    done = 0  # the states expanded so far: frontier[lo] is state done
    regs = range(len(c.registers))
    while frontier:
        fresh: list[bytes] = []
        for lo in range(0, len(frontier), chunk):
            part = frontier[lo : lo + chunk]
            width = len(part)
            work += width * n_blocks
            if work > budget:
                raise StateExplosionError(
                    f"guessing {len(c.future)} future operators at each position takes more than "
                    f"{budget} steps (the work bound for max_states={max_states})"
                )
            # every state's key copied into each of its columns, states side by side
            packed = int.from_bytes(b"".join(map(bytes.__mul__, part, repeat(n_blocks))), "little")
            lane = repeat_bits(1, slot_bits, width * slot_bits)
            ones = lane * prog.unit
            old = list(map(ones.__and__, map(packed.__rshift__, regs)))
            values, new, valid = evaluate(prog, old, lane, ones)
            size = width * slot_bytes
            eos = ((values[prog.root] & valid) >> prog.eos_shift).to_bytes(size, "little")
            accepting.append(eos[::slot_bytes])
            succ = sum(map(lshift, new, regs)).to_bytes(size, "little")
            columns = np.frombuffer(succ, dtype=slot_type)["moves"]  # (width, n_moves) keys
            if c.future:
                valid_cols = valid.to_bytes(size, "little")[::key_bytes]
                chosen = np.flatnonzero(
                    np.frombuffer(valid_cols, dtype=np.uint8).reshape(width, n_blocks)[:, :n_moves]
                )
                keys = columns.reshape(-1)[chosen].tolist()
            else:
                keys = columns.reshape(-1).tolist()
            found = list(map(index.get, keys))
            ids: list[int]
            if None in found:  # new states, numbered in column order
                new_keys = dict.fromkeys(compress(keys, map(is_, found, repeat(None))))
                if len(index) + len(new_keys) > max_states:
                    raise StateExplosionError(
                        f"its register automaton has more than {max_states} reachable states"
                    )
                base = len(index)
                index.update(zip(new_keys, range(base, base + len(new_keys)), strict=True))
                fresh.extend(new_keys)
                ids = list(map(index.__getitem__, keys))
            else:
                ids = found  # type: ignore[assignment]  # no None in it
            dst.extend(ids)
            if c.future:
                state, move = np.divmod(chosen, n_moves)
                src.append(state + done)
                letter.append(move // n_guess)
            done += width  # states are numbered in the order they are expanded
        frontier = fresh
    accepts = b"".join(accepting)
    if not c.future:
        return Exploration(len(index), dst, accepts)
    return Exploration(len(index), dst, accepts, np.concatenate(src), np.concatenate(letter))


@cache
def _slot_type(key_bytes: int, n_moves: int, slot_bytes: int) -> np.dtype:
    """One state's slot as a record whose field "moves" holds the keys of its letter columns."""
    return np.dtype(
        {
            "names": ["moves"],
            "formats": [(f"V{key_bytes}", (n_moves,))],
            "offsets": [0],
            "itemsize": slot_bytes,
        }
    )
