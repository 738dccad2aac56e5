"""Plan a formula-to-transformer construction: residual coordinates, heads and FFN units per layer.

The plan is pure data (no torch; its types: `plan_data`); `models.construct` turns it into
`Recognizer` weights.
Every value that the plan *materializes* lives in one residual coordinate and is exactly 0 or 1
at every token (and 0 at BOS, so BOS is a neutral key and sink). Timing is counted in
sublayers: the embedding is time 0, block b's attention is time 2b−1 and its FFN time 2b.

- Atoms (symbols, ⊤, ⊥ = ¬⊤, ``eos``) and every Boolean combination of atoms alone are
  functions of the token: they are embedding coordinates (time 0, no layer).
- A temporal node (P, H, Y, Y^{≤k}, ``start`` = ¬P⊤ or ¬Y^{≤k}⊤; Y^k is unfolded into k nested
  Y's) is one head with the constant query λ (the *sharpness*) and key = value = its argument:
  P by a global head, Y^{≤k} by a k-local head [LC25, Lemma B.12; LC26]. The argument is a
  threshold form ``[Σ wᵢlᵢ ≥ θ]`` over literals of materialized values (`construct.logic`;
  every ∧/∨ chain that folds into one, e.g. ``b ∧ Y a``): score λ·Σwᵢlᵢ, value
  Σwᵢlᵢ − θ + 1, which is ≤ 0 on keys that falsify it and in [1, Σwᵢ] on keys that satisfy
  it. So the head's output m is ≤ 0 when no key satisfies the argument and in [1/2, Σwᵢ] when
  one does, provided the window has at most e^λ / 2θ keys, and the FFN of the same block
  rounds it to exactly 0/1 with ``relu(2m) − relu(2m − 1)`` (H and ``start``: ``1 − bos −``
  that). The classifier reads the root's threshold form the same way (logit ±1 or more).
- Arguments that do not fold (↔, ∧ of two ∨'s, ...) are materialized by one FFN over their
  frontier (the nearest temporal/atomic descendants): a disjoint DNF from a Shannon expansion,
  one ReLU ``relu(Σlᵢ − (r−1))`` per term (negated literals are ``1 − x − bos``).

So a node's time is 2 + the time of what it reads, and the layer count grows with operator
depth (at most 2 per temporal level), not with formula size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from expressivity.alphabet import Alphabet
from expressivity.errors import UnsupportedFragmentError
from expressivity.logic.syntax import Eos, Formula, Not, Start, Top
from expressivity.logic.temporal import BoundedPast, Historically, Past, Yesterday
from expressivity.models.construct.logic import (
    BOOLEAN,
    TEMPORAL,
    Form,
    Lit,
    bounded_to_yesterday,
    conjunction,
    disjoint_cover,
    flatten,
    frontier_table,
    is_atomic,
    threshold_form,
    unfold,
    value_on_token,
)
from expressivity.models.construct.nodes import Dilated, InBlock, ModRead
from expressivity.models.construct.plan_data import Affine, FfnUnit, HeadOp, Plan

__all__ = ["Affine", "FfnUnit", "HeadOp", "Plan", "plan"]

MAX_VARS = 8  # largest frontier expanded into a DNF in one FFN (2^8 truth-table rows)


@dataclass
class _Planner:
    alphabet: Alphabet
    patterns: frozenset[str]  # allowed head patterns
    start_pattern: str
    coords: list[str] = field(default_factory=lambda: ["bos", "top", "eos"])
    written: list[str] = field(default_factory=lambda: ["embedding"] * 3)
    embedding: list[tuple[int, ...]] = field(default_factory=list)
    eos_coords: set[int] = field(default_factory=lambda: {1, 2})
    heads: list[HeadOp] = field(default_factory=list)
    units: list[FfnUnit] = field(default_factory=list)
    coord_of: dict[Formula, int] = field(default_factory=dict)
    when_cache: dict[Formula, int] = field(default_factory=dict)
    form_cache: dict[tuple[Formula, bool], Form] = field(default_factory=dict)

    def __post_init__(self) -> None:
        every = tuple(range(len(self.alphabet)))
        self.embedding = [(), every, ()]

    # ------------------------------------------------------------ coordinates
    def _new(self, name: str, where: str) -> int:
        self.coords.append(name)
        self.written.append(where)
        self.embedding.append(())
        return len(self.coords) - 1

    def literal(self, f: Formula, neg: bool) -> Affine:
        """``x`` or ``1 − x − bos`` for a materialized node (0 at BOS either way)."""
        x = Affine(((self.materialize(f), 1.0),))
        return Affine(((0, -1.0),), 1.0) + x.scale(-1.0) if neg else x

    def materialize(self, f: Formula) -> int:
        if isinstance(f, Top):
            return 1
        if isinstance(f, Eos):
            return 2
        if f in self.coord_of:
            return self.coord_of[f]
        if is_atomic(f):
            c = self._new(str(f), "embedding")
            self.embedding[c] = tuple(i for i, s in enumerate(self.alphabet.symbols)
                                      if value_on_token(f, s))
            if value_on_token(f, None):
                self.eos_coords.add(c)
        elif isinstance(f, TEMPORAL):
            c = self._temporal(f)
        else:
            c = self._gate(f)
        self.coord_of[f] = c
        return c

    # ------------------------------------------------------------ timing (pure)
    def when(self, f: Formula) -> int:
        """The sublayer after which ``f`` (materialized) is available."""
        if f not in self.when_cache:
            if is_atomic(f):
                t = 0
            elif isinstance(f, TEMPORAL):
                t = self._form(self._argument(f))[1] + 2
            else:
                t = max(self.when(v) for v in self._frontier(f)) + 2
            self.when_cache[f] = t
        return self.when_cache[f]

    def _argument(self, f: Formula) -> Formula:
        if isinstance(f, Start | ModRead):
            return Top()
        assert isinstance(f, Past | Historically | Yesterday | BoundedPast | Dilated | InBlock)
        return Not(f.arg) if isinstance(f, Historically) else f.arg

    def _form(self, f: Formula) -> tuple[Form, int]:
        """The threshold form of ``f`` and the time when all its literals are available."""
        form = threshold_form(f, False, self.when, self.form_cache)
        return form, max(self.when(g) for (g, _), _ in form[0])

    def _frontier(self, f: Formula) -> list[Formula]:
        found: list[Formula] = []

        def walk(g: Formula, top: bool) -> None:
            if not top and (is_atomic(g) or not isinstance(g, BOOLEAN)):
                if g not in found:
                    found.append(g)
                return
            for c in g.children:
                walk(c, False)

        walk(f, True)
        if len(found) <= MAX_VARS or self._flat(f, found) is not None:
            return found
        kids = []  # too many variables for one truth table: materialize the children first
        for c in f.children:
            while isinstance(c, Not):
                c = c.arg
            if c not in kids:
                kids.append(c)
        return kids

    def _flat(self, f: Formula, frontier: list[Formula]) -> tuple[str, list[Lit]] | None:
        for kind in ("and", "or"):
            lits: list[Lit] = []
            flatten(f, kind == "and", False, lits)
            if all(g in frontier for g, _ in lits):
                return kind, lits
        return None

    # ------------------------------------------------------------ operations
    def linear(self, form: Form) -> tuple[Affine, Affine]:
        """(score Σwᵢlᵢ, value Σwᵢlᵢ − θ + 1) of a threshold form: the value is ≤ 0 where the
        form is false and in [1, Σwᵢ − θ + 1] where it is true."""
        total = Affine()
        for (g, neg), w in form[0]:
            total = total + self.literal(g, neg).scale(w)
        return total, total.shift(1.0 - form[1])

    def _temporal(self, f: Formula) -> int:
        form, ready = self._form(self._argument(f))
        layer = ready // 2 + 1
        if isinstance(f, Past | Historically):
            pattern = "G"
        elif isinstance(f, Start):
            pattern = self.start_pattern
        elif isinstance(f, ModRead):
            pattern = "G"  # the head compares its position with BOS's, a key of G only
        elif isinstance(f, Dilated | InBlock):
            pattern = f.pattern
        else:
            pattern = f"L{f.k if isinstance(f, BoundedPast) else 1}"
        if pattern not in self.patterns:
            raise UnsupportedFragmentError(
                f"{f} needs a head with pattern {pattern}, which the layout does not offer "
                f"(it offers {', '.join(sorted(self.patterns))})"
            )
        key, value = self.linear(form)
        scratch = self._new(f"attn[{f}]", f"layer {layer} attention")
        period = (f.modulus, f.residue) if isinstance(f, ModRead) else None
        self.heads.append(HeadOp(layer, pattern, key, value, scratch, str(f), period))
        target = self._new(str(f), f"layer {layer} FFN")
        m = Affine(((scratch, 2.0),))
        if period is not None:  # m = 2·(mass on BOS) − 1, which is 1 at BOS itself: − 2bos
            m = m + Affine(((0, -2.0),))
        sign = -1.0 if isinstance(f, Historically | Start) else 1.0
        if sign < 0:  # H ψ = ¬P¬ψ and start = ¬P⊤: write 1 − bos − round(m)
            self.units.append(FfnUnit(layer, Affine(((0, -1.0),), 1.0), target, 1.0))
        self.units.append(FfnUnit(layer, m, target, sign))
        self.units.append(FfnUnit(layer, m.shift(-1.0), target, -sign))
        return target

    def _gate(self, f: Formula) -> int:
        frontier = self._frontier(f)
        layer = max(self.when(v) for v in frontier) // 2 + 1
        flat = self._flat(f, frontier)
        if flat is not None and flat[0] == "and":
            terms, sign = [flat[1]], 1.0
        elif flat is not None:  # ∨ of literals = ¬(∧ of the negated literals)
            terms, sign = [[(g, not n) for g, n in flat[1]]], -1.0
        else:
            index = {v: i for i, v in enumerate(frontier)}
            table = frontier_table(f, index, len(frontier))
            pos = disjoint_cover(table, tuple(range(len(frontier))))
            neg = disjoint_cover(~table, tuple(range(len(frontier))))
            chosen, sign = (pos, 1.0) if len(pos) <= len(neg) + 1 else (neg, -1.0)
            terms = [[(frontier[i], n) for i, n in t] for t in chosen]
        notbos = Affine(((0, -1.0),), 1.0)
        pres = [notbos if not term else self.linear(conjunction(term))[1] for term in terms]
        target = self._new(str(f), f"layer {layer} FFN")
        if sign < 0:
            self.units.append(FfnUnit(layer, notbos, target, 1.0))
        self.units += [FfnUnit(layer, pre, target, sign) for pre in pres]
        return target

    def readout(self, f: Formula) -> Affine:
        form, _ = self._form(f)
        _, value = self.linear(form)
        value = Affine(tuple(t for t in value.terms if t[0] != 0), value.const)  # bos = 0 at EOS
        return value.scale(2.0).shift(-1.0)  # ≥ 1 where f holds, ≤ −1 where it does not


def plan(
    formula: Formula, alphabet: Alphabet, patterns: frozenset[str], start_pattern: str
) -> Plan:
    """The construction plan of ``formula`` using heads with the given ``patterns``."""
    if "L1" in patterns and not any(p.startswith("L") and p != "L1" for p in patterns):
        formula = bounded_to_yesterday(formula)
    planner = _Planner(alphabet, patterns, start_pattern)
    formula = unfold(formula)
    readout = planner.readout(formula)
    n_layers = max([1, *(h.layer for h in planner.heads), *(u.layer for u in planner.units)])
    return Plan(
        alphabet=alphabet,
        coords=tuple(planner.coords),
        written=tuple(planner.written),
        embedding=tuple(planner.embedding),
        eos_coords=frozenset(planner.eos_coords),
        bos=0,
        heads=tuple(planner.heads),
        units=tuple(planner.units),
        readout=readout,
        n_layers=n_layers,
        start_pattern=start_pattern,
    )
