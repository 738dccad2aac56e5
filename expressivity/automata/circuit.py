"""Formulas as hash-consed circuits: shared subformulas, folded constants and a register plan.

A `Circuit` lists the distinct subformulas of a formula in topological order (children
first) as ``(kind, a, b)`` triples, ``kind`` a `Kind` (`automata.kinds`). The register
plan says which bits of the past the compiler must carry from one position to the next
(docs/theory.md §2):

- ``Y^k ψ`` and ``Y^{≤k} ψ`` share one shift register holding ψ at n−1, …, n−K;
- ``P ψ``, ``H ψ`` and ``ψ1 S ψ2`` each hold one bit (their value at the current position);
- the position predicates ``mod(m,r)`` (n ≡ r mod m) of one modulus m hold m one-hot bits,
  one per residue, whose values rotate by one residue at each step (a counter mod m);
- every future operator χ holds a *promise*: the value guessed for χ at n−1, which constrains
  its successor requirement ``req(χ)`` at n (``X ψ``, ``WX ψ``: ψ; ``F ψ``: ψ ∨ Fψ;
  ``G ψ``: ψ ∧ Gψ; ``ψ1 U ψ2``: ψ2 ∨ (ψ1 ∧ ψ1Uψ2)).

``start`` is rewritten to ¬P⊤; the node P⊤ (`Circuit.started`) is always present. Boolean
combinations of letters, ``eos``, ``true`` and ``false`` are folded into one node
``("letters", mask, -1)``: the set of Σ ∪ {EOS} where it holds (bit |Σ| is EOS), so that e.g.
``a ∧ b`` is recognized as false and ``a ∨ ¬a`` as true. The nodes reached from the root
through Boolean connectives alone are only ever evaluated at the EOS position, so they are
specialized to it (letters false, ``eos`` true, every future operator a constant). The
nodes are interned and folded by `automata.builder`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import itemgetter

from expressivity.alphabet import Alphabet
from expressivity.automata.builder import CircuitBuilder
from expressivity.automata.kinds import (
    AND,
    BINARY_KINDS,
    BOUNDED,
    EV,
    FALSE,
    FUTURE_AT_EOS,
    GLOB,
    HIST,
    IFF,
    LEAF_KINDS,
    LETTERS,
    MOD,
    NEXT,
    NOT,
    ONCE,
    OR,
    PREV,
    SHIFT,
    SINCE,
    TRUE,
    UNTIL,
    WNEXT,
    Kind,
    Node,
)
from expressivity.errors import StateExplosionError
from expressivity.logic import syntax as s

FUTURE_KINDS = frozenset({NEXT, WNEXT, EV, GLOB, UNTIL})


@dataclass(frozen=True)
class Circuit:
    """A formula compiled to a DAG of ``(kind, a, b)`` nodes plus its register plan."""

    nodes: tuple[Node, ...]
    root: int
    started: int  # the node P⊤ ("some position precedes this one")
    registers: tuple[tuple[Kind, int, int], ...]  # (kind, node, lag): what each register holds
    initial: tuple[bool, ...]  # register values before the first position
    shift: dict[int, tuple[int, int]]  # node ψ -> (first register, length): ψ at n-1, n-2, ...
    reg: dict[int, int]  # P / H / S / future node -> its register
    future: tuple[int, ...]  # future nodes, in order
    requirement: dict[int, int]  # future node -> node whose value at n+1 it promises
    #: mod(m,r) node -> the mod(m,r−1) node, whose value it takes at the next position
    cycle: dict[int, int] = field(default_factory=dict)

    @property
    def is_pure_past(self) -> bool:
        """True when no future operator remains (after constant folding)."""
        return not self.future


def build_circuit(
    formula: s.Formula, alphabet: Alphabet, *, max_modulus: int | None = None
) -> Circuit:
    """Hash-cons ``formula`` over ``alphabet`` (symbols are checked) and plan its registers.

    A MOD predicate with a modulus above ``max_modulus`` raises `StateExplosionError` before
    its m phase registers are made (the counter alone has m states).
    """
    b, root = formula_nodes(formula, alphabet)
    if max_modulus is not None:
        big = max((a for kind, a, _ in b.nodes if kind == MOD), default=0)
        if big > max_modulus:
            raise StateExplosionError(
                f"mod({big},·) counts positions modulo {big}: more than {max_modulus} states"
            )
    return plan(b, root)


def formula_nodes(formula: s.Formula, alphabet: Alphabet) -> tuple[CircuitBuilder, int]:
    """The formula's nodes, specialized to the EOS position at the root, and its root node."""
    b = CircuitBuilder(alphabet)
    root = b.formula(formula)
    eos_root = at_eos(b, root)
    b, (eos_root,) = compact(b, [eos_root])  # folding leaves nodes nothing reads: drop them
    return b, eos_root


def plan(b: CircuitBuilder, root: int) -> Circuit:
    """Freeze the builder's nodes into a `Circuit` with its registers (see the module doc).

    Registers come in groups: the shift registers (node by node, lag 1 first), then the
    one-bit registers of P, H, S, the MOD phases (every residue of each modulus used) and the
    future operators, each kind in node order.
    """
    started = b.mk(ONCE, b.mk(TRUE))
    moduli = sorted({a for kind, a, _ in b.nodes if kind == MOD})
    phases = [b.mk(MOD, m, r) for m in moduli for r in range(m)]
    cycle = {b.mk(MOD, m, r): b.mk(MOD, m, (r - 1) % m) for m in moduli for r in range(m)}
    nodes = b.nodes
    future = tuple(compress(range(len(nodes)), map(FUTURE_KINDS.__contains__, b.kinds)))
    for chi in future:
        b.requirement[chi] = requirement_of(b, chi)  # may add Boolean nodes, never future ones
    depth: dict[int, int] = {}
    one_bit: dict[Kind, list[int]] = {ONCE: [], HIST: [], SINCE: []}
    for i, (kind, a, k) in enumerate(nodes):
        if kind in (PREV, BOUNDED):
            if depth.get(a, 0) < k:
                depth[a] = k
        elif kind in one_bit:
            one_bit[kind].append(i)
    registers: list[tuple[Kind, int, int]] = []
    shift: dict[int, tuple[int, int]] = {}
    for node in sorted(depth):
        shift[node] = (len(registers), depth[node])
        registers.extend(zip(repeat(SHIFT), repeat(node), range(1, depth[node] + 1)))
    reg: dict[int, int] = {}
    for i in (*one_bit[ONCE], *one_bit[HIST], *one_bit[SINCE], *phases, *future):
        reg[i] = len(registers)
        registers.append((nodes[i][0], i, 0))
    initial = list(map(HIST.__eq__, map(itemgetter(0), registers)))
    for i in phases:  # position 1 is ≡ r (mod m) iff r = 1 mod m
        _, m, r = nodes[i]
        initial[reg[i]] = r == 1 % m
    return Circuit(
        tuple(nodes),
        root,
        started,
        tuple(registers),
        tuple(initial),
        shift,
        reg,
        future,
        dict(b.requirement),
        cycle,
    )


def at_eos(cb: CircuitBuilder, root: int) -> int:
    """The node of ``root``'s value at the EOS position, where it is evaluated.

    There, letters are false, ``eos`` is true and every future operator is a constant
    (nothing follows N+1); past operators keep their registers. Only nodes reached from the
    root through Boolean connectives are evaluated there, so only they are specialized.
    """
    region, stack = set(), [root]
    while stack:
        i = stack.pop()
        if i not in region and cb.nodes[i][0] in (NOT, AND, OR, IFF):
            region.add(i)
            stack.extend(j for j in cb.nodes[i][1:] if j >= 0)
    value: dict[int, int] = {}
    for i in [*sorted(region), root]:
        kind, a, b = cb.nodes[i]
        if i in region:
            value[i] = cb.mk(kind, _eos(cb, a, value), _eos(cb, b, value) if b >= 0 else -1)
        else:
            value[i] = _eos(cb, i, value)
    return value[root]


def _eos(cb: CircuitBuilder, i: int, value: dict[int, int]) -> int:
    """A child of the EOS region: its value there (region nodes are already in ``value``)."""
    kind, a, _ = cb.nodes[i]
    if i in value:
        return value[i]
    if kind == LETTERS:
        return cb.letters(cb.full if a & cb.eos else 0)
    if kind in FUTURE_AT_EOS:
        return cb.mk(TRUE if FUTURE_AT_EOS[kind] else FALSE)
    return i


def compact(cb: CircuitBuilder, roots: list[int]) -> tuple[CircuitBuilder, list[int]]:
    """A builder holding only the nodes that ``roots`` depend on (same order).

    The nodes are already folded and operands precede their users, so renumbering them
    in order is all it takes (the order of commutative operands is kept). When every node is
    needed, ``cb`` itself is returned.
    """
    nodes, kinds = cb.nodes, cb.kinds
    keep = [False] * len(nodes)
    for r in roots:
        keep[r] = True
    for i in range(max(roots), -1, -1):
        if keep[i]:
            kind, a, b = nodes[i]
            if kind not in LEAF_KINDS:
                keep[a] = True
                if kind in BINARY_KINDS:
                    keep[b] = True
    if all(keep):
        return cb, roots
    new = CircuitBuilder(cb.alphabet)
    remap = [-1] * len(nodes)
    for i in compress(range(len(nodes)), keep):
        node = nodes[i]
        kind, a, b = node
        if kind in BINARY_KINDS:
            node = (kind, remap[a], remap[b])
        elif kind not in LEAF_KINDS:  # unary: b is -1 or the k of Y^k, Y^{≤k}
            node = (kind, remap[a], b)
        remap[i] = new.index[node] = len(new.nodes)
        new.nodes.append(node)
        new.kinds.append(kinds[i])
    return new, [remap[r] for r in roots]


def requirement_of(cb: CircuitBuilder, chi: int) -> int:
    """The node whose value at n+1 the future node ``chi`` promises (see the module doc)."""
    kind, a, b = cb.nodes[chi]
    if kind == EV:
        return cb.mk(OR, a, chi)
    if kind == GLOB:
        return cb.mk(AND, a, chi)
    if kind == UNTIL:
        return cb.mk(OR, b, cb.mk(AND, a, chi))
    return a  # next, wnext


__all__ = [
    "FUTURE_KINDS",
    "Circuit",
    "CircuitBuilder",
    "at_eos",
    "build_circuit",
    "compact",
    "formula_nodes",
    "plan",
    "requirement_of",
]
