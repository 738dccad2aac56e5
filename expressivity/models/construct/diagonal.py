"""LTL[P,Y] formulas compiled into time-invariant diagonal SSMs, S4D (theory.md §16.5).

``build_diagonal_model(plan, kind)`` sets every weight of a real `Recognizer` whose layers hold
one `DiagonalSSM` (``SD``, or ``SDC`` with Im A = 0) and, when the layout allows them, strict
1-local heads for the Y nodes. A time-invariant channel has one gate at every letter, so it
cannot keep at one letter and reset at another: the plan has ONCE and PREV nodes only (no
SINCE, no FLIP; `mixer_plan` refuses them). Per channel e reading signal ψ (d_state 1,
Δ = softplus(32) = 32, B = 1/32 so that Δ·B = 1 exactly)::

    ONCE  P ψ   a = 1 (A_log = −40: exp(−32·e^−40) = 1 in float32)   C = 1,    D = −1
                y_t = h_t − ψ_t = #{s < t : ψ_s}, an integer count (exact below 2^24)
    PREV  Y ψ   a ≈ 2^−8 (Δ·|A| = 8 ln 2)                             C = 1/a,  D = −1/a
                y_t = (h_t − ψ_t)/a = h_{t−1} ∈ [ψ_{t−1}, ψ_{t−1} + a/(1 − a)]

So a node's coordinate is 0 (up to a/(1 − a) ≈ 0.004) when false and at least 1 when true, but
a count is unbounded above. The FFN therefore reads node atoms only *negated*: a signal f is
written, per letter token, by its Möbius expansion f = Σ_S μ_S ∏_{j∈S} [node j false], and each
term by two units ReLU(A + 2) − ReLU(A + 1) with A = SHARP·(letter literals − their number −
Σ_{j∈S} x_j − bos): 1 when every literal holds and every x_j ≤ 0.004 (A ∈ [−1, 0]), 0 when a
literal fails or some x_j ≥ 1 (A ≤ −2). Every signal is then Boolean up to rounding (≈ 1e-6),
which a later count sums without leaving its margin on every word of at most `exact_length`
letters (the float32 bound of Theorem 16.4; in real arithmetic every length).
"""

from __future__ import annotations

import math

from expressivity.models.config import S4DOutput
from expressivity.models.construct.minterms import BOS, Unit, layer_units, token_coordinate
from expressivity.models.construct.mixer import (
    LayerNodes,
    MixerModel,
    Role,
    assemble,
    layer_nodes,
    plan_coordinates,
)
from expressivity.models.construct.mixer_plan import DIAGONAL, Atom, MixerPlan, Op, Signal
from expressivity.models.ssm.mixers import DiagonalSSM
from expressivity.models.transformer import Recognizer

__all__ = ["DIAGONAL", "GATE_OPEN", "GELU_ONE", "PREV_GATE", "SHARP", "build_diagonal_model",
           "exact_length", "mobius", "mobius_units"]

STEP = 32.0  # log_dt = 32 > softplus's threshold 20: Δ = 32 exactly, and B = 1/32 exactly
KEEP_LOG_A = -40.0  # exp(−32 · e^−40) rounds to 1 in float32: the ONCE gate is exactly 1
PREV_GATE = 2.0 ** -8  # the PREV gate a: a false Y node reads at most a/(1 − a) ≈ 0.004
SHARP = 4.0  # the unit slope: a true node (≥ 1 − 1e-4) puts A below −2
#: float32, generously: one unit pair (two pre-activations of size ≤ 8 and their difference)
#: errs by at most this, and a signal by at most this times Σ|μ_S| (§16.5)
PAIR_ERROR = 2.0 ** -19
COUNT_LIMIT = 2**24 - 1  # a count of exact Booleans is an exact float32 integer below 2^24
#: S4D's output (``gelu-glu``, Corollary 16.6): a node's value is GELU(z)/GELU(1), so a true
#: node (z ≥ 1 − 1e-4) reads at least 1 − 2e-4 and a false one (0 ≤ z ≤ 1/4) at most z
GELU_ONE = 0.5 * (1.0 + math.erf(2.0 ** -0.5))
#: the GLU's gate bias: sigmoid(20) = 1 − 2e-9, which is 1.0 in float32
GATE_OPEN = 20.0


def build_diagonal_model(plan: MixerPlan, kind: str, *, l1_heads: bool = False,
                         output: S4DOutput = "linear") -> MixerModel:
    """The `Recognizer` of ``plan`` (ONCE and PREV nodes only) with the time-invariant mixer
    ``kind`` ("SD" or "SDC") in every layer; Y nodes on strict 1-local heads if ``l1_heads``;
    the mixers' output map ``output`` ("linear", or S4D's "gelu-glu": Corollary 16.6)."""
    if kind not in DIAGONAL:
        raise ValueError(f"build_diagonal_model: kind must be one of {sorted(DIAGONAL)}")
    bad = [n.label for n in plan.nodes if n.op not in (Op.ONCE, Op.PREV)]
    if bad:
        raise ValueError(f"build_diagonal_model: {kind} computes P and Y only, not {bad}")
    layers = layer_nodes(plan, l1_heads)
    coords = plan_coordinates(plan, layers, kind)
    units = [layer_units(plan, l, coords, mobius_units) for l in range(1, plan.n_layers + 1)]
    channels = max(1, *(len(row.ssm) for row in layers))

    def set_row(model: Recognizer, l: int, row: LayerNodes) -> list[Role]:
        return _set_channels(model, l, row, plan, coords.signal, coords.node, kind)

    return assemble(plan, layers, coords, units, kind,
                    max(1, math.ceil(channels / len(coords.names))), set_row,
                    s4d_output=output)


def _set_channels(model: Recognizer, l: int, row: LayerNodes, plan: MixerPlan,
                  sig_coord: dict[int, int], node_coord: dict[int, int], kind: str
                  ) -> list[Role]:
    """Channel e = slot e computes node row.ssm[e] (the table of the module docstring)."""
    attn = model.blocks[l].attn
    mixer = attn.mixers[0]
    assert isinstance(mixer, DiagonalSSM)
    roles = []
    for e, i in enumerate(row.ssm):
        node = plan.nodes[i]
        mixer.in_proj.weight[e, sig_coord[node.signals[0]]] = 1.0
        mixer.log_dt[e] = STEP
        mixer.B[e, 0, 0] = 1.0 / STEP
        if node.op is Op.ONCE:
            mixer.A_log[e, 0] = KEEP_LOG_A
        else:
            mixer.A_log[e, 0] = math.log(-math.log(PREV_GATE) / STEP)  # Δ·|A| = ln(1/a)
        gate = float(mixer.gate()[e, 0].real)
        read = 1.0 if node.op is Op.ONCE else 1.0 / gate
        mixer.C[e, 0, 0] = read
        mixer.D[e] = -read
        if mixer.output == "gelu-glu":  # GLU(value, gate): value GELU(z)/GELU(1), gate open
            mixer.out_proj.weight[e, e] = 1.0 / GELU_ONE
            mixer.out_proj.bias[mixer.out_proj.out_features // 2 + e] = GATE_OPEN
        else:
            mixer.out_proj.weight[e, e] = 1.0
        attn.o.weight[node_coord[i], e] = 1.0
        roles.append((l, e, kind, node.label))
    return roles


def exact_length(plan: MixerPlan) -> int:
    """N_φ of Theorem 16.4: the decisions of ``plan``'s SD recognizer are exact in float32 on
    every word of at most this many letters. A P node that counts an FFN signal (level ≥ 1,
    Boolean up to ε = `PAIR_ERROR`·m, m = Σ|μ_S| of its expansion) drifts by at most N·ε, and
    a reading unit with n node atoms stays in its margin while n·(SHARP·(N·ε + a/(1 − a)))
    ≤ 1; counts of letters (level 0) are exact integers below 2^24."""
    leak = PREV_GATE / (1 - PREV_GATE)
    n = max([1, *(sum(a[0] == "node" for a in s.atoms) for s in (*plan.signals, plan.readout))])
    counted = {node.signals[0] for node in plan.nodes if node.op is Op.ONCE}
    m = max([0, *(_weight(plan.signals[j]) for j in counted if plan.signals[j].level >= 1)])
    if m == 0:
        return COUNT_LIMIT
    return min(COUNT_LIMIT, math.floor((1 / (SHARP * n) - leak) / (PAIR_ERROR * m)))


def _weight(sig: Signal) -> int:
    """Σ|μ_S| over the signal's letter cases: the most pairs whose rounding it sums."""
    return max(sum(abs(mu) for mu in coefficients) for _, coefficients in _expansions(sig))


def _expansions(sig: Signal) -> list[tuple[Atom | None, list[int]]]:
    """Per letter case (the signal's token atom present, or None of them), the Möbius
    coefficients μ_S of the signal over its node atoms, S a bit mask of nodes that are false."""
    tokens = [a for a in sig.atoms if a[0] in ("sym", "eos")]
    nodes = [a for a in sig.atoms if a[0] == "node"]
    cases = []
    for present in [None, *tokens]:
        env0 = {a: a == present for a in tokens}
        values = [sig.fn(env0 | {a: not z >> j & 1 for j, a in enumerate(nodes)})
                  for z in range(1 << len(nodes))]
        cases.append((present, mobius(values)))
    return cases


def mobius(values: list[bool]) -> list[int]:
    """μ with values[Z] = Σ_{S ⊆ Z} μ[S] for every subset Z (bit masks over n atoms)."""
    mu = [int(v) for v in values]
    n = max(0, len(values).bit_length() - 1)
    for j in range(n):
        for z in range(len(mu)):
            if z >> j & 1:
                mu[z] -= mu[z ^ (1 << j)]
    return mu


def _token_literals(plan: MixerPlan, tokens: list[Atom], present: Atom | None
                    ) -> tuple[dict[int, float], float]:
    """SHARP · (Σ letter literals − their number): ``present`` true, the other tokens false."""
    terms: dict[int, float] = {}
    bias = 0.0
    for tok in tokens:
        coord = token_coordinate(plan, tok)
        if tok == present:
            terms[coord] = SHARP
            bias -= SHARP
        else:
            terms[coord] = -SHARP
    return terms, bias


def mobius_units(plan: MixerPlan, sig: Signal, target: int,
                 node_coord: dict[int, int]) -> list[Unit]:
    """The FFN units writing ``sig`` into ``target``: per letter case, two units per Möbius
    term, reading every node atom negated (false near 0, true at 1/2 or more; the module
    docstring)."""
    units: list[Unit] = []
    if sig.at_bos:
        units.append(({BOS: 1.0}, 0.0, target, 1.0))
    tokens = [a for a in sig.atoms if a[0] in ("sym", "eos")]
    nodes = [a for a in sig.atoms if a[0] == "node"]
    for present, coefficients in _expansions(sig):
        for z, mu in enumerate(coefficients):
            if mu == 0:
                continue
            terms, bias = _token_literals(plan, tokens, present)
            terms[BOS] = terms.get(BOS, 0.0) - SHARP
            for j, a in enumerate(nodes):
                if z >> j & 1:
                    terms[node_coord[int(a[1])]] = -SHARP
            units.append((terms, bias + 2.0, target, float(mu)))
            units.append((dict(terms), bias + 1.0, target, -float(mu)))
    return units
