"""S4D constructions (docs/theory.md §16.5): time-invariant SD/SDC recognizers vs the DFA."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expressivity.alphabet import Alphabet
from expressivity.errors import UnsupportedFragmentError
from expressivity.extraction.agreement import check_agreement
from expressivity.logic.parser import parse
from expressivity.logic.syntax import Formula
from expressivity.models.config import S4DOutput
from expressivity.models.construct import construct, construct_language
from expressivity.models.construct.diagonal import (
    GATE_OPEN,
    GELU_ONE,
    PREV_GATE,
    build_diagonal_model,
    exact_length,
    mobius,
)
from expressivity.models.construct.mixer_plan import plan_formula
from expressivity.models.ssm.mixers import DiagonalSSM
from tests.logic.strategies import formulas
from tests.models.construct.agree import built_agrees_on_short_words

AB = Alphabet(("a", "b"))

# (language, alphabet, layout, whether a 1-local head must be used)
CASES = [
    ("LT-1", None, "s4d", False),
    ("PT-2", None, "s4d", False),
    ("LT-2", None, "SD", False),
    ("LDP-1", None, "s4d", False),
    ("TOMITA-2", None, "SDC", False),
    ("DYCK-(1,1)", None, "s4d", False),
    ("SUFFIX-ab", None, "SDC", False),
    ("P(b & Y a) & !P(c & Y^2 a)", "a,b,c", "SD", False),
    ("P(b & Y a)", "a,b,c", "SD,L1", True),
]


def _with_scan(model: torch.nn.Module, scan: str) -> None:
    model.config = model.config.replace(ssm_scan=scan)
    for block in model.blocks:
        block.attn.config = model.config


#: each output map (Theorem 16.4's "linear", Corollary 16.6's "gelu-glu") with the scans it is
#: checked under
SCANS = {"linear": ("chunked", "parallel", "sequential"), "gelu-glu": ("chunked", "fused")}


@pytest.mark.parametrize("output", sorted(SCANS))
@pytest.mark.parametrize(("text", "alphabet", "layout", "local"), CASES)
def test_constructions_agree_with_the_dfa(text: str, alphabet: str | None, layout: str,
                                          local: bool, output: S4DOutput) -> None:
    cm, source = construct_language(text, alphabet, layout, s4d_output=output)
    patterns = {h.pattern for h in cm.heads}
    assert ("L1" in patterns) == local
    mixers = [m for b in cm.model.blocks for m in b.attn.mixers]
    assert mixers and all(isinstance(m, DiagonalSSM) for m in mixers)
    assert all(m.complex == (layout == "SDC") and m.output == output for m in mixers)
    for scan in SCANS[output]:
        _with_scan(cm.model, scan)
        check = check_agreement(cm.model, source.dfa, up_to=8, n_random=48, max_length=1200,
                                seed=5)
        assert check.agrees, (scan, check)


@pytest.mark.parametrize("output", sorted(SCANS))
def test_long_random_words_agree(output: S4DOutput) -> None:
    """The counts of P and the delays of Y hold far beyond any training length."""
    for name in ("LT-2", "LDP-1", "DYCK-(1,1)"):
        cm, source = construct_language(name, None, "s4d", s4d_output=output)
        check = check_agreement(cm.model, source.dfa, up_to=0, n_random=8, max_length=4096,
                                seed=2)
        assert check.agrees, (name, check)


@pytest.mark.parametrize("output", sorted(SCANS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(phi=formulas(("a", "b"), ("P", "H", "Y"), max_depth=2, max_height=4))
def test_random_ltl_p_y_formulas_agree_on_every_short_word(phi: Formula,
                                                           output: S4DOutput) -> None:
    """Every LTL[P,Y] formula is built with SD (Theorem 16.4, Corollary 16.6 with S4D's
    output map); the decision is the DFA's."""
    assert built_agrees_on_short_words(phi, AB, "s4d", 7, s4d_output=output), phi


@settings(max_examples=40, deadline=None)
@given(values=st.integers(0, 3).flatmap(
    lambda n: st.lists(st.booleans(), min_size=1 << n, max_size=1 << n)))
def test_the_mobius_expansion_sums_back_to_every_value(values: list[bool]) -> None:
    mu = mobius(values)
    for z in range(len(values)):
        assert sum(mu[s] for s in range(len(values)) if s & z == s) == int(values[z])


def test_the_float32_facts_the_construction_rests_on() -> None:
    """softplus(32) = 32 and 32 · (1/32) = 1 (the write), exp(−32·e^−40) = 1 (the P gate), and
    the Y gate, read back from the mixer, is within 1 % of 2^−8."""
    step = F.softplus(torch.tensor(32.0))
    assert step.item() == 32.0 and (step * torch.tensor(1 / 32)).item() == 1.0
    assert torch.exp(step * -torch.exp(torch.tensor(-40.0))).item() == 1.0
    cm = construct("Y a", AB, "s4d")
    mixer = cm.model.blocks[0].attn.mixers[0]
    with torch.no_grad():
        assert abs(float(mixer.gate()[0, 0]) / PREV_GATE - 1) < 0.01


def _count_channel(output: S4DOutput) -> tuple[torch.Tensor, torch.Tensor]:
    """The output of "P a"'s channel on a random signal ψ of 3,000 positions (seed 0), beside
    the strict prefix count #{s < t : ψ_s}."""
    cm = construct("P a", AB, "s4d", s4d_output=output)
    mixer = cm.model.blocks[0].attn.mixers[0]
    g = torch.Generator().manual_seed(0)
    psi = (torch.rand(1, 3000, generator=g) < 0.3).float()
    x = torch.zeros(1, 3000, mixer.in_proj.in_features)
    x[0, :, mixer.in_proj.weight[0].nonzero()[0, 0]] = psi[0]
    with torch.no_grad():
        y = mixer(x)[0, :, 0]
    return y, torch.cat([torch.zeros(1), psi[0].cumsum(0)[:-1]])


def test_the_counts_are_exact_integers_at_every_position() -> None:
    """The P channel's output is #{s < t : ψ_s}: an integer, exactly, on a word of 3,000."""
    y, count = _count_channel("linear")
    assert torch.equal(y, count)


def test_since_is_refused_for_a_time_invariant_mixer() -> None:
    with pytest.raises(UnsupportedFragmentError, match="time-invariant"):
        construct("!(!a S b)", AB, "s4d")
    with pytest.raises(UnsupportedFragmentError, match="sign-flipping"):
        construct("mod(2,1)", AB, "SD")


def test_the_builder_refuses_a_plan_with_since_nodes() -> None:
    plan = plan_formula(parse("P a", AB), AB, signed=False)
    assert build_diagonal_model(plan, "SD").model is not None
    since = plan_formula(parse("a S b", AB), AB, signed=False)
    with pytest.raises(ValueError, match="P and Y only"):
        build_diagonal_model(since, "SD")
    with pytest.raises(ValueError, match="kind"):
        build_diagonal_model(plan, "M")


def test_every_word_of_a_three_letter_alphabet_up_to_six() -> None:
    sigma = Alphabet(("a", "b", "c"))
    phi = parse("H(c -> Y a) & P(b & !Y b)", sigma)
    assert built_agrees_on_short_words(phi, sigma, "s4d", 6)
    assert construct(phi, sigma, "s4d").coordinates[:3] == ("one", "bos", "eos")


def test_the_float32_length_bound_of_each_plan() -> None:
    """Counts of letters are exact below 2^24; a count of an FFN signal bounds the length by
    its rounding (Theorem 16.4), beyond every length the checks above use."""
    letters = plan_formula(parse("P a & !P b", AB), AB, signed=False, selective=False)
    assert exact_length(letters) == 2**24 - 1
    delayed = plan_formula(parse("P(b & Y a)", AB), AB, signed=False, selective=False)
    wider = plan_formula(parse("P(b & Y a) & !P(a & Y a) & !P(b & Y b)", AB), AB,
                         signed=False, selective=False)
    assert 4096 < exact_length(wider) <= exact_length(delayed) < 2**24 - 1


def test_the_s4d_output_reads_a_count_as_a_node() -> None:
    """GELU(c)/GELU(1) through an open gate: 0 for a count of 0, at least 1 for every count
    ≥ 1 (exactly 1 at 1), on a word of 3,000 — the bounds Corollary 16.6 uses."""
    y, count = _count_channel("gelu-glu")
    assert torch.all(y[count == 0] == 0)
    assert torch.allclose(y[count == 1], torch.ones(1), atol=1e-6)
    assert torch.all(y[count >= 1] >= 1 - 1e-6)
    assert torch.sigmoid(torch.tensor(GATE_OPEN)).item() == 1.0
    assert abs(F.gelu(torch.tensor(1.0)).item() - GELU_ONE) < 1e-7
