"""Breadth-first exploration of a circuit's register automaton, bit-parallel over a whole layer.

A register state is keyed by the bytes of its register bits (register r is bit r, K bytes per
key). One BFS layer of F states is packed into one integer, state-major: state t owns a slot
of T = B·S bits, where B is the number of columns per state (a letter, with, for future
operators, one guess of their values, or the EOS step) and S = 8K bits hold one column; the
key of state t is copied into every column of its slot. Register r of the whole layer is then
``(packed >> r) & ones``, with ``ones`` the lowest bit of every column, and each circuit node
is evaluated for the layer by a handful of big-integer operations (a `_Program` flattens the
circuit once). The successors come back the same way: ``Σ_r new_r << r`` holds in every column
the key of its successor, read off with one ``to_bytes`` and a numpy view. Per layer the cost
is O(|circuit|) big-integer operations on F·T-bit numbers plus O(F·B) dictionary look-ups,
with no per-bit Python work.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, reduce
from itertools import chain, compress, repeat
from operator import and_, is_, lshift, or_, xor

import numpy as np

from expressivity.automata.circuit import FUTURE_AT_EOS, FUTURE_KINDS, PAST_KINDS, Circuit
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
    prog = _Program(c, n_letters, n_guess)
    n_blocks, n_moves, key_bytes = prog.n_blocks, prog.n_blocks - 1, prog.key_bytes
    slot_bits = n_blocks * 8 * key_bytes  # T
    slot_bytes = slot_bits >> 3
    key_type = f"V{key_bytes}"
    chunk = max(1, _MAX_BITS // slot_bits)  # frontier states evaluated together
    # Work bound: without guesses the state bound bounds the work; with them every state costs
    # n_blocks columns, so allow what `max_states` states of a guess-free automaton would cost.
    budget = _WORK_FACTOR * max_states * (n_letters + 1)
    work = 0
    init_key = sum(1 << r for r, bit in enumerate(c.initial) if bit).to_bytes(key_bytes, "little")
    index: dict[bytes, int] = {init_key: 0}
    frontier = [init_key]
    accepting: list[bytes] = []
    src: list[np.ndarray] = []
    letter: list[np.ndarray] = []
    dst: list[int] = []
    done = 0  # the states expanded so far: frontier[lo] is state done
    regs = range(len(c.registers))
    root = c.root
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
            lane = _repeat(1, slot_bits, width * slot_bits)
            ones = lane * prog.unit
            old = list(map(ones.__and__, map(packed.__rshift__, regs)))
            values, new, valid = _evaluate(prog, old, lane, ones)
            size = width * slot_bytes
            eos = ((values[root] & valid) >> prog.eos_shift).to_bytes(size, "little")
            accepting.append(eos[::slot_bytes])
            succ = sum(map(lshift, new, regs)).to_bytes(size, "little")
            columns = np.frombuffer(succ, dtype=key_type).reshape(width, n_blocks)[:, :n_moves]
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


# Opcodes of the node program (see `_Program`), most frequent first in `_evaluate`.
_REG, _OR, _AND, _NOT, _CONST, _BOUNDED, _IFF = range(7)
_OPCODE = {"and": _AND, "or": _OR, "not": _NOT, "iff": _IFF}
_NEED_ONE, _NEED_TWO, _NEED_ONCE, _NEED_HIST, _NEED_LAGS = range(5)
#: Node kinds that read registers (or lags) of the previous position.
_STATEFUL = PAST_KINDS | FUTURE_KINDS


class _Program:
    """A circuit flattened once per exploration into integer-coded steps (no per-layer lookups).

    ``nodes``: per node ``(op, x, y)`` with registers already resolved (``_REG``: register x;
    ``_BOUNDED``: registers x..x+y-1; ``_CONST``: pattern x, for letter sets and guesses).
    ``patterns``: per constant, its columns within one state's slot (the layer's value is the
    pattern in every slot). The next register values are computed group by group (`plan`
    numbers registers by kind): ``shift_from`` indexes ``values + old`` for the shift
    registers; ``once``, ``hist``, ``since``, ``promise`` are (register range, operand nodes).
    ``needs``: the dead-register analysis of `_forget_dead`, root last.
    """

    def __init__(self, c: Circuit, n_letters: int, n_guess: int) -> None:
        self.n_blocks = n_blocks = n_letters * n_guess + 1  # block a·n_guess + g; EOS last
        self.key_bytes = max(1, (len(c.registers) + 7) >> 3)
        column = 8 * self.key_bytes  # S: bits per column
        self.unit = sum(1 << (j * column) for j in range(n_blocks))  # bit 0 of each column
        self.eos_shift = (n_blocks - 1) * column
        # letter a (any guess) and EOS as column sets of one slot
        letter_cols = [
            sum(1 << ((a * n_guess + g) * column) for g in range(n_guess)) for a in range(n_letters)
        ]
        letter_cols.append(1 << self.eos_shift)
        nodes: list[tuple[int, int, int]] = []
        append = nodes.append
        self.patterns: list[int] = []
        saturating = False  # some P / H besides `started` can saturate (`Circuit.saturating`)
        shift, reg = c.shift, c.reg
        groups: dict[str, list[int]] = {"once": [], "hist": [], "since": []}
        for i, (kind, a, b) in enumerate(c.nodes):
            op = _OPCODE.get(kind)
            if op is not None:
                append((op, a, b))
            elif kind == "prev":
                append((_REG, shift[a][0] + b - 1, -1))
            elif kind in groups:
                append((_REG, reg[i], -1))
                groups[kind].append(i)
                saturating = saturating or kind == "hist" or (kind == "once" and i != c.started)
            elif kind == "letters":  # a: the letter set (bit |Σ| = EOS)
                append((_CONST, len(self.patterns), -1))
                self.patterns.append(sum(map(letter_cols.__getitem__, _bits(a))))
            elif kind == "bounded":
                append((_BOUNDED, shift[a][0], b))
            elif kind in FUTURE_KINDS:
                append((_CONST, len(self.patterns), -1))
                self.patterns.append(_guess_pattern(c, i, n_letters, n_guess, column))
            else:  # pragma: no cover - the builder only makes the kinds above
                raise AssertionError(kind)
        self.nodes = nodes
        n = len(nodes)
        # shift register first + j holds ψ at lag j + 1: ψ's value now, or lag j's old value
        shift_from: list[int] = []
        for node, (first, length) in shift.items():
            shift_from.append(node)
            shift_from.extend(range(n + first, n + first + length - 1))
        self.shift_from = shift_from
        cn = c.nodes
        self.once = _group(reg, groups["once"], [cn[i][1] for i in groups["once"]])
        self.hist = _group(reg, groups["hist"], [cn[i][1] for i in groups["hist"]])
        self.since = _group(reg, groups["since"], [cn[i][1] for i in groups["since"]])
        self.since_right = [cn[i][2] for i in groups["since"]]
        self.promise = _group(reg, list(c.future), list(c.future))
        self.requirements = [c.requirement[i] for i in c.future]
        self.started_reg = reg[c.started]
        self.saturating = saturating
        self.needs: list[tuple[int, int, int, int, tuple[int, ...]]] = []
        if saturating:
            self.root, self.started, self.future_nodes = c.root, c.started, c.future
            self.n_nodes = n
            self.n_shift = len(shift_from)
            # the node whose need masks each one-bit register, in register order
            self.bit_owner = [i for _, i, _ in c.registers[self.n_shift :]]
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
    prog: _Program, old: list[int], lane: int, ones: int
) -> tuple[list[int], list[int], int]:
    """Node values, next register values and guess consistency of a packed layer.

    ``lane`` has bit 0 of every state's slot set, ``ones`` bit 0 of every column.
    """
    consts = list(map(lane.__mul__, prog.patterns))
    v: list[int] = []
    append = v.append
    for op, a, b in prog.nodes:
        if op == _REG:
            append(old[a])
        elif op == _OR:
            append(v[a] | v[b])
        elif op == _AND:
            append(v[a] & v[b])
        elif op == _NOT:
            append(v[a] ^ ones)
        elif op == _CONST:
            append(consts[a])
        elif op == _BOUNDED:
            x = old[a]
            for r in range(a + 1, a + b):
                x |= old[r]
            append(x)
        else:  # _IFF
            append(v[a] ^ v[b] ^ ones)
    value = v.__getitem__
    new = list(map((v + old).__getitem__, prog.shift_from))
    (lo, hi), args = prog.once
    if args:  # P ψ: was true, or ψ holds now
        new += map(or_, old[lo:hi], map(value, args))
    (lo, hi), args = prog.hist
    if args:  # H ψ: was true, and ψ holds now
        new += map(and_, old[lo:hi], map(value, args))
    (lo, hi), args = prog.since
    if args:  # ψ1 S ψ2: ψ2 holds now, or ψ1 holds now and it was true
        new += map(or_, map(value, prog.since_right), map(and_, map(value, args), old[lo:hi]))
    valid = ones
    (lo, hi), args = prog.promise
    if args:  # promise each guessed value; the previous promise must match its requirement
        new += map(value, args)
        broken = map(xor, map(value, prog.requirements), old[lo:hi])
        valid = reduce(and_, map(xor, broken, repeat(ones)), ones)
        valid |= old[prog.started_reg] ^ ones  # nothing was promised before position 1
    if prog.saturating:
        _forget_dead(prog, new, ones)
    return v, new, valid


def _group(
    reg: dict[int, int], owners: list[int], args: list[int]
) -> tuple[tuple[int, int], list[int]]:
    """The register range of ``owners`` (consecutive by `plan`) and their operand nodes."""
    if not owners:
        return (0, 0), []
    first = reg[owners[0]]
    return (first, first + len(owners)), args


def _forget_dead(prog: _Program, new: list[int], ones: int) -> None:
    """Clear, in each column, the registers that can no longer influence the output.

    Once ``P ψ`` is true (or ``H ψ`` false) it stays so, and ψ no longer matters to it. A node
    is *needed* if the root or a future operator (whose promises must stay checkable) depends
    on it through unsaturated operators; registers of unneeded nodes are set to 0. Two states
    that differ only in such registers accept the same words, so this only merges states.
    """
    need = [0] * prog.n_nodes
    need[prog.root] = need[prog.started] = ones  # `started` gates the promise check
    for i in prog.future_nodes:
        need[i] = ones
    lag_need = [0] * prog.n_shift
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
    new[:] = map(and_, new, chain(lag_need, map(need.__getitem__, prog.bit_owner)))


def _guess_pattern(c: Circuit, node: int, n_letters: int, n_guess: int, column: int) -> int:
    """The columns of one slot that guess future node ``node`` true (EOS: its forced value)."""
    j = c.future.index(node)  # guess g says node is true when bit j of g is set
    out = sum(
        1 << ((a * n_guess + g) * column)
        for a in range(n_letters)
        for g in range(n_guess)
        if g >> j & 1
    )
    if FUTURE_AT_EOS[c.nodes[node][0]]:
        out |= 1 << (n_letters * n_guess * column)
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
