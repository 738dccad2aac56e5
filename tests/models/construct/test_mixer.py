"""SSM constructions: real `Recognizer` models with M/MS mixers (and 1-local heads) vs the DFA."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from expressivity.alphabet import Alphabet
from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.extraction.agreement import check_agreement
from expressivity.logic.syntax import Formula
from expressivity.models.construct import construct, construct_language
from expressivity.models.construct.mixer_plan import Op, parity_plan
from expressivity.models.ssm.mixers import SelectiveSSM
from expressivity.resolve import resolve
from tests.logic.strategies import formulas
from tests.models.construct.agree import built_agrees_on_short_words

AB = Alphabet(("a", "b"))

# (language, alphabet, layout, SSM atom, whether a 1-local head must be used)
CASES = [
    ("PARITY", None, "mamba-signed", "MS", False),
    ("re:(a a)*", "a", "MS", "MS", False),
    ("!P b & mod(2,1)", "a,b", "MS", "MS", False),  # (aa)* over {a, b}
    ("EVEN-LENGTH", None, "mamba-signed", "MS", False),
    ("P(b & Y a)", "a,b,c", "mamba", "M", False),  # Σ*abΣ*, star-free
    ("DYCK-(1,1)", None, "mamba", "M", False),
    ("!(!a S b)", "a,b,c", "M", "M", False),
    ("mod(2,1) & Y a", "a,b", "MS,L1", "MS", True),  # (Σ²)*·Σa: a flip channel + a Y head
    ("P(b & Y a)", "a,b,c", "M,L1", "M", True),
]


@pytest.mark.parametrize(("text", "alphabet", "layout", "kind", "local"), CASES)
def test_constructions_agree_with_the_dfa(text: str, alphabet: str | None, layout: str,
                                          kind: str, local: bool) -> None:
    cm, source = construct_language(text, alphabet, layout)
    patterns = {h.pattern for h in cm.heads}
    assert kind in patterns and ("L1" in patterns) == local
    mixers = [m for b in cm.model.blocks for m in b.attn.mixers]
    assert mixers and all(isinstance(m, SelectiveSSM) and m.signed == (kind == "MS")
                          for m in mixers)
    for scan in ("chunked", "parallel", "sequential"):
        cm.model.config = cm.model.config.replace(ssm_scan=scan)
        for block in cm.model.blocks:
            block.attn.config = cm.model.config
        check = check_agreement(cm.model, source.dfa, up_to=8, n_random=48, max_length=1200,
                                seed=3)
        assert check.agrees, (scan, check)


def test_long_random_words_agree() -> None:
    cm, source = construct_language("PARITY", None, "mamba-signed")
    check = check_agreement(cm.model, source.dfa, up_to=0, n_random=8, max_length=4096, seed=1)
    assert check.agrees
    cm, source = construct_language("DYCK-(1,1)", None, "mamba")
    check = check_agreement(cm.model, source.dfa, up_to=0, n_random=8, max_length=4096, seed=2)
    assert check.agrees


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(phi=formulas(("a", "b"), ("P", "H", "Y", "S"), max_depth=2, max_height=4))
def test_random_past_formulas_with_m_agree_on_every_short_word(phi: Formula) -> None:
    """Every pure-past formula (star-free) is built with M; the EOS decision is the DFA's."""
    assert built_agrees_on_short_words(phi, AB, "mamba", 6), phi


def test_the_parity_plan_reads_only_commuting_involutions() -> None:
    plan = parity_plan(resolve("PARITY").dfa)
    assert plan is not None and [n.op for n in plan.nodes] == [Op.FLIP]
    assert parity_plan(resolve("LT-2").dfa) is None
    assert parity_plan(resolve("TOMITA-6").dfa) is None  # Z3: no involution


@pytest.mark.parametrize(("text", "alphabet", "layout", "match"), [
    ("PARITY", None, "mamba", "sign-flipping"),
    ("mod(2,1)", "a,b", "M", "sign-flipping"),
    ("mod(3,1)", "a,b", "MS", "only mod\\(2,r\\)"),
    ("TOMITA-6", None, "mamba-signed", "cannot synthesize"),
])
def test_what_cannot_be_built_is_refused_with_the_reason(text: str, alphabet: str | None,
                                                         layout: str, match: str) -> None:
    with pytest.raises(UnsupportedFragmentError, match=match):
        construct_language(text, alphabet, layout)


def test_future_operators_are_refused() -> None:
    with pytest.raises(UnsupportedFragmentError, match="not a past operator"):
        construct("P(a & F b)", AB, "M")


@pytest.mark.parametrize("layout", ["deltanet", "2xM,2xMS", "2xM,2xSD"])
def test_mixers_without_a_construction_are_config_errors(layout: str) -> None:
    with pytest.raises(ConfigError, match="SSM layouts with one mixer"):
        construct("P a", AB, layout)


def test_a_constructed_ssm_model_saves_and_loads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from expressivity.models.construct import load_constructed

    cm, source = construct_language("PARITY", None, "mamba-signed")
    model = load_constructed(cm.save(tmp_path / "parity.pt"))
    assert check_agreement(model, source.dfa, up_to=8, n_random=8, max_length=300).agrees


def test_the_float32_facts_the_construction_rests_on() -> None:
    """silu(20) = 20, softplus(−200) = 0, softplus(0) = fl(ln 2) with 2e^{−Δ} − 1 = 0 (the MS
    reset), exp(−200) = 0 (the M reset; MS: −1, the flip)."""
    import torch
    import torch.nn.functional as F

    from expressivity.models.ssm.mixers import signed_gate

    assert F.silu(torch.tensor(20.0)).item() == 20.0
    assert F.softplus(torch.tensor(-200.0)).item() == 0.0
    reset = F.softplus(torch.tensor(0.0))
    assert signed_gate(torch.exp(-reset)).item() == 0.0
    assert torch.exp(torch.tensor(-200.0)).item() == 0.0
    assert signed_gate(torch.exp(torch.tensor(-200.0))).item() == -1.0


def test_an_ms_event_on_an_ffn_signal_is_exact_in_float32_not_in_bfloat16() -> None:
    """docs/theory.md §16's checks: the MS event's gate is 0 at Δ = ln 2 only, so PT-2's
    level-2 event (reading an FFN signal) leaks in bfloat16 (shortest word ab); M's event is
    saturated and agrees in every format."""
    ms, source = construct_language("PT-2", None, "mamba-signed")
    m, _ = construct_language("PT-2", None, "mamba")
    for dtype in ("float32", "float16"):
        assert check_agreement(ms.model, source.dfa, up_to=5, n_random=0, dtype=dtype).agrees
    bf16 = check_agreement(ms.model, source.dfa, up_to=5, n_random=0, dtype="bfloat16")
    assert not bf16.agrees and bf16.first is not None and len(bf16.first) == 2
    assert check_agreement(m.model, source.dfa, up_to=5, n_random=0, dtype="bfloat16").agrees
