"""`classify`: the catalogue's expected classes, the separations of docs/theory.md, renderings."""

from __future__ import annotations

import json

import pytest

from expressivity.algebra.classify import CLASSES, classify, predicted_recognizers
from expressivity.alphabet import Alphabet
from expressivity.automata.compile import compile_formula
from expressivity.automata.regex import compile_regex
from expressivity.catalogue import load_catalogue
from expressivity.errors import ConfigError
from expressivity.logic.parser import parse
from expressivity.resolve import resolve
from tests.algebra.helpers import AB, ABC

LAYOUTS = ["global", "local-1", "local-2", "local-4", "hybrid-1", "hybrid-2", "hybrid-4"]
PERIODIC_LAYOUTS = ["global+periodic", *(f"hybrid-{k}+periodic" for k in (1, 2, 4))]


def _formula(text: str, sigma: Alphabet):
    return classify(compile_formula(parse(text, sigma), sigma), name=text)


def _regex(text: str, sigma: Alphabet):
    return classify(compile_regex(text, sigma), name=text)


@pytest.fixture(scope="module")
def catalogue():
    return {n: classify(lang.dfa(), name=lang.name) for n, lang in load_catalogue().items()
            if lang.is_regular}


def test_catalogue_expected_classes(catalogue):
    for name, lang in load_catalogue().items():
        if not lang.is_regular:
            continue
        c = catalogue[name]
        for cls, expected in lang.expected_classes.items():
            if cls != "regular":
                assert c.member(cls) == expected, (name, cls, c.verdict(cls))
        assert c.alphabet == lang.alphabet


def test_recognizers_follow_the_classes(catalogue):
    for c in catalogue.values():
        pred = predicted_recognizers(c)
        assert list(pred) == LAYOUTS
        assert pred["global"] == c.member("r_trivial")
        assert pred["local-1"] == c.member("definite")
        assert pred["hybrid-1"] == c.member("locally_r_trivial")
        assert c.recognizer("unique-hard-attention").status == (
            "yes" if c.member("aperiodic") else "no"
        )
        for k in (2, 4):
            if pred[f"local-{k}"]:
                assert pred["local-1"]  # LTL[Y^≤k] ⊆ LTL[Y]
            if pred[f"hybrid-{k}"]:
                assert pred["hybrid-1"]
            if pred["global"]:
                assert pred[f"hybrid-{k}"]


def test_local_and_global_are_incomparable():
    prefix, suffix = _formula("P(a & start)", ABC), _formula("Y a", ABC)
    assert predicted_recognizers(prefix)["global"] and not prefix.member("definite")
    assert predicted_recognizers(suffix)["local-1"] and not suffix.member("r_trivial")


def test_factor_ab_is_ltl_p_over_two_letters_only():
    two, three = _regex(".* a b .*", AB), _regex(".* a b .*", ABC)
    assert two.member("r_trivial") and dict(two.formulas)["LTL[P]"] == "P(P a & b)"
    assert not three.member("r_trivial") and three.member("locally_r_trivial")
    assert "{a,b,c}" in three.to_table()


def test_rdp1_hybrid_class_depends_on_the_alphabet():
    regex = "[^b0]* a [^a b1]*"
    small = _regex(regex, Alphabet(("a", "b0", "b1")))
    large = _regex(regex, Alphabet(("a", "b0", "b1", "c")))
    assert small.member("locally_r_trivial") and not large.member("locally_r_trivial")
    assert small.member("da") and large.member("da")
    assert not small.member("r_trivial") and not large.member("r_trivial")


def test_suffix_a_is_outside_every_bounded_hybrid():
    c = classify(compile_formula(parse("Y a", ABC), ABC), ks=(1, 2, 3, 4))
    assert c.recognizer("local-1").status == "yes" and c.recognizer("hybrid-1").status == "yes"
    for k in (2, 3, 4):
        assert c.recognizer(f"local-{k}").status == "no"
        assert c.recognizer(f"hybrid-{k}").status == "no"


def test_local_k_is_strictly_inside_definite():
    # definite and 2-local: the last letter after a non-empty word, Y⊤ ... and Y<=2 a
    c = _formula("Y<=2 a", ABC)
    assert c.member("definite") and c.recognizer("local-2").status == "yes"
    # definite but not 2-local (Σ*a) was checked above; both are 1-local
    assert c.recognizer("local-1").status == "yes"


def test_dyck_depths_parity_and_star_freeness():
    d11, d12 = _regex("(a b)*", AB), _regex("(a (a b)* b)*", AB)
    assert d11.member("locally_r_trivial") and not d11.member("r_trivial")
    assert d12.member("aperiodic") and not d12.member("locally_r_trivial")
    assert d12.recognizer("unique-hard-attention").status == "yes"
    assert not any(predicted_recognizers(d12).values())
    parity = _regex("a* (b a* b a*)*", AB)
    assert not parity.member("aperiodic") and parity.member("group")
    assert parity.recognizer("unique-hard-attention").status == "no"


def test_renderings(catalogue):
    c = catalogue["LT-2"]
    data = json.loads(c.to_json())
    assert data["alphabet"] == ["a", "b", "c"]
    assert data["classes"]["locally_r_trivial"] == {"member": True, "witness": None}
    assert data["classes"]["r_trivial"]["member"] is False
    assert "identity" in data["classes"]["r_trivial"]["witness"]
    assert set(data["recognizers"]) == {*LAYOUTS, *PERIODIC_LAYOUTS, "unique-hard-attention"}
    row = c.to_row()
    assert row["language"] == "LT-2" and row["alphabet"] == "a,b,c"
    assert all(row[cls] in (True, False) for cls in CLASSES)
    assert row["hybrid-1"] is True and row["global"] is False
    table = c.to_table()
    assert "LT-2 over Σ = {a,b,c}" in table and "hybrid-1" in table
    assert "(xy)^ω x = (xy)^ω" in table
    import pandas as pd

    frame = pd.DataFrame([x.to_row() for x in catalogue.values()])
    assert len(frame) == len(catalogue) and "local-2" in frame.columns


def test_text_is_resolved_at_the_edge_not_by_classify():
    c = classify(resolve("P(b & Y a)", "a,b,c").dfa)
    assert not c.member("r_trivial") and c.member("locally_testable")
    with pytest.raises(ConfigError, match="classify takes a DFA, got str: resolve text first"):
        classify("LT-1")  # type: ignore[arg-type]


def _statuses(c: object) -> tuple[object, ...]:
    verdicts = tuple((cls, v is True) for cls, v in c.verdicts)  # type: ignore[attr-defined]
    recognizers = tuple((r.layout, r.status) for r in c.recognizers)  # type: ignore[attr-defined]
    return verdicts, recognizers


@pytest.mark.parametrize("seed", range(12))
def test_letters_that_act_alike_change_no_verdict(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Classifying on one letter per action (docs/theory.md §3) gives the verdicts of the whole
    alphabet, and its witnesses are words over the whole alphabet that the DFA separates."""
    import importlib

    import numpy as np

    from expressivity.algebra.witnesses import IdentityWitness, check_witness
    from expressivity.automata.dfa import DFA
    from tests.algebra.helpers import random_dfa

    classify_module = importlib.import_module("expressivity.algebra.classify")
    rng = np.random.default_rng(seed)
    small = random_dfa(rng, ABC, max_states=4)
    sigma = Alphabet(("a", "b", "c", "d", "e"))
    copies = [0, 1, 2, int(rng.integers(0, 3)), int(rng.integers(0, 3))]  # d, e act like others
    full = DFA(sigma, small.transitions[:, copies], small.accepting, small.initial)
    layouts = ("dilated-2-2", "block-2", "longformer-1-1")
    reduced = classify(full, (1, 2), layouts=layouts, max_depth=2, synthesize=False)
    kept = classify_module.one_letter_per_action(full).alphabet.symbols
    assert kept[0] == "a" and set(kept) <= {"a", "b", "c"}  # d and e copy a, b or c
    monkeypatch.setattr(classify_module, "one_letter_per_action", lambda d: d)
    whole = classify(full, (1, 2), layouts=layouts, max_depth=2, synthesize=False)
    (classes, ours), (classes_whole, theirs) = _statuses(reduced), _statuses(whole)
    assert classes == classes_whole
    for (layout, mine), (same, other) in zip(ours, theirs, strict=True):
        assert layout == same
        # equal where both decide; the whole alphabet may only hit a bound (more types)
        assert mine == other or other == "unknown", (layout, mine, other)
    assert reduced.alphabet == sigma and reduced.dfa == whole.dfa
    for _, verdict in reduced.verdicts:
        if isinstance(verdict, IdentityWitness):
            check_witness(reduced.dfa, verdict)
