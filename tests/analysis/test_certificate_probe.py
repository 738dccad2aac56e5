"""The certificate probe finds the first pumped pair a decision function gets wrong."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from expressivity.algebra.classify import classify
from expressivity.analysis.certificate_probe import _certificate, probe
from expressivity.resolve import resolve

Word = tuple[str, ...]


@pytest.fixture(scope="module")
def rdp1():  # type: ignore[no-untyped-def]
    source = resolve("RDP-1", None)
    witness = classify(source.dfa).recognizer("hybrid-1").witness
    return source.dfa, witness


def test_an_exact_decider_is_never_wrong(rdp1) -> None:  # type: ignore[no-untyped-def]
    dfa, witness = rdp1
    found = probe(lambda words: [dfa.accepts(w) for w in words], dfa, witness, max_length=150)
    assert found.exponent is None and found.lengths is None and found.wrong == ""
    assert found.pairs >= 3 and 0 < found.longest <= 150


def test_a_decider_wrong_beyond_a_length_is_caught_at_the_first_longer_pair(rdp1) -> None:  # type: ignore[no-untyped-def]
    dfa, witness = rdp1

    def decide(words: Sequence[Word]) -> list[bool]:  # right up to 40 letters, then "no"
        return [dfa.accepts(w) if len(w) <= 40 else False for w in words]

    found = probe(decide, dfa, witness)
    assert found.exponent is not None and found.lengths is not None
    first, second = witness.pumped(dfa, found.exponent)
    assert (len(first), len(second)) == found.lengths and max(found.lengths) > 40
    assert found.wrong == "member"  # the member of the pair was rejected
    for k in range(1, found.exponent):  # every earlier pair was short and decided right
        assert max(map(len, witness.pumped(dfa, k))) <= 40 or decide(witness.pumped(dfa, k)) \
            == [dfa.accepts(w) for w in witness.pumped(dfa, k)]


def test_a_certificate_without_pumped_pairs_is_refused(rdp1) -> None:  # type: ignore[no-untyped-def]
    dfa, _ = rdp1
    with pytest.raises(TypeError, match="no pumped pairs"):
        probe(lambda words: [True for _ in words], dfa, object())


@given(st.integers(min_value=1, max_value=60))
def test_a_periodic_familys_pumped_pairs_are_separated_by_the_language(k: int) -> None:
    dfa, witness = _dyck_longformer()
    first, second = witness.pumped(dfa, k)
    assert [dfa.accepts(first), dfa.accepts(second)] == list(witness.accepted)
    stem = witness.prefix + witness.period * k  # the least K >= k (exponent 1 here)
    assert first[:len(stem)] == stem and second[:len(stem)] == stem


def test_a_periodic_family_is_probed_like_an_identity() -> None:
    dfa, witness = _dyck_longformer()

    def decide(words: Sequence[Word]) -> list[bool]:  # right up to 600 letters, then "yes"
        return [dfa.accepts(w) if len(w) <= 600 else True for w in words]

    found = probe(decide, dfa, witness)  # the default bound on pairs reaches past 600 letters
    assert found.exponent == 300 and found.lengths == (600, 601) and found.wrong == "non-member"
    assert _certificate(witness) == "ab / aba (periodic family)"


def _dyck_longformer():  # type: ignore[no-untyped-def]
    source = resolve("DYCK-(1,1)", None)
    witness = classify(source.dfa, layouts=["longformer-2-1"]).recognizer("longformer-2-1").witness
    assert hasattr(witness, "period")  # the periodic family, not an identity
    return source.dfa, witness
