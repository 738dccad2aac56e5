"""Hand-weighted transformers from LTL[P,Y^{≤k}] formulas: catalogue, coordinates, layouts."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings

from expressivity.algebra.varieties import is_locally_r_trivial
from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula
from expressivity.automata.ops import equivalent
from expressivity.catalogue import Language, load_catalogue
from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.extraction.agreement import (
    all_words,
    balanced_words,
    check_agreement,
    compare,
)
from expressivity.logic.parser import parse
from expressivity.logic.syntax import Formula
from expressivity.logic.vectorized import truth_table
from expressivity.models import Recognizer
from expressivity.models.construct import construct, construct_language
from expressivity.models.tokens import encode_batch
from tests.logic.strategies import formulas

#: LTL[P,Y] formulas for catalogue languages that have none (and no LTL[P]/LTL[Y] synthesis).
HAND_FORMULAS = {
    "TOMITA-2": "start | (Y a & P(b & start) & !P(b & Y b) & !P(a & Y a))",
    # its catalogue formula uses MOD predicates (built with periodic RoPE in
    # test_construct_periodic.py); this one is the NoPE LTL[P,Y] formula
    "DYCK-(1,1)-3": "start | (Y b & P(a & start) & !P(a & Y a) & !P(b & Y b) & !P c)",
}
MAX_EXHAUSTIVE = 100_000  # words per language in the default suite (|Σ| = 6 stops at length 6)


def _locally_r_trivial() -> list[Language]:
    langs = [lang for lang in load_catalogue().values() if lang.nonregular is None]
    return sorted((lang for lang in langs if is_locally_r_trivial(lang.dfa()) is True),
                  key=lambda lang: lang.name)


LR = _locally_r_trivial()


def _built(lang: Language):  # type: ignore[no-untyped-def]
    if lang.name in HAND_FORMULAS:
        formula = parse(HAND_FORMULAS[lang.name], lang.alphabet)
        assert equivalent(compile_formula(formula, lang.alphabet), lang.dfa())
        return construct(formula, lang.alphabet)
    return construct_language(lang.name)[0]


def test_the_catalogue_has_the_expected_ltl_p_y_languages() -> None:
    names = {lang.name for lang in LR}
    assert {"FIRST", "LT-1", "PT-2", "LDP-1", "LDP-2", "LAST", "LT-2", "DYCK-(1,1)", "SUFFIX-a",
            "SUFFIX-ab", "PREFIX-a", "RDP-1-3", "TOMITA-1", "TOMITA-4"} <= names
    assert not names & {"PARITY", "DYCK-(1,2)", "RDP-1"}


@pytest.mark.parametrize("lang", LR, ids=lambda lang: lang.name)
def test_catalogue_language_matches_its_dfa(lang: Language) -> None:
    """Every word up to length 8 (up to 6 for |Σ| = 6), and 16 words of each of 8 lengths up
    to 500, half members and half non-members, in float32."""
    cm = _built(lang)
    dfa = lang.dfa()
    s, up_to = len(lang.alphabet), 8
    while sum(s**n for n in range(up_to + 1)) > MAX_EXHAUSTIVE:
        up_to -= 1
    short = check_agreement(cm.model, dfa, up_to=up_to, n_random=8, max_length=500)
    assert short.agrees, f"{lang.name}: disagrees on {short.first}\n{cm.summary()}"
    codes, lengths = balanced_words(dfa, np.linspace(9, 500, 8).astype(int), 16,
                                    np.random.default_rng(0))
    long = compare(cm.model, dfa, codes, lengths)
    assert long.agrees, f"{lang.name}: disagrees on {long.first}"


def test_inputs_beyond_1024_tokens_use_the_banded_kernel_and_still_agree() -> None:
    for name in ("SUFFIX-ab", "DYCK-(1,1)"):
        cm, source = construct_language(name)
        assert cm.config.kernel == "auto" and cm.config.banded_min_len <= 1100
        codes, lengths = balanced_words(source.dfa, np.array([1100, 1500]), 2,
                                        np.random.default_rng(0))
        assert compare(cm.model, source.dfa, codes, lengths).agrees


@pytest.mark.slow
def test_ldp_2_matches_its_dfa_on_every_word_up_to_length_7_and_long_random_words() -> None:
    # all words up to 8 over LDP-2's alphabet exceed extraction.agreement.MAX_ALL_WORDS
    lang = load_catalogue()["LDP-2"]
    assert check_agreement(_built(lang).model, lang.dfa(), up_to=7, n_random=64).agrees


def _coordinate_values(cm, words: list[np.ndarray]):  # type: ignore[no-untyped-def]
    tokens, lengths = encode_batch(words, len(cm.alphabet))
    with torch.no_grad():
        return cm.model.forward_hidden(tokens, lengths)[-1], lengths


def _check_coordinates(formula: Formula, sigma: Alphabet, words: list[np.ndarray]) -> None:
    """Each materialized coordinate is exactly the truth of its subformula, and 0 at BOS."""
    cm = construct(formula, sigma)
    hidden, lengths = _coordinate_values(cm, words)
    for c, name in enumerate(cm.coordinates):
        if name.startswith("attn[") or name == "bos":
            continue
        sub = parse("true" if name == "top" else name, sigma)
        for b, word in enumerate(words):
            n = int(lengths[b])
            got = hidden[b, : n + 2, c].numpy()
            want = np.concatenate([[False], truth_table(sub, word, sigma)])
            assert np.array_equal(got, want.astype(np.float32)), (formula, name, word)


def test_coordinates_hold_exact_truth_values_of_their_subformulas() -> None:
    sigma = Alphabet(("a", "b"))
    formula = parse("start | (Y b & P(a & start) & !P(a & Y a) & !P(b & Y b)) | H(a <-> Y b)"
                    " | Y<=2 (P b -> Y^2 a)", sigma)
    rng = np.random.default_rng(1)
    _check_coordinates(formula, sigma, [rng.integers(0, 2, size=n) for n in range(0, 40, 3)])


@settings(max_examples=40)
@given(formulas(("a", "b"), ("P", "H", "Y", "Y^k", "Y<=k"), max_depth=2, max_height=4))
def test_coordinates_are_exact_on_random_formulas(formula: Formula) -> None:
    rng = np.random.default_rng(0)
    words = [rng.integers(0, 2, size=n) for n in (0, 1, 2, 5, 17)]
    _check_coordinates(formula, Alphabet(("a", "b")), words)


def test_layers_grow_with_operator_depth_not_with_size() -> None:
    sigma = Alphabet(("a", "b", "c"))
    wide = " & ".join(f"(P {x} | !Y {y})" for x in "abc" for y in "abc")
    assert construct(wide, sigma).n_layers <= 2
    deep = "P(a & P(b & P(c & P a)))"
    assert construct(deep, sigma).n_layers == 4
    assert construct("P a", sigma).n_layers == 1
    assert construct("Y b & Y^2 a", sigma).n_layers == 2  # Y^2 = Y Y


@pytest.mark.parametrize(
    ("text", "operator", "fragment"),
    [("a S b", "S", "LTL[S]"), ("P(a & !F b)", "F", "LTL[P,F]"), ("X a", "X", "LTL[U]"),
     ("a U b", "U", "LTL[U]"), ("G a | P b", "F", "LTL[P,F]"), ("WX a", "X", "LTL[U]")],
)
def test_formulas_outside_the_fragment_are_refused(text: str, operator: str, fragment: str) -> None:
    with pytest.raises(UnsupportedFragmentError) as err:
        construct(text, "a,b")
    assert f"needs {operator}" in str(err.value)
    assert fragment in str(err.value)


def test_layouts_restrict_the_heads() -> None:
    sigma = Alphabet(("a", "b"))
    assert "L" not in construct("P(a & !P b) | start", sigma, "global").layout
    assert "G" not in construct("Y<=2 a & !Y<=2 (b & start)", sigma, "local-2").layout
    mixed = construct("P(b & Y<=2 a)", sigma, "hybrid-2").layout
    assert "G" in mixed and "L2" in mixed and "L1" not in mixed
    assert "L3" not in construct("Y<=3 a", sigma, "local-1").layout
    with pytest.raises(UnsupportedFragmentError, match="needs Y"):
        construct("Y a", sigma, "global")
    with pytest.raises(UnsupportedFragmentError, match="needs P"):
        construct("P a", sigma, "local-2")
    with pytest.raises(UnsupportedFragmentError, match="needs Y"):
        construct("Y a & P b", sigma, "hybrid-2")  # Y a is not LTL[P,Y^{≤2}] [LC26]
    with pytest.raises(ConfigError):
        construct("P a", sigma, "bigbird-1-1-1")


def test_bounded_past_becomes_yesterdays_with_1_local_heads() -> None:
    sigma = Alphabet(("a", "b"))
    cm = construct("Y<=3 (a & !Y b)", sigma, "local-1")
    assert {h.pattern for h in cm.heads} == {"L1"}
    dfa = compile_formula(parse("Y<=3 (a & !Y b)", sigma), sigma)
    assert check_agreement(cm.model, dfa, up_to=8, n_random=4, max_length=100).agrees


def test_regex_languages_are_synthesized_then_constructed() -> None:
    for regex, kind in [("re:a b (a|b)*", "G"), ("re:(a|b)* a b a", "L1"), ("re:b* a (a|b)*", "G")]:
        cm, source = construct_language(regex, "a,b")
        assert source.formula is None and {h.pattern for h in cm.heads} == {kind}
        assert check_agreement(cm.model, source.dfa, up_to=8, n_random=4, max_length=200).agrees
    with pytest.raises(UnsupportedFragmentError, match=r"cannot synthesize.*not R-trivial"):
        construct_language("PARITY")


def test_constructed_models_run_through_the_training_evaluation() -> None:
    from expressivity.training.evaluate import length_metrics, longest_perfect_length, predict

    cm, source = construct_language("DYCK-(1,1)")
    assert isinstance(cm.model, Recognizer)
    codes, lengths = balanced_words(source.dfa, np.arange(0, 61), 4, np.random.default_rng(3))
    words = [codes[i, : lengths[i]] for i in range(len(lengths))]
    labels = source.dfa.accepts_codes(codes, lengths)
    pred = predict(cm.model, words, len(source.alphabet), batch_size=64)
    metrics = length_metrics(lengths, labels, pred)
    assert all(m.correct == m.n for m in metrics)
    assert longest_perfect_length(metrics, 0) == 60


def test_saved_models_load_back_identically(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from expressivity.models.construct import load_constructed

    cm = construct("P(b & Y a)", "a,b,c")
    path = cm.save(tmp_path / "lt2.pt")
    loaded = load_constructed(path)
    codes, lengths = all_words(3, 5)
    tokens, ln = encode_batch([codes[i, : lengths[i]] for i in range(len(lengths))], 3)
    with torch.no_grad():
        assert torch.equal(cm.model(tokens, ln), loaded(tokens, ln))
    assert torch.load(path, weights_only=True)["config"]


def test_low_sharpness_shortens_the_agreement_length() -> None:
    """The span of a P head: with one satisfying key among N+1 the head's mass is
    e^λ / (e^λ + N), and the classifier accepts iff it exceeds 1/4, i.e. iff N < 3e^λ:
    22 letters for λ = 2 (the test set has near-boundary words such as b…bab…b; bfloat16 and
    float16 round the mass and may err a little earlier)."""
    from expressivity.extraction.agreement import precision_report

    sigma = Alphabet(("a", "b"))
    dfa = compile_formula(parse("P a", sigma), sigma)
    sharp = precision_report(construct("P a", sigma).model, dfa, max_length=60, per_length=4)
    blunt = precision_report(construct("P a", sigma, sharpness=2.0).model, dfa,
                             max_length=60, per_length=4)
    assert sharp == {"float32": 60, "bfloat16": 60, "float16": 60}
    assert all(20 <= v <= 30 for v in blunt.values()), blunt  # first error soon after 22


def test_report_names_every_head_and_coordinate() -> None:
    cm = construct("P(b & Y a)", "a,b,c")
    assert (cm.n_layers, cm.n_heads, cm.n_active_heads) == (2, 1, 2)
    assert [h.computes for h in cm.heads] == ["Y a", "P(b & Y a)"]
    assert cm.coordinates[cm.coordinate("Y a")] == "Y a"
    with pytest.raises(KeyError):
        cm.coordinate("b & Y a")  # fused into the key of the P head
    assert "classifier" in cm.summary() and cm.n_parameters == cm.model.num_parameters()
