"""Minimal depth d*: layered types vs the raw masks, random formulas of known depth never get a
larger d*, every certificate re-checks on the masks, and constructions at d* agree with the DFA
(docs/theory.md §8)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from expressivity.algebra.classify import classify, one_letter_per_action
from expressivity.algebra.patterns import layout_fragment
from expressivity.algebra.type_automata import type_machines
from expressivity.automata.compile import compile_formula
from expressivity.automata.ops import minimize
from expressivity.extraction.agreement import all_words, compare
from expressivity.logic import syntax as s
from expressivity.logic import temporal as tl
from expressivity.logic.parser import parse
from expressivity.models.construct.build import construct
from expressivity.models.depth import (
    SEEDS,
    MinimalDepth,
    depth_dict,
    depth_table,
    layer_depth,
    minimal_depth,
    minimal_depths,
    seed_certificates,
)
from expressivity.models.layer_types import (
    Interner,
    agree_after,
    eos_layer_type,
    layer_layout,
    layer_types,
)
from expressivity.resolve import resolve
from tests.algebra.helpers import AB
from tests.algebra.pattern_helpers import formula_depth, formula_dfa, random_formula, words

HUB_FREE = ["global", "local-1", "local-2", "hybrid-1", "hybrid-2", "dilated-2-2", "block-3",
            "L1+B3", "4xG,4xD2.2"]


def _eos_key(machine, word, alphabet):
    m = 0
    for sym in word:
        m = machine.delta[m, alphabet.index(sym)]
    return int(machine.out[m, len(alphabet)])


@pytest.mark.parametrize("layout", HUB_FREE)
def test_layered_types_are_the_raw_mask_types(layout):
    """What one layer adds: after d layers of the model's masks two words share their EOS
    type exactly when the layered depth-d type automaton says so (words ≤ 6 over {a,b})."""
    fragment = layout_fragment(layout)
    ws = words("ab", 6)
    top = 2 if layout.startswith("hybrid") or "G" in layout else 3
    for machine in type_machines(fragment, 2, max_depth=top, layered=True):
        ours = [_eos_key(machine, w, AB) for w in ws]
        if machine.depth == 0:
            assert len(set(ours)) == 1  # no layer: every EOS looks alike
            continue
        grid = layer_layout(layout, machine.depth)
        intern = Interner()
        masked = [eos_layer_type(w, grid, intern) for w in ws]
        for i, j in itertools.combinations(range(0, len(ws), 3), 2):
            assert (ours[i] == ours[j]) == (masked[i] == masked[j]), (layout, ws[i], ws[j])


def test_layer_types_refine_with_depth_and_start_costs_a_layer():
    grid, intern = layer_layout("global", 1), Interner()
    # one layer: the first letter is not known (b·a and a·b read the same set)
    assert eos_layer_type(("b", "a"), grid, intern) == eos_layer_type(("a", "b"), grid, intern)
    assert eos_layer_type(("a", "a"), grid, intern) != eos_layer_type(("b", "b"), grid, intern)
    assert agree_after(("b", "a"), ("a", "b"), "global", 1)
    assert not agree_after(("b", "a"), ("a", "b"), "global", 2)
    types = layer_types(("a", "b"), layer_layout("global", 3))
    assert len(types) == 4 and all(len(t) == 4 for t in types)


@pytest.mark.parametrize(("text", "layers"), [
    ("P b", 1), ("P(b & start)", 2), ("start", 1), ("Y^3 a", 3), ("Y<=2 (a & Y<=2 b)", 2),
    ("!P(a & P(b & P(a & P b)))", 4), ("eos | a", 0),
])
def test_layer_depth_counts_start_and_powers(text, layers):
    assert layer_depth(parse(text, AB)) == layers


def _md(text: str, layout: str, alphabet: str | None = None, extra: tuple[str, ...] = (),
        **kw) -> tuple[MinimalDepth, object]:
    src = resolve(text, alphabet)
    c = classify(src.dfa, (1, 2), layouts=[layout], synthesize=False)
    dfa = one_letter_per_action(minimize(src.dfa))
    formulas = [src.language.parsed_formula()] if src.language and src.language.formula else []
    formulas += [parse(f, src.dfa.alphabet) for f in extra]
    return minimal_depth(dfa, layout, c.recognizer(layout), formulas=formulas, **kw), src.dfa


@pytest.mark.parametrize(("language", "layout", "depth"), [
    ("TOMITA-7", "global", 4), ("PT-2", "global", 2), ("FIRST", "global", 2),
    ("LAST", "local-1", 1), ("DYCK-(1,1)", "hybrid-1", 2), ("TOMITA-4", "hybrid-1", 3),
    ("LT-2", "hybrid-1", 2), ("FIRST", "longformer-2-1", 3),
])
def test_catalogue_depths_with_proof_and_certificate(language, layout, depth):
    md, dfa = _md(language, layout)
    assert md.status == "exact" and md.depth == depth, md.describe()
    assert md.proof is not None and md.proof.depth == depth
    assert md.certificate is not None and md.certificate.depth == depth - 1
    assert md.certificate.check(dfa)  # u ∈ L, v ∉ L, one EOS type after d − 1 layers
    assert md.at(depth) == "yes" and md.at(depth + 3) == "yes" and md.at(depth - 1) == "no"


def test_tomita7_needs_four_global_layers_and_its_construction_has_four():
    md, dfa = _md("TOMITA-7", "global", extra=("!P(a & P(b & P(a & P b)))",))
    assert md.proof is not None and md.proof.formula is not None
    model = construct(md.proof.formula, "a,b")
    assert model.n_layers == 4
    codes, lengths = all_words(2, 8)
    assert compare(model.model, dfa, codes, lengths).agrees


def test_never_and_unknown():
    md, _ = _md("LAST", "global")
    assert md.status == "never" and md.at(9) == "no" and md.text() == "∞"
    md, _ = _md("LT-2", "bigbird-2-2-1")
    assert md.status == "unknown" and md.at(2) in ("unknown", "yes")


# ---------------------------------------------------------------- random formulas

def _syntax_formula(rng: np.random.Generator, ops: str, depth: int) -> s.Formula:
    """A random past formula over {a,b} with operators from ``ops`` ("P", "Y", "W" = Y<=2)
    and at most ``depth`` layers (`layer_depth`)."""
    roll = rng.random()
    if depth == 0 or roll < 0.2:
        atoms: list[s.Formula] = [s.Symbol("a"), s.Symbol("b"), s.Top()]
        if depth >= 1:
            atoms.append(s.Start())
        return atoms[int(rng.integers(len(atoms)))]
    if roll < 0.35:
        return s.Not(_syntax_formula(rng, ops, depth))
    if roll < 0.55:
        cls = s.And if rng.random() < 0.5 else s.Or
        return cls(_syntax_formula(rng, ops, depth), _syntax_formula(rng, ops, depth - 1))
    op = ops[int(rng.integers(len(ops)))]
    inner = _syntax_formula(rng, ops, depth - 1)
    return tl.Past(inner) if op == "P" else tl.Yesterday(inner) if op == "Y" else tl.BoundedPast(
        inner, 2)


@pytest.mark.parametrize(("layout", "ops"), [("global", "P"), ("local-1", "Y"),
                                             ("hybrid-1", "PY"), ("hybrid-2", "PW")])
def test_random_formulas_never_need_more_layers_than_their_depth(layout, ops):
    rng = np.random.default_rng(31)
    checked = 0
    for _ in range(12):
        f = _syntax_formula(rng, ops, int(rng.integers(1, 4)))
        d = layer_depth(f)
        dfa = compile_formula(f, AB)
        c = classify(dfa, (1, 2), layouts=[layout], synthesize=False)
        md = minimal_depth(one_letter_per_action(dfa), layout, c.recognizer(layout),
                           formulas=[f], max_depth=4, max_states=5000)
        assert md.status != "never", (f, md.describe())
        assert md.upper is not None and md.upper <= d, (f, d, md.describe())
        assert md.lower <= md.upper
        if md.certificate is not None:
            assert md.certificate.check(dfa), (f, md.certificate)
        if md.depth == d:  # the formula itself is a construction at d*
            model = construct(f, "a,b", layout)  # a model has at least one layer
            assert md.lower <= model.n_layers <= max(d, 1)  # fewer than d* would refute §8
            codes, lengths = all_words(2, 6)
            assert compare(model.model, dfa, codes, lengths).agrees, f
            checked += 1
    assert checked >= 1


def _tuple_layers(f) -> int:
    """Layers of a `pattern_helpers` formula: a head is one layer, an empty-row atom too."""
    inner = max((_tuple_layers(c) for c in f[1:] if isinstance(c, tuple)), default=0)
    return inner + (f[0] == "dia") + (f[0] == "empty" and 1)


@pytest.mark.parametrize("layout", ["dilated-2-2", "block-3", "L1+B3"])
def test_random_head_formulas_never_need_more_layers(layout):
    fragment = layout_fragment(layout)
    rng = np.random.default_rng(8)
    for _ in range(10):
        f = random_formula(rng, fragment, "ab", int(rng.integers(1, 3)))
        d = _tuple_layers(f)
        dfa = formula_dfa(f, fragment, AB, formula_depth(f))
        c = classify(dfa, (1,), layouts=[layout], synthesize=False)
        md = minimal_depth(one_letter_per_action(dfa), layout, c.recognizer(layout),
                           max_depth=4, max_states=5000)
        assert md.status != "never" and md.upper is not None and md.upper <= d, (f, md)
        if md.certificate is not None:
            assert md.certificate.check(dfa), (f, md.certificate)


@pytest.mark.parametrize(("text", "sigma"), [("LAST", None), ("PARITY", None), ("Y a", "a,b")])
def test_per_seed_certificates_hold_for_their_seed_and_size(text, sigma):
    """Random keys (docs/theory.md §17): a per-seed "no at exactly L layers" re-checks on that
    seed's masks at that size; the seed-uniform answer stays unknown in the table and JSON."""
    dfa = resolve(text, sigma).dfa
    found = seed_certificates(dfa, "bigbird-2-2-1", 2, n_heads=2)
    assert set(found) == set(SEEDS)
    for seed, cert in found.items():
        if cert is None:
            continue
        assert cert.seeds == (seed,) and cert.depth == 2 and cert.check(dfa)
        u, v = cert.words
        assert agree_after(u, v, "bigbird-2-2-1", 2, n_heads=2, seed=seed)
    c = classify(dfa, (1,), layouts=["bigbird-2-2-1"], synthesize=False)
    depths = minimal_depths(c, max_depth=3, max_states=2_000, n_heads=2)
    (md,) = [d for d in depths if d.layout == "bigbird-2-2-1"]
    assert md.at(2) == "unknown"
    row = depth_dict(c, depths, 2, n_heads=2)["layouts"]["bigbird-2-2-1"]
    assert row["at_depth"] == "unknown" and set(row["per_seed"]) == {str(s) for s in SEEDS}
    assert "other seeds: unknown" in depth_table(c, depths, 2, n_heads=2)
