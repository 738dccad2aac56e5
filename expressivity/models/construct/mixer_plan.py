"""Formulas and 2-group DFAs planned into SSM channels: nodes, Boolean signals, levels.

The plan of an SSM construction (docs/theory.md §16) is pure data (`mixer_data`). A *node* is
one temporal operator computed by one mixer channel (or one strict 1-local attention head),
reading the *signals* of the previous position; a *signal* is a Boolean function of *atoms*
(the current letter, ``eos`` and earlier nodes) that the embedding (level 0) or a feed-forward
sublayer writes into one residual coordinate:

    ONCE  P ψ          flip-flop: set at ψ, else keep          (non-negative gate)
    SINCE ψ1 S ψ2      flip-flop: set at ψ2, reset at ¬ψ1 ∧ ¬ψ2, else keep
    PREV  Y ψ          reset to ψ at every step                 (or a 1-local head)
    FLIP  parity       start +1 at BOS, ×(−1) at every flip     (sign-flipping gate only)

Every channel reads position t−1 (Mamba's causal convolution, tap t−1), so a non-strict
recurrence over positions ≤ t−1 gives the strict operator at t. Node levels: 1 + the highest
level among its signals' nodes; block l computes the nodes of level l and, in its FFN, the
signals of level l (and the readout in the last block). The convolution's other taps shorten
this for the selective mixers (docs/theory.md §16.1, "Window events"): Y^k of a token function
(k ≤ 3) is one channel at tap t−k, and P ψ whose ψ reads only the letter and such Y^k atoms
(ψ at t−1 a function of the tokens at t−1 … t−3) has its event read from those tokens
(`Window`); both are level 1.
"""

from __future__ import annotations

from collections.abc import Callable

from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.layouts import parse_spelling
from expressivity.logic.syntax import (
    And,
    Bottom,
    Eos,
    Formula,
    Iff,
    Implies,
    Mod,
    Not,
    Or,
    Start,
    Symbol,
    Top,
)
from expressivity.logic.temporal import BoundedPast, Historically, Past, Since, Yesterday
from expressivity.models.construct.mixer_data import (
    CONV_TAPS,
    Atom,
    Env,
    MixerPlan,
    Node,
    Op,
    Signal,
    Window,
)
from expressivity.models.construct.window import event_window
from expressivity.models.ssm.heads import MIXERS, SELECTIVE

#: The time-invariant real and complex diagonal mixers with a construction (§16.5).
DIAGONAL = frozenset({"SD", "SDC"})
#: The SSM atoms with a construction: the selective mixers (§16.1) and `DIAGONAL`.
CONSTRUCTED = SELECTIVE | DIAGONAL

__all__ = ["CONSTRUCTED", "DIAGONAL", "MAX_ATOMS", "Atom", "MixerPlan", "Node", "Op", "Signal",
           "mixer_layout", "parity_plan", "plan_formula", "plan_parities"]

#: Most temporal atoms one signal may depend on (its FFN enumerates 2^atoms minterms).
MAX_ATOMS = 12


class _Planner:
    def __init__(self, alphabet: Alphabet, signed: bool, selective: bool = True) -> None:
        self.alphabet, self.signed, self.selective = alphabet, signed, selective
        self.nodes: list[Node] = []
        self.signals: list[Signal] = []
        self._node_of: dict[object, int] = {}
        self._signal_of: dict[object, int] = {}

    def node(self, key: object, op: Op, sigs: tuple[Signal, ...], label: str, *, lag: int = 1,
             window: Window | None = None) -> Atom:
        if key not in self._node_of:
            idx = tuple(self.signal(s) for s in sigs)
            level = 1 if window else 1 + max(self.signals[i].level for i in idx)
            self._node_of[key] = len(self.nodes)
            self.nodes.append(Node(op, idx, label, level, lag, window))
        return ("node", str(self._node_of[key]))

    def level(self, s: Signal) -> int:
        """The level ``s`` gets when registered: that of its deepest node."""
        return max([0, *(self.nodes[int(a[1])].level for a in s.atoms if a[0] == "node")])

    def window(self, psi: Signal) -> Window | None:
        """ψ's event as a `Window` (`window.event_window`) for a selective mixer, else None."""
        return event_window(psi, self.nodes, self.signals, self.alphabet) \
            if self.selective else None

    def signal(self, s: Signal) -> int:
        key = (s.label, s.at_bos)
        if key not in self._signal_of:
            self._signal_of[key] = len(self.signals)
            self.signals.append(Signal(s.label, s.atoms, s.fn, s.at_bos, self.level(s)))
        return self._signal_of[key]

    def boolean(self, phi: Formula) -> Signal:
        """ψ as a Boolean function of its maximal temporal subformulas and letters."""
        atoms: dict[Atom, None] = {}
        fn = self._compile(phi, atoms)
        nodes = [a for a in atoms if a[0] == "node"]
        if len(nodes) > MAX_ATOMS:
            raise UnsupportedFragmentError(
                f"construct: the Boolean combination {phi} depends on {len(nodes)} temporal "
                f"subformulas; an SSM construction enumerates at most 2^{MAX_ATOMS} minterms "
                f"per feed-forward signal (limit MAX_ATOMS in "
                "expressivity/models/construct/mixer_plan.py); split the formula")
        return Signal(str(phi), tuple(atoms), fn)

    def _compile(self, phi: Formula, atoms: dict[Atom, None]) -> Callable[[Env], bool]:
        def leaf(a: Atom) -> Callable[[Env], bool]:
            atoms[a] = None
            return lambda env: env[a]

        match phi:
            case Top():
                return lambda env: True
            case Bottom():
                return lambda env: False
            case Symbol(name=name):
                return leaf(("sym", name))
            case Eos():
                return leaf(("eos",))
            case Not(arg=arg):
                f = self._compile(arg, atoms)
                return lambda env: not f(env)
            case And(left=left, right=right) | Or(left=left, right=right) | \
                    Implies(left=left, right=right) | Iff(left=left, right=right):
                f, g = self._compile(left, atoms), self._compile(right, atoms)
                op = {And: lambda x, y: x and y, Or: lambda x, y: x or y,
                      Implies: lambda x, y: (not x) or y, Iff: lambda x, y: x == y}[type(phi)]
                return lambda env: op(f(env), g(env))
            case Mod(modulus=1):
                return lambda env: True
            case Mod(modulus=2, residue=0):  # the one flip node reads "position odd"
                f = self._compile(Mod(2, 1), atoms)
                return lambda env: not f(env)
            case Historically(arg=arg):
                return self._compile(Not(Past(Not(arg))), atoms)
            case BoundedPast(k=k, arg=arg):
                disj: Formula = Yesterday(arg)
                for j in range(2, k + 1):
                    disj = Or(disj, Yesterday(arg, j))
                return self._compile(disj, atoms)
            case _:
                return leaf(self.temporal(phi))

    def temporal(self, phi: Formula) -> Atom:
        match phi:
            case Past(arg=arg):
                psi = self.boolean(arg)
                window = None if phi in self._node_of else self.window(psi)  # enumerated once
                return self.node(phi, Op.ONCE, (psi,), str(phi), window=window)
            case Yesterday(arg=arg, k=k) if self.selective and k <= CONV_TAPS and \
                    self.level(token := self.boolean(arg)) == 0:
                return self.node(phi, Op.PREV, (token,), str(phi), lag=k)  # one tap, t−k
            case Yesterday(arg=arg, k=k):
                inner = self.boolean(arg if k == 1 else Yesterday(arg, k - 1))
                return self.node(phi, Op.PREV, (inner,), str(phi))
            case Since() if not self.selective:
                raise UnsupportedFragmentError(
                    f"construct: {phi} needs a gate that keeps at one letter and resets at "
                    "another; a time-invariant mixer (SD, SDC) has one gate at every letter, so "
                    "its constructions compile LTL[P,Y] (P, H, Y, Y^k, Y<=k, start, eos, "
                    "Boolean connectives; docs/theory.md §16.5): rewrite S with P and Y, or "
                    "use --layout mamba (M)")
            case Since(left=left, right=right):
                event = self.boolean(Or(right, Not(left)))
                return self.node(phi, Op.SINCE, (event, self.boolean(right)), str(phi))
            case Start():
                return self.node(phi, Op.PREV, (_bos_signal(),), "start")
            case Mod(modulus=m, residue=r) if m == 2 and self.signed:
                return self.flip(Top(), f"mod(2,{r})")
            case Mod(modulus=m):
                why = ("needs a sign-flipping mixer (MS): gates in (0, 1] recognize only "
                       "star-free languages (docs/theory.md §14, Theorem 14.3)") if m == 2 else \
                      ("is not built: only mod(2,r), one flip channel, is (mod(2^j, r) needs a "
                       "cascade of j flip channels; other moduli are out of every SSM class "
                       "proved here)")
                raise UnsupportedFragmentError(f"construct: {phi} {why}")
            case _:
                raise UnsupportedFragmentError(
                    f"construct: {phi} is not a past operator; SSM constructions compile "
                    "pure-past formulas (P, H, Y, Y^k, Y<=k, S, start, eos, mod(2,r) with MS, "
                    "Boolean connectives); rewrite future operators into past ones")

    def flip(self, flips: Formula, label: str) -> Atom:
        """The FLIP node: +1 (even) at t iff ``flips`` held an even number of times before t."""
        event = Signal(f"({flips}) | bos", *_atoms_fn(self.boolean(flips)), at_bos=True)
        return self.node(("flip", label), Op.FLIP, (event, _bos_signal()), f"parity of {label}")


def _atoms_fn(s: Signal) -> tuple[tuple[Atom, ...], Callable[[Env], bool]]:
    return s.atoms, s.fn


def _bos_signal() -> Signal:
    return Signal("bos", (), lambda env: False, at_bos=True)


def plan_formula(phi: Formula, alphabet: Alphabet, *, signed: bool,
                 selective: bool = True) -> MixerPlan:
    """The plan of a pure-past formula; Mod(2, r) literals: the flip node (even ⇔ the
    position is odd), so mod(2,1) reads "even" and mod(2,0) "odd" (``signed`` only); S only
    for a ``selective`` mixer (a time-invariant one gets P and Y nodes only, §16.5)."""
    p = _Planner(alphabet, signed, selective)
    readout = p.boolean(phi)
    return _finish(p, readout)


def plan_parities(alphabet: Alphabet, flips: tuple[str, ...],
                  accept: Callable[[frozenset[str]], bool], label: str) -> MixerPlan:
    """One FLIP node per letter of ``flips``; the readout ``accept(odd letters)`` at EOS."""
    p = _Planner(alphabet, True)
    nodes = [p.flip(Symbol(a), f"#{a}") for a in flips]

    def fn(env: Env) -> bool:
        return accept(frozenset(a for a, n in zip(flips, nodes, strict=True) if not env[n]))

    return _finish(p, Signal(label, tuple(nodes), fn))


def _finish(p: _Planner, readout: Signal) -> MixerPlan:
    level = max([0, *(p.nodes[int(a[1])].level for a in readout.atoms if a[0] == "node")])
    out = Signal(readout.label, readout.atoms, readout.fn, readout.at_bos, level)
    return MixerPlan(p.alphabet, tuple(p.nodes), tuple(p.signals), out)


def parity_plan(dfa: DFA) -> MixerPlan | None:
    """The FLIP plan of a DFA whose letters act as commuting involutions on its reachable
    states (its transition monoid is an elementary abelian 2-group, e.g. PARITY, EVEN-LENGTH),
    so that membership is a function of the letter counts mod 2; None for any other DFA."""
    delta, sigma = dfa.transitions, dfa.alphabet
    n, s = delta.shape
    for a in range(s):
        if sorted(delta[:, a]) != list(range(n)) or any(delta[delta[q, a], a] != q
                                                         for q in range(n)):
            return None
        for b in range(a):
            if any(delta[delta[q, a], b] != delta[delta[q, b], a] for q in range(n)):
                return None
    flips = tuple(x for i, x in enumerate(sigma.symbols)
                  if any(delta[q, i] != q for q in range(n)))

    def accept(odd: frozenset[str]) -> bool:
        return bool(dfa.accepts(sorted(odd)))

    return plan_parities(sigma, flips, accept, "DFA state from the letter parities")


def mixer_layout(layout: str | None) -> tuple[str, bool] | None:
    """(the SSM atom, whether 1-local heads may be used) of a layout with an SSM atom; None for
    a layout without one. A `ConfigError` when it mixes SSM atoms or names one that has no
    construction (the selective mixers M and MS, and the time-invariant SD and SDC, are built;
    DR is not)."""
    if layout is None:
        return None
    try:
        spelled = parse_spelling(layout)
    except ConfigError:  # not a layout spelling (e.g. "global+periodic"): construct's own
        return None
    kinds = {a.kind for pat in spelled.patterns for a in pat}
    ssm = sorted(kinds & set(MIXERS))
    if not ssm:
        return None
    if len(ssm) > 1 or ssm[0] not in CONSTRUCTED:
        raise ConfigError(
            f"layout: construct builds SSM layouts with one mixer, M (mamba), MS "
            f"(mamba-signed), SD (s4d) or SDC, plus 1-local heads; {layout!r} uses "
            f"{', '.join(ssm)}. DR has no construction in the Recognizer yet (its class: "
            "docs/theory.md §14); spell the layout with one of those, e.g. 'MS,L1'")
    local = any(a.kind == "L" and a.params == (1,) for pat in spelled.patterns for a in pat)
    return ssm[0], local
