"""Window events (docs/theory.md §16.1): Y^k and P of a window read from the conv taps, 1 layer."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula
from expressivity.extraction.agreement import check_agreement
from expressivity.logic.syntax import And, Formula, Not, Or, Start, Symbol
from expressivity.logic.temporal import Past, Yesterday
from expressivity.models.construct import construct, construct_language
from expressivity.models.construct.minterms import BOS, token_coordinate
from expressivity.models.construct.mixer import WINDOW_K
from expressivity.models.construct.mixer_plan import CONV_TAPS, Op, plan_formula
from expressivity.models.construct.window import token_code
from expressivity.models.ssm.mixers import SelectiveSSM
from tests.models.construct.agree import built_agrees_on_short_words

AB, ABC = Alphabet(("a", "b")), Alphabet(("a", "b", "c"))


def windows(letters: tuple[str, ...]) -> st.SearchStrategy[Formula]:
    """Boolean combinations of the letter at t, start and Y^k of a letter (k ≤ 2): what a
    window reads at t−1 … t−3."""
    atom = st.one_of(st.sampled_from(letters).map(Symbol), st.just(Start()),
                     st.tuples(st.sampled_from(letters), st.integers(1, CONV_TAPS - 1)).map(
                         lambda ak: Yesterday(Symbol(ak[0]), ak[1])))
    return st.recursive(atom, lambda sub: st.one_of(
        sub.map(Not), st.tuples(sub, sub).map(lambda p: And(*p)),
        st.tuples(sub, sub).map(lambda p: Or(*p))), max_leaves=4)


def one_layer(letters: tuple[str, ...]) -> st.SearchStrategy[Formula]:
    """Boolean combinations of P(window) and Y^k of a letter (k ≤ 3)."""
    node = st.one_of(windows(letters).map(Past),
                     st.tuples(st.sampled_from(letters), st.integers(1, CONV_TAPS)).map(
                         lambda ak: Yesterday(Symbol(ak[0]), ak[1])))
    return st.recursive(node, lambda sub: st.one_of(
        sub.map(Not), st.tuples(sub, sub).map(lambda p: And(*p))), max_leaves=3)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(phi=one_layer(("a", "b")), layout=st.sampled_from(["mamba", "mamba-signed"]))
def test_window_formulas_are_one_layer_and_agree_on_every_short_word(phi: Formula,
                                                                      layout: str) -> None:
    assert construct(phi, AB, layout).model.config.n_layers == 1, phi
    assert built_agrees_on_short_words(phi, AB, layout, 7), phi


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(phi=one_layer(("a", "b", "c")))
def test_three_letters_and_long_words_under_every_scan(phi: Formula) -> None:
    model = construct(phi, ABC, "mamba").model
    assert model.config.n_layers == 1, phi
    dfa = compile_formula(phi, ABC)
    for scan in ("fused", "chunked", "sequential"):
        model.config = model.config.replace(ssm_scan=scan)
        for block in model.blocks:
            block.attn.config = model.config
        check = check_agreement(model, dfa, up_to=5, n_random=16, max_length=600, seed=7)
        assert check.agrees, (phi, scan, check)


@pytest.mark.parametrize("language", ["FIRST", "PREFIX-a", "SUFFIX-ab", "TOMITA-2", "TOMITA-4",
                                      "DYCK-(1,1)", "LT-2"])
@pytest.mark.parametrize("kind", ["M", "MS"])
def test_catalogue_languages_read_by_the_taps_take_one_layer(language: str, kind: str) -> None:
    built, source = construct_language(language, None, kind)
    assert built.model.config.n_layers == 1
    assert check_agreement(built.model, source.dfa, up_to=7, n_random=24, max_length=1200,
                           seed=5).agrees


def test_window_codes_are_the_residual_coordinates_the_mixer_reads() -> None:
    """`window.token_code` and the mixer's residual layout agree (the in_proj of a step
    channel multiplies each token coordinate by its index), and the planner's taps are the
    convolution's (width 4: t−1 … t−3)."""
    plan = plan_formula(Past(Symbol("a")), ABC, signed=False)
    for token in [("sym", x) for x in ABC.symbols] + [("eos",)]:
        assert token_code(token, ABC) == token_coordinate(plan, token)
    assert token_code(("bos",), ABC) == BOS and token_code(None, ABC) == 0
    assert SelectiveSSM(4, 4).conv1d.weight.shape[-1] - 1 == CONV_TAPS


def test_s4d_has_no_taps_and_keeps_its_depth() -> None:
    """S4D has no convolution: Theorem 16.4's recognizers are unchanged (§16.5)."""
    assert construct_language("TOMITA-4", None, "s4d")[0].model.config.n_layers == 3
    assert construct_language("FIRST", None, "s4d")[0].model.config.n_layers == 2


def test_the_plan_reads_y_k_at_one_tap_up_to_the_kernel_and_nests_beyond() -> None:
    assert construct(Yesterday(Symbol("a"), CONV_TAPS), AB, "M").model.config.n_layers == 1
    assert construct(Yesterday(Symbol("a"), CONV_TAPS + 1), AB, "M").model.config.n_layers == 2
    plan = plan_formula(Past(And(Symbol("b"), Yesterday(Symbol("a")))), AB, signed=False)
    once = [n for n in plan.nodes if n.op is Op.ONCE]
    assert len(once) == 1 and once[0].window is not None and once[0].window.taps == 2
    # code = code(t−1) + 5·code(t−2), codes: BOS 1, EOS 2, a 3, b 4: "a b" before t is 4 + 15
    assert once[0].window.ranges == ((19, 19),)
    nested = plan_formula(Past(And(Symbol("b"), Past(Symbol("a")))), AB, signed=False)
    assert all(n.window is None for n in nested.nodes)  # P inside: not a window, 2 levels
    assert nested.n_layers == 2
    timeless = plan_formula(Past(And(Symbol("b"), Yesterday(Symbol("a")))), AB, signed=False,
                            selective=False)
    assert all(n.window is None and n.lag == 1 for n in timeless.nodes)


def test_the_steps_a_window_rests_on() -> None:
    """silu(k(y − q + 1)) − silu(k(y − q)) is exactly k for every integer code y ≥ q and
    below 1e−7 in size for y < q: in float32 over every code a window of 3 taps and 8 letters
    reaches, in bfloat16 over the codes below 256 (3 taps over at most 3 letters)."""
    for dtype, top in ((torch.float32, 11**3), (torch.bfloat16, 256)):
        y = torch.arange(0, top, dtype=dtype)
        for q in (1, 2, 19, top // 2, top - 1):
            step = F.silu(WINDOW_K * (y - q + 1)) - F.silu(WINDOW_K * (y - q))
            assert bool((step[q:] == WINDOW_K).all()), (dtype, q)
            assert float(step[:q].abs().max()) < 1e-7, (dtype, q)
