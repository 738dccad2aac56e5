"""Hash-consing of formulas into circuit nodes, with constant folding (see `automata.circuit`).

`CircuitBuilder` interns ``(kind, a, b)`` nodes (`automata.kinds`): Boolean combinations of
letters become one letter-set node, trivial identities fold away (``φ ∧ ⊤ = φ``, ``¬¬φ = φ``,
``Y Y φ = Y^2 φ``, ``⊥ S ψ = Y ψ``, ...), and `CircuitBuilder.formula` translates a formula
tree (recursively, or with an explicit stack beyond Python's recursion limit).
"""

from __future__ import annotations

from expressivity.alphabet import Alphabet
from expressivity.automata.kinds import (
    AND,
    BOUNDED,
    EOS,
    EV,
    FALSE,
    GLOB,
    HIST,
    IFF,
    IMPLIES,
    KIND_OF,
    LETTERS,
    MOD,
    NEXT,
    NOT,
    ONCE,
    OR,
    PREV,
    SINCE,
    SPEC_OF,
    SYM,
    TRUE,
    UNTIL,
    WNEXT,
    Kind,
    Node,
    children,
)
from expressivity.logic import syntax as s
from expressivity.logic import temporal as tl

__all__ = ["CircuitBuilder"]


class CircuitBuilder:
    """Interns nodes, folding constants and trivial identities as they are created."""

    def __init__(self, alphabet: Alphabet) -> None:
        self.alphabet = alphabet
        self.nodes: list[Node] = []
        # per node: its kind, except that the empty and the full letter set read "false"/"true"
        self.kinds: list[Kind] = []
        self.index: dict[Node, int] = {}
        self.memo: dict[int, int] = {}  # id(formula) -> node (formulas are immutable)
        self.keep: list[s.Formula] = []  # keeps memoized formulas alive so ids stay unique
        self.symbols: dict[str, int] = {}  # symbol name -> its node
        self.requirement: dict[int, int] = {}
        self.eos = 1 << len(alphabet)  # the EOS step, in letter sets
        self.full = (self.eos << 1) - 1

    def intern(self, node: Node) -> int:
        i = self.index.get(node)
        if i is None:
            i = self.index[node] = len(self.nodes)
            self.nodes.append(node)
            kind = node[0]
            if kind == LETTERS:
                kind = FALSE if node[1] == 0 else TRUE if node[1] == self.full else kind
            self.kinds.append(kind)
        return i

    def kind(self, i: int) -> Kind:
        """The node's kind; the empty and the full letter set read as "false" and "true"."""
        return self.kinds[i]

    def letters(self, mask: int) -> int:
        """The node "the current letter (EOS = bit |Σ|) is in ``mask``"."""
        return self.intern((LETTERS, mask, -1))

    def symbol(self, name: str) -> int:
        """The node "the current letter is ``name``" (an `AlphabetError` if it is not in Σ)."""
        return self.letters(1 << self.alphabet.index(name))

    def mk(self, kind: Kind, a: int = -1, b: int = -1) -> int:
        """The node ``(kind, a, b)``, folded and interned (``a``, ``b``: operand nodes or k)."""
        kinds = self.kinds
        if kind in _BOOLEAN:
            ka = kinds[a]
            kb = kinds[b] if b >= 0 else ""
            if ka == LETTERS and (b < 0 or kb == LETTERS):
                x = self.nodes[a][1]
                if kind == NOT:
                    return self.letters(self.full ^ x)
                y = self.nodes[b][1]
                if kind == AND:
                    return self.letters(x & y)
                if kind == OR:
                    return self.letters(x | y)
                return self.letters(self.full ^ x ^ y)
            if kind == NOT:
                if ka == TRUE:
                    return self.letters(0)
                if ka == FALSE:
                    return self.letters(self.full)
                if ka == NOT:
                    return self.nodes[a][1]
            elif kind == IFF:
                if a == b:
                    return self.letters(self.full)
                for kx, y in ((ka, b), (kb, a)):
                    if kx == TRUE:
                        return y
                    if kx == FALSE:
                        return self.mk(NOT, y)
                a, b = (a, b) if a < b else (b, a)
            else:  # and, or
                unit, zero = (
                    (TRUE, FALSE) if kind == AND else (FALSE, TRUE)
                )
                if ka == zero or kb == zero:
                    return self.letters(0 if zero == FALSE else self.full)
                if ka == unit or a == b:
                    return b
                if kb == unit:
                    return a
                nodes = self.nodes
                if nodes[a] == (NOT, b, -1) or nodes[b] == (NOT, a, -1):
                    return self.letters(0 if zero == FALSE else self.full)
                a, b = (a, b) if a < b else (b, a)
        elif kind == MOD:  # ("mod", m, r): the position is ≡ r (mod m); a leaf, not operands
            if a == 1:
                return self.letters(self.full)
        elif kind in _CONSTANT:
            if kind == SYM:
                return self.letters(1 << max(a, 0))
            mask = self.full if kind == TRUE else 0 if kind == FALSE else self.eos
            return self.letters(mask)
        else:
            ka = kinds[a]
            if kind == PREV:
                if ka == FALSE:
                    return a
                if ka == PREV:
                    return self.mk(PREV, self.nodes[a][1], self.nodes[a][2] + b)
            elif kind == BOUNDED:
                if ka == FALSE:
                    return a
                if b == 1:
                    return self.mk(PREV, a, 1)
            elif kind in (ONCE, EV, NEXT):
                if ka == FALSE:
                    return a
            elif kind in (HIST, GLOB, WNEXT):
                if ka == TRUE:
                    return a
            elif kind in (SINCE, UNTIL):
                kb = kinds[b]
                if kb == FALSE:
                    return b
                if ka == FALSE:  # ⊥ S ψ = Y ψ and ⊥ U ψ = X ψ
                    return self.mk(PREV, b, 1) if kind == SINCE else self.mk(NEXT, b)
                if ka == TRUE:  # ⊤ S ψ = P ψ and ⊤ U ψ = F ψ (then a gate that saturates)
                    return self.mk(ONCE if kind == SINCE else EV, b)
            # no position n+1 is position 1
            if kind in (NEXT, WNEXT) and self.is_start(a):
                return self.letters(0) if kind == NEXT else self.letters(self.eos)
        node = (kind, a, b)
        i = self.index.get(node)
        if i is None:
            i = self.index[node] = len(self.nodes)
            self.nodes.append(node)
            kinds.append(kind)
        return i

    def is_start(self, i: int) -> bool:
        """Whether node ``i`` is ¬P⊤ (``start``)."""
        kind, a, _ = self.nodes[i]
        return (
            kind == NOT
            and self.nodes[a][0] == ONCE
            and self.kind(self.nodes[a][1]) == TRUE
        )

    def formula(self, root: s.Formula) -> int:
        """The node of ``root``.

        Recursive descent (fast), and where the nesting is deeper than Python's recursion
        limit, an iterative post-order that resumes from what was built.
        """
        try:
            return self._descend(root)
        except RecursionError:
            return self._iterate(root)

    def _descend(self, f: s.Formula) -> int:
        """`formula` by recursion (children before parents, the right child first)."""
        if type(f) is s.Symbol:  # the most common leaf: cached by name, not by identity
            node = self.symbols.get(f.name)
            if node is None:
                node = self.symbols[f.name] = self.symbol(f.name)
            return node
        node = self.memo.get(id(f))
        if node is not None:
            return node
        spec = SPEC_OF.get(type(f))
        if spec is None:
            return self._iterate(f)  # a subclass of a node type: the generic path
        arity, kind = spec
        if arity == 1:
            x = self._descend(f.arg)  # type: ignore[attr-defined]
            if kind in (PREV, BOUNDED):  # noqa: SIM108 - the ignore below needs its own line
                node = self.mk(kind, x, f.k)  # type: ignore[attr-defined]
            else:
                node = self.mk(kind, x)
        elif arity == 2:
            y = self._descend(f.right)  # type: ignore[attr-defined]  # as `_iterate` numbers
            x = self._descend(f.left)  # type: ignore[attr-defined]
            node = self.mk(OR, self.mk(NOT, x), y) if kind == IMPLIES else self.mk(kind, x, y)
        else:  # a constant leaf
            node = self._node(f, [])
        self.memo[id(f)] = node
        self.keep.append(f)
        return node

    def _iterate(self, root: s.Formula) -> int:
        """`formula` by an explicit stack: any nesting depth, any subclass of a node type."""
        memo, keep, mk, get = self.memo, self.keep, self.mk, self.memo.get
        stack: list[s.Formula] = [root]
        while stack:  # the top is built once its children are, else they are pushed on it
            f = stack[-1]
            spec = SPEC_OF.get(type(f))
            if spec is None:  # a subclass of a node type, or not a formula: the generic path
                if id(f) in memo:
                    stack.pop()
                    continue
                kids = children(f)
                todo = [c for c in kids if id(c) not in memo]
                if todo:
                    stack.extend(todo)
                    continue
                node = self._node(f, [memo[id(c)] for c in kids])
            else:
                arity, kind = spec
                if arity == 1:
                    x = get(id(f.arg))  # type: ignore[attr-defined]
                    if x is None:
                        stack.append(f.arg)  # type: ignore[attr-defined]
                        continue
                    k = f.k if kind in (PREV, BOUNDED) else -1  # type: ignore[attr-defined]
                    node = mk(kind, x, k)
                elif arity == 2:
                    left, right = f.left, f.right  # type: ignore[attr-defined]
                    x, y = get(id(left)), get(id(right))
                    if x is None or y is None:  # the right child is built first
                        if x is None:
                            stack.append(left)
                        if y is None:
                            stack.append(right)
                        continue
                    node = mk(OR, mk(NOT, x), y) if kind == IMPLIES else mk(kind, x, y)
                elif kind == SYM:
                    name = f.name  # type: ignore[attr-defined]
                    node = self.symbols.get(name, -1)
                    if node < 0:
                        node = self.symbols[name] = self.symbol(name)
                else:
                    node = self._node(f, [])
            stack.pop()
            memo[id(f)] = node
            keep.append(f)
        return memo[id(root)]

    def _node(self, f: s.Formula, kids: list[int]) -> int:
        """The node of ``f`` given the nodes of its children."""
        match f:
            case s.Symbol(name):
                return self.symbol(name)
            case s.Top() | s.Bottom() | s.Eos():
                return self.mk({s.Top: TRUE, s.Bottom: FALSE, s.Eos: EOS}[type(f)])
            case s.Start():
                return self.mk(NOT, self.mk(ONCE, self.mk(TRUE)))
            case s.Mod(modulus, residue):
                return self.mk(MOD, modulus, residue)
            case s.Implies():
                return self.mk(OR, self.mk(NOT, kids[0]), kids[1])
            case tl.Yesterday(_, k):
                return self.mk(PREV, kids[0], k)
            case tl.BoundedPast(_, k):
                return self.mk(BOUNDED, kids[0], k)
        kind = KIND_OF.get(type(f))
        if kind is None:
            for base, name in KIND_OF.items():
                if isinstance(f, base):
                    kind = name
                    break
        if kind is not None:
            return self.mk(kind, *kids)
        raise TypeError(f"not a formula node: {f!r}")


_BOOLEAN = frozenset({NOT, AND, OR, IFF})
_CONSTANT = frozenset({SYM, TRUE, FALSE, EOS})
