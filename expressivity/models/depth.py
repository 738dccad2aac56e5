"""Minimal depth d*(L, layout): the least number of attention layers that recognize L.

docs/theory.md §8. A network of d layers computes at EOS exactly the Boolean combinations of
*layered* depth-d types (`type_automata.type_machines` with ``layered``: depth 0 is the letter
alone, so ``start`` costs one layer; each layer adds one level of the layout's operators; with
global tokens E at the top costs two more layers). So:

- **yes at depth d** (`DepthProof`): L is a union of layered depth-d EOS types (the type
  automaton: a formula of the layout's logic of nesting depth d), and, where one is known, an
  explicit formula of that depth (compiled and compared with the DFA);
- **not at depth d** (`DepthCertificate`): u ∈ L and v ∉ L share their EOS type after d
  layers of the model's own masks (`models.layer_types`), re-checked from the masks;
- **not at any depth**: the unbounded verdict is "no" (`algebra.classify`).

Between a certified lower bound and a proved upper bound the answer is unknown, with the
bound hit. "Yes at d" implies yes at every d' ≥ d (a layer can copy its input: zero value
weights), so "at exactly L layers" is yes when d* ≤ L and no when L < lower bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from expressivity.algebra.classification import PERIODIC, UNIQUE_HARD, Classification
from expressivity.algebra.classify import one_letter_per_action
from expressivity.algebra.locality import LayoutVerdict
from expressivity.algebra.operators import Fragment, hybrid, local, past
from expressivity.algebra.patterns import layout_fragment
from expressivity.algebra.prefix_content import PrefixContent
from expressivity.algebra.type_automata import TypeMachine
from expressivity.algebra.types import check_depth, layered_ladder
from expressivity.algebra.window_sets import WindowSets
from expressivity.alphabet import Word
from expressivity.automata.compile import compile_formula
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import equivalent, minimize
from expressivity.errors import ExpressivityError, StateExplosionError
from expressivity.logic import syntax as s
from expressivity.logic import temporal as tl
from expressivity.logic.parser import parse
from expressivity.models.depth_tables import depth_dict, depth_table, seed_certificates
from expressivity.models.depth_types import (
    SEEDS,
    SUMMARY_LAYERS,
    DepthCertificate,
    DepthProof,
    MinimalDepth,
)
from expressivity.models.layer_types import N_HEADS, layer_conflict

__all__ = [
    "DepthCertificate",
    "DepthProof",
    "MinimalDepth",
    "depth_dict",
    "depth_layouts",
    "depth_table",
    "layer_depth",
    "minimal_depth",
    "minimal_depths",
    "seed_certificates",
]

#: State bound of each layered type automaton (and 10× for its product with the DFA): the
#: ladders do not depend on the language and are cached per operator set and alphabet size;
#: over {a,b} the depth-3 automaton of P,Y needs ~100,000 states (about 9 s on one core).
DEPTH_STATES = 100_000


def layer_depth(formula: s.Formula) -> int:
    """Layers a past formula needs (docs/theory.md §8): its nesting depth with ``start``
    counted as one layer (¬P⊤ or ¬Y⊤: a token does not know it is first) and Y^k as k."""
    if isinstance(formula, s.Start):
        return 1
    inner = max((layer_depth(c) for c in formula.children), default=0)
    if isinstance(formula, tl.Yesterday):
        return inner + formula.k
    return inner + 1 if formula.temporal else inner


def _allowed(formula: s.Formula, fragment: Fragment) -> bool:
    """Whether ``formula`` is written in the operators of a named fragment (P, Y^≤k, P+Y^≤k)."""
    ok: tuple[type, ...] = (s.Symbol, s.Top, s.Bottom, s.Start, s.Eos, s.Not, s.And, s.Or,
                            s.Implies, s.Iff)
    for sub in formula.subformulas():
        if isinstance(sub, ok):
            continue
        if isinstance(sub, (tl.Past, tl.Historically)) and fragment.past:
            continue
        if isinstance(sub, tl.Yesterday) and fragment.window == 1:
            continue
        if isinstance(sub, tl.BoundedPast) and fragment.window == sub.k:
            continue
        return False
    return True


def _formula_bound(dfa: DFA, fragment: Fragment, formulas: Sequence[s.Formula]
                   ) -> tuple[int, str] | None:
    """The fewest layers among ``formulas`` that are in the fragment's operators and define
    L(dfa) (compiled and compared), with the formula's text."""
    k = fragment.window
    named = [past()] + ([local(k), hybrid(k)] if k else [])
    if fragment not in named:
        return None
    best: tuple[int, str] | None = None
    for f in formulas:
        if not _allowed(f, fragment):
            continue
        try:
            if not equivalent(compile_formula(f, dfa.alphabet), dfa):
                continue
        except ExpressivityError:
            continue
        cand = (layer_depth(f), str(f))
        best = cand if best is None or cand[0] < best[0] else best
    return best


def _parts(fragment: Fragment) -> list[Fragment]:
    """Smaller operator sets inside ``fragment`` (each head alone, and the heads without E):
    a layout computes everything they compute at the same depth, and their type automata are
    far smaller (hybrid-1 ⊇ global: TOMITA-7 needs 4 layers of P, found long before the
    depth-4 automaton of P,Y)."""
    ops = fragment.operators
    out = [Fragment(heads=(h,), hubs=fragment.hubs, exact=fragment.exact) for h in ops]
    if fragment.summary and len(ops) > 1:
        out.append(replace(fragment, summary=False))
    return [f for f in dict.fromkeys(out) if f != fragment]


def _types_bound(
    dfa: DFA, fragment: Fragment, max_depth: int, max_states: int
) -> tuple[int | None, TypeMachine | None, dict[int, tuple[Word, Word]], bool, str]:
    """(least layered depth r whose EOS key decides L, its machine, the conflicting pair at each
    depth below, whether the types stopped refining with a conflict, the bound hit)."""
    machines, cut = layered_ladder(fragment, dfa.n_symbols, max_depth, max_states)
    pairs: dict[int, tuple[Word, Word]] = {}
    for i, machine in enumerate(machines):
        try:
            pair = check_depth(machine, dfa, max_nodes=10 * max_states)
        except StateExplosionError:
            return None, None, pairs, False, f"product bound at depth {machine.depth}"
        if pair is None:
            return machine.depth, machine, pairs, False, ""
        pairs[machine.depth] = pair if dfa.accepts(pair[0]) else (pair[1], pair[0])
        if i + 1 < len(machines) and machines[i + 1].n_types == machine.n_types:
            return None, None, pairs, True, ""
    depth = len(machines) - 1
    bound = f"state bound at depth {depth + 1}" if cut else f"depth bound {max_depth}"
    return None, None, pairs, False, bound


def minimal_depth(
    dfa: DFA,
    layout: str,
    verdict: LayoutVerdict | None = None,
    *,
    formulas: Sequence[s.Formula] = (),
    max_depth: int = 6,
    max_states: int = DEPTH_STATES,
    n_heads: int = N_HEADS,
    seeds: Sequence[int] = SEEDS,
) -> MinimalDepth:
    """d*(L(dfa), layout), with proof and certificate (see the module docstring).

    ``dfa`` should be minimal (`classify.one_letter_per_action` keeps it cheap); ``verdict``:
    the unbounded answer, if known ("no" settles "not at any depth"); ``formulas``: candidate
    formulas for an explicit proof (kept when they are in the layout's operators and define L).
    ``max_depth``/``max_states`` bound the type automata; random keys are checked for ``seeds``.
    """
    fragment = layout_fragment(layout)
    if verdict is not None and verdict.status == "no":
        return MinimalDepth(layout, 0, None, never=True)
    upper: int | None = None
    proof: DepthProof | None = None
    pairs: dict[int, tuple[Word, Word]] = {}
    bound = ""
    if fragment.hubs <= 1:
        r, machine, pairs, stable, bound = _types_bound(dfa, fragment, max_depth, max_states)
        if stable and fragment.exact and not fragment.summary:
            return MinimalDepth(layout, 0, None, never=True, bound="the types stopped refining")
        if stable:
            bound = ("the seed-free part's types stopped refining: no seed-uniform proof at "
                     "any depth" if not fragment.exact else "the E-free types stopped refining")
        if r is not None and machine is not None:
            extra = SUMMARY_LAYERS if fragment.summary else 0
            upper = r + extra
            proof = DepthProof(layout, upper, r, bool(extra), machine.n_states)
        for part in _parts(fragment):
            r0, m0, _, _, _ = _types_bound(dfa, part, max_depth, max_states)
            if r0 is not None and m0 is not None and (upper is None or r0 < upper):
                upper, proof = r0, DepthProof(layout, r0, r0, False, m0.n_states, part=str(part))
    else:
        bound = f"the {fragment.hubs - 1} hub tokens are not modelled by the layered types"
    if verdict is not None and verdict.status == "yes" and verdict.depth is not None and (
            fragment.hubs <= 1):  # formula depth r (flags at depth 0) ⊆ layered depth r + 1
        via = verdict.depth + 1 + (SUMMARY_LAYERS if fragment.summary else 0)
        if upper is None or via < upper:
            upper = via
            proof = DepthProof(layout, via, verdict.depth + 1, fragment.summary, part=(
                f"{fragment} (from its depth-{verdict.depth} formula types, whose empty-row "
                "flags cost one layer)"))
    kappa = verdict.witness if verdict is not None and verdict.status == "yes" else None
    if isinstance(kappa, PrefixContent | WindowSets) and (upper is None or kappa.layers < upper):
        upper = kappa.layers  # docs/theory.md §17, Theorems 17.3 and 17.5
        proof = DepthProof(layout, upper, part=f"{fragment}: {kappa.describe()}")
        if not fragment.exact:
            bound = "random keys: a lower bound holds only per seed"
    explicit = _formula_bound(dfa, fragment, formulas) if formulas else None
    if explicit is not None and (upper is None or explicit[0] <= upper):
        if upper is None or explicit[0] < upper:
            proof = DepthProof(layout, explicit[0], formula=explicit[1])
        else:
            proof = replace(proof, formula=explicit[1]) if proof else None
        upper = explicit[0]
    use_seeds = tuple(seeds) if not fragment.exact else (0,)
    certificate = _certificate(dfa, layout, fragment, upper, pairs, max_depth, n_heads,
                               use_seeds)
    lower = certificate.depth + 1 if certificate is not None else 0
    if upper is not None and lower > upper:  # would contradict the theory: never hide it
        raise AssertionError(f"{layout}: certificate at depth {lower - 1} beyond proof {upper}")
    return MinimalDepth(layout, lower, upper, proof=proof, certificate=certificate,
                        bound=bound, uniform=fragment.exact)


def _certificate(
    dfa: DFA, layout: str, fragment: Fragment, upper: int | None,
    pairs: dict[int, tuple[Word, Word]], max_depth: int, n_heads: int, seeds: tuple[int, ...],
) -> DepthCertificate | None:
    """The deepest raw-mask certificate below ``upper`` (or up to ``max_depth``): the type
    automaton's pair where it re-checks on the masks, else a conflict among short words."""
    if upper is not None:
        top = upper - 1
    elif not fragment.exact:
        return None  # random keys without a proof: nothing seed-uniform to bound (bounded work)
    else:
        top = min(max_depth, max(pairs, default=0) + (SUMMARY_LAYERS if fragment.summary else 0))
    for d in range(top, -1, -1):
        if d in pairs:
            cert = DepthCertificate(layout, d, pairs[d], seeds, n_heads)
            if cert.check(dfa):
                return cert
        if not fragment.exact and d < top:
            break  # random keys: one search per seed, at the deepest depth only (bounded work)
        for seed in seeds:
            pair = layer_conflict(dfa, layout, d, n_heads=n_heads, seed=seed)
            if pair is not None and (cert := DepthCertificate(layout, d, pair, seeds,
                                                              n_heads)).check(dfa):
                return cert
    return None


def depth_layouts(classification: Classification) -> list[LayoutVerdict]:
    """The recognizers of a classification that are NoPE model layouts (every layout except
    unique hard attention and the periodic ones, whose depth is not modelled here)."""
    return [r for r in classification.recognizers
            if r.layout != UNIQUE_HARD and not r.layout.endswith(PERIODIC)]


def minimal_depths(
    classification: Classification,
    formulas: Sequence[s.Formula] = (),
    *,
    max_depth: int = 6,
    max_states: int = DEPTH_STATES,
    n_heads: int = N_HEADS,
) -> tuple[MinimalDepth, ...]:
    """`minimal_depth` for every model layout of ``classification`` (`depth_layouts`), with
    ``formulas`` and the classification's synthesized formulas as candidate proofs."""
    full = classification.dfa
    candidates = list(formulas)
    for _, text in classification.formulas:
        try:
            candidates.append(parse(text, full.alphabet))
        except ExpressivityError:
            continue  # "(not synthesized: ...)"
    dfa = one_letter_per_action(minimize(full))
    return tuple(
        minimal_depth(dfa, r.layout, r, formulas=candidates, max_depth=max_depth,
                      max_states=max_states, n_heads=n_heads)
        for r in depth_layouts(classification)
    )
