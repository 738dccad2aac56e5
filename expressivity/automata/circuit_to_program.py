"""Circuit → program: a circuit as per-layer integer steps (cells `explore` computes, moves).

`Program` flattens a `Circuit` once per exploration into integer-coded steps over *cells*
(the registers' old values, the constants, the computed nodes); `evaluate` runs it on one
packed layer of register states, and `forget_dead` clears the registers that can no longer
influence the result (the liveness plan of `Program._plan_liveness`). The layout of a
packed layer is described in `automata.circuit_to_automaton`.
"""

from __future__ import annotations

from functools import cache, reduce
from itertools import repeat
from operator import and_, itemgetter, xor

from expressivity.automata.circuit import FUTURE_KINDS, Circuit
from expressivity.automata.kinds import (
    AND,
    BINARY_KINDS,
    BOUNDED,
    FUTURE_AT_EOS,
    HIST,
    IFF,
    LEAF_KINDS,
    LETTERS,
    MOD,
    NOT,
    ONCE,
    OR,
    PREV,
    SINCE,
    Kind,
)

__all__ = ["Program", "evaluate", "forget_dead", "repeat_bits"]


# Opcodes of the node program (see `Program`), most frequent first in `evaluate`.
_OR, _AND, _NOT, _BOUNDED, _IFF = range(5)
_OPCODE = {AND: _AND, OR: _OR, NOT: _NOT, IFF: _IFF}


class Program:
    """A circuit flattened once per exploration into integer-coded steps (no per-layer lookups).

    A layer's values live in one list of *cells*: the registers' old values first, then the
    constants (letter sets and guesses: ``patterns`` holds their columns within one state's
    slot, repeated in every slot), then the computed nodes in order. Node i's value is in
    ``cell[i]``: a P, H, S, Y^k or MOD node reads its register, so only Boolean connectives and
    Y^{≤k} (``steps``: ``(op, x, y)`` over cells) are computed per layer. The next register
    values are computed group by group (`plan` numbers registers by kind): ``shift_from``
    for the shift registers; ``once``, ``hist``, ``since``: register range and operand cells;
    ``cycle_from``: the register each MOD phase rotates from; ``promise``: as ``once``.
    ``gates``, ``mask_entries``, ``register_mask``: the plan of `forget_dead`.
    """

    def __init__(self, c: Circuit, n_letters: int, n_guess: int) -> None:
        n_regs = len(c.registers)
        self.n_blocks = n_blocks = n_letters * n_guess + 1  # block a·n_guess + g; EOS last
        self.key_bytes = max(1, (n_regs + 7) >> 3)
        column = 8 * self.key_bytes  # S: bits per column
        self.unit = repeat_bits(1, column, n_blocks * column)  # bit 0 of each column
        self.eos_shift = (n_blocks - 1) * column
        self.patterns: list[int] = []
        saturating = False  # some P / H besides `started` can saturate (and make registers dead)
        shift, reg = c.shift, c.reg
        groups: dict[Kind, list[int]] = {ONCE: [], HIST: [], SINCE: []}
        # cells: registers, constants (one per letter set or future node), computed nodes
        kinds = list(map(itemgetter(0), c.nodes))
        computed = n_regs + kinds.count(LETTERS) + len(c.future)
        cell: list[int] = []
        steps: list[tuple[int, int, int]] = []
        for i, (kind, a, b) in enumerate(c.nodes):
            op = _OPCODE.get(kind)
            if op is not None:
                cell.append(computed + len(steps))
                steps.append((op, cell[a], cell[b] if b >= 0 else -1))
            elif kind == PREV:
                cell.append(shift[a][0] + b - 1)
            elif kind in groups:
                cell.append(reg[i])
                groups[kind].append(i)
                saturating = (
                    saturating or kind == HIST or (kind == ONCE and i != c.started)
                )
            elif kind == LETTERS:  # a: the letter set (bit |Σ| = EOS)
                cell.append(n_regs + len(self.patterns))
                self.patterns.append(_letter_pattern(a, n_letters, n_guess, column))
            elif kind == BOUNDED:
                cell.append(computed + len(steps))
                steps.append((_BOUNDED, shift[a][0], b))
            elif kind == MOD:  # a MOD phase: its register
                cell.append(reg[i])
            elif kind in FUTURE_KINDS:
                cell.append(n_regs + len(self.patterns))
                self.patterns.append(_guess_pattern(c, i, n_letters, n_guess, column))
            else:  # pragma: no cover - the builder only makes the kinds above
                raise AssertionError(kind)
        self.steps = steps
        self.root = cell[c.root]
        # shift register first + j holds ψ at lag j + 1: ψ's value now, or lag j's old value
        shift_from: list[int] = []
        for node, (first, length) in shift.items():
            shift_from.append(cell[node])
            shift_from.extend(range(first, first + length - 1))
        self.shift_from = shift_from
        cn = c.nodes
        self.once = _group(reg, groups[ONCE], [cell[cn[i][1]] for i in groups[ONCE]])
        self.hist = _group(reg, groups[HIST], [cell[cn[i][1]] for i in groups[HIST]])
        self.since = _group(reg, groups[SINCE], [cell[cn[i][1]] for i in groups[SINCE]])
        self.since_right = [cell[cn[i][2]] for i in groups[SINCE]]
        # MOD phases, in register order: each takes the old value of the previous residue
        self.cycle_from = [reg[c.cycle[i]] for kind, i, _ in c.registers if kind == MOD]
        self.promise = _group(reg, list(c.future), [cell[i] for i in c.future])
        self.requirements = [cell[c.requirement[i]] for i in c.future]
        self.started_reg = reg[c.started]
        self.saturating = saturating
        self.n_shift = len(shift_from)
        if saturating:
            self._plan_liveness(c)

    def _plan_liveness(self, c: Circuit) -> None:
        """The plan of `forget_dead`: who may need each register, through which gates.

        A *gate* is a P or H node: it passes its own need to its operand only while it is not
        saturated. Entry 0 stands for the nodes needed always (root, `started`, future
        operators), entry j + 1 for the operand side of gate j. ``sources[x]`` is the set of
        entries (a bitmask) from which node x is reached without crossing a gate, so that
        need(x) = ⋁_{e ∈ sources[x]} need(e), by distributivity.
        """
        nodes = c.nodes
        sources = [0] * len(nodes)
        sources[c.root] = sources[c.started] = 1
        for i in c.future:
            sources[i] = 1
        gates: list[tuple[int, int, bool]] = []  # (node, register, is P), root side first
        # a shift register (ψ, lag L) is needed by the Y^k / Y^{≤k} readers of ψ with k ≥ L
        lag_sources = [0] * self.n_shift
        for i in range(len(nodes) - 1, -1, -1):  # parents first: sources[i] is complete
            here = sources[i]
            if not here:
                continue
            kind, a, b = nodes[i]
            if kind in (ONCE, HIST):
                gates.append((i, c.reg[i], kind == ONCE))
                sources[a] |= 1 << len(gates)
            elif kind in BINARY_KINDS:
                sources[a] |= here
                sources[b] |= here
            elif kind in (PREV, BOUNDED):
                sources[a] |= here
                first = c.shift[a][0]
                for r in range(first, first + b):
                    lag_sources[r] |= here
            elif kind not in LEAF_KINDS:
                sources[a] |= here
        for i in c.cycle:  # a phase feeds the next one: keep the whole counter
            sources[i] = 1
        owners = lag_sources + [sources[i] for _, i, _ in c.registers[self.n_shift :]]
        if all(s == 1 for s in owners):  # every register is always needed: nothing to forget
            self.saturating = False
            return
        distinct = list(dict.fromkeys(owners))
        self.gates = [(_bits(sources[i]), r, once) for i, r, once in gates]
        self.mask_entries = [_bits(s) for s in distinct]
        position = {s: j for j, s in enumerate(distinct)}
        self.register_mask = [position[s] for s in owners]


@cache
def _bits(mask: int) -> tuple[int, ...]:
    """The positions of the set bits of ``mask``, lowest first."""
    return tuple(j for j in range(mask.bit_length()) if mask >> j & 1)


def evaluate(
    prog: Program, old: list[int], lane: int, ones: int
) -> tuple[list[int], list[int], int]:
    """Node values, next register values and guess consistency of a packed layer.

    ``lane`` has bit 0 of every state's slot set, ``ones`` bit 0 of every column.
    """
    v = old + list(map(lane.__mul__, prog.patterns))  # the cells, see `Program`
    append = v.append
    for op, a, b in prog.steps:
        if op == _OR:
            append(v[a] | v[b])
        elif op == _AND:
            append(v[a] & v[b])
        elif op == _NOT:
            append(v[a] ^ ones)
        elif op == _BOUNDED:  # registers a .. a+b-1
            x = v[a]
            for r in range(a + 1, a + b):
                x |= v[r]
            append(x)
        else:  # _IFF
            append(v[a] ^ v[b] ^ ones)
    new = [v[x] for x in prog.shift_from]
    push = new.append
    r, _ = prog.once[0]
    for a in prog.once[1]:  # P ψ: was true, or ψ holds now
        push(v[r] | v[a])
        r += 1
    r, _ = prog.hist[0]
    for a in prog.hist[1]:  # H ψ: was true, and ψ holds now
        push(v[r] & v[a])
        r += 1
    r, _ = prog.since[0]
    for a, b in zip(prog.since[1], prog.since_right, strict=True):
        push(v[b] | (v[a] & v[r]))  # ψ1 S ψ2: ψ2 holds now, or ψ1 holds now and it was true
        r += 1
    value = v.__getitem__
    new += map(value, prog.cycle_from)  # n+1 ≡ r (mod m) iff n ≡ r − 1
    valid = ones
    (lo, hi), args = prog.promise
    if args:  # promise each guessed value; the previous promise must match its requirement
        new += map(value, args)
        broken = map(xor, map(value, prog.requirements), old[lo:hi])
        valid = reduce(and_, map(xor, broken, repeat(ones)), ones)
        valid |= old[prog.started_reg] ^ ones  # nothing was promised before position 1
    if prog.saturating:
        forget_dead(prog, new, ones)
    return v, new, valid


def _group(
    reg: dict[int, int], owners: list[int], args: list[int]
) -> tuple[tuple[int, int], list[int]]:
    """The register range of ``owners`` (consecutive by `plan`) and their operand nodes."""
    if not owners:
        return (0, 0), []
    first = reg[owners[0]]
    return (first, first + len(owners)), args


def forget_dead(prog: Program, new: list[int], ones: int) -> None:
    """Clear, in each column, the registers that can no longer influence the output.

    Once ``P ψ`` is true (or ``H ψ`` false) it stays so, and ψ no longer matters to it. A node
    is *needed* if the root or a future operator (whose promises must stay checkable) depends
    on it through unsaturated operators; registers of unneeded nodes are set to 0. Two states
    that differ only in such registers accept the same words, so this only merges states.
    """
    need = [ones]  # per entry of `_plan_liveness`: 0 always, then the gates' operand sides
    for entries, r, once in prog.gates:
        live = 0
        for e in entries:
            live |= need[e]
        need.append(live & (new[r] ^ ones) if once else live & new[r])
    masks = []
    for entries in prog.mask_entries:
        mask = 0
        for e in entries:
            mask |= need[e]
        masks.append(mask)
    new[:] = map(and_, new, map(masks.__getitem__, prog.register_mask))


@cache
def _letter_pattern(mask: int, n_letters: int, n_guess: int, column: int) -> int:
    """The columns of one slot whose letter is in ``mask`` (bit |Σ|: the EOS column)."""
    guesses = repeat_bits(1, column, n_guess * column)  # letter a's columns, one per guess
    out = sum(guesses << (a * n_guess * column) for a in _bits(mask) if a < n_letters)
    if mask >> n_letters & 1:
        out |= 1 << (n_letters * n_guess * column)
    return out


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


def repeat_bits(pattern: int, period: int, total: int) -> int:
    """``pattern`` (``period`` bits) repeated to fill ``total`` bits (a multiple of ``period``).

    Doubling with shifts: O(log(total/period)) big-integer operations (no long division).
    """
    out, length = pattern, period
    while length < total:
        out |= out << length
        length *= 2
    return out & ((1 << total) - 1)
