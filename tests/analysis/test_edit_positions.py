"""Replacement pairs by place: every pair is one replacement apart with the DFA's labels at the
place it claims, and the reading names the failure of deciders whose failure is known by
construction (an exact one, one that forgets beyond a window, one that reads a proportion),
then of an exact constructed recognizer and of a store of trained runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.analysis.edit_positions import (
    NEAR,
    PLACES,
    draw_pairs,
    edit_reading,
    pair_accuracy,
    place_of,
    replacement_pairs,
)
from expressivity.errors import ConfigError
from expressivity.resolve import resolve

LT1 = resolve("LT-1")
A = LT1.alphabet.index("a")


def _decider(accepts):  # type: ignore[no-untyped-def]
    return lambda words: np.array([10.0 if accepts(w) else -10.0 for w in words])


EXACT = _decider(lambda w: bool((w == A).any()))
FORGETS = _decider(lambda w: bool((w[-30:] == A).any()))  # a memory of 30 letters
DROWNED = _decider(lambda w: bool((w == A).mean() >= 1 / 60))  # a proportion, not the event


@given(st.integers(0, 200), st.integers(1, 200))
def test_places_partition_every_position(position: int, length: int) -> None:
    if position >= length:
        with pytest.raises(ConfigError, match="outside"):
            place_of(position, length)
        return
    place = place_of(position, length)
    assert place in PLACES
    assert (place == "near") == (length - 1 - position < NEAR)
    if place == "far":
        assert 4 * position < length


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["LT-1", "PT-2", "DYCK-(1,1)", "TOMITA-4", "FIRST", "LDP-1"]),
       st.integers(1, 60), st.integers(0, 2**16))
def test_every_pair_is_one_replacement_apart_with_the_dfas_labels(name: str, length: int,
                                                                   seed: int) -> None:
    dfa = resolve(name).dfa
    pairs = replacement_pairs(dfa, length, 3, np.random.default_rng(seed))
    by_place = {place: 0 for place in PLACES}
    for p in pairs:
        member, nonmember = np.array(p.member), np.array(p.nonmember)
        assert member.size == nonmember.size == length
        assert np.flatnonzero(member != nonmember).tolist() == [p.position]
        assert dfa.accepts_codes(member[None, :])[0]
        assert not dfa.accepts_codes(nonmember[None, :])[0]
        by_place[p.place] += 1
    assert all(count <= 3 for count in by_place.values())


def test_a_language_whose_changes_sit_at_the_first_letter_has_only_far_pairs() -> None:
    pairs = replacement_pairs(resolve("FIRST").dfa, 40, 4, np.random.default_rng(0))
    assert pairs and {p.position for p in pairs} == {0} and {p.place for p in pairs} == {"far"}


def test_a_length_without_label_changing_replacements_gives_no_pairs() -> None:
    # a replacement keeps the length, and EVEN-LENGTH's label is the length's parity
    assert replacement_pairs(resolve("EVEN-LENGTH").dfa, 21, 4, np.random.default_rng(0)) == []
    table = pair_accuracy(EXACT, draw_pairs(resolve("EVEN-LENGTH").dfa, (20, 21)))
    assert table.empty and edit_reading(table).reading == "no pairs"


def test_the_reading_names_each_known_failure() -> None:
    exact = pair_accuracy(EXACT, draw_pairs(LT1.dfa))
    assert (exact["right"] == exact["pairs"]).all()
    assert edit_reading(exact) == edit_reading(exact, trained=40)
    assert edit_reading(exact).reading == "holds"
    forgets = pair_accuracy(FORGETS, draw_pairs(LT1.dfa))
    assert edit_reading(forgets).reading == "forgets"
    assert edit_reading(forgets).near is None and edit_reading(forgets).far == 40
    near = forgets[forgets["place"] == "near"]
    assert (near["accuracy"] == 1.0).all()  # a change among the last 8 letters is always seen
    drowned = edit_reading(pair_accuracy(DROWNED, draw_pairs(LT1.dfa)))
    assert drowned.reading == "drowned"
    assert drowned.near == 80  # one 'a' in 80 letters is below the proportion 1/60
    # trained on the lengths where it errs: the pairs were never learned
    assert edit_reading(forgets, trained=40).reading == "within training"


def test_a_proportion_that_misses_near_changes_first_is_drowned() -> None:
    rows = [{"length": n, "place": place, "pairs": 4, "right": right, "accuracy": right / 4}
            for n, (near, far) in {40: (4, 4), 80: (2, 4), 160: (0, 0)}.items()
            for place, right in (("near", near), ("far", far))]
    reading = edit_reading(pd.DataFrame(rows))
    assert (reading.reading, reading.near, reading.far) == ("drowned", 80, 160)
    rows[2:4] = [{**rows[2], "right": 4}, {**rows[3], "right": 1}]  # far errs first at 80
    assert edit_reading(pd.DataFrame(rows)).reading == "forgets, then drowns"


def test_the_pairs_are_the_seeds() -> None:
    one = draw_pairs(LT1.dfa, (50, 60), per_place=5, seed=3)
    assert one == draw_pairs(LT1.dfa, (50, 60), per_place=5, seed=3)
    assert one != draw_pairs(LT1.dfa, (50, 60), per_place=5, seed=4)
    assert one[60] == draw_pairs(LT1.dfa, (60,), per_place=5, seed=3)[60]  # per length


def test_an_exact_constructed_recognizer_holds_at_every_length() -> None:
    from expressivity.extraction.oracle import MembershipOracle
    from expressivity.models.construct import construct_language

    model = construct_language("LT-1", None, "mamba")[0].model
    table = pair_accuracy(MembershipOracle(model).logits, draw_pairs(LT1.dfa, (8, 100, 400),
                                                                     per_place=4))
    assert set(table["place"]) == {"near", "middle", "far"}
    assert edit_reading(table).reading == "holds"


def test_bad_input_is_a_clear_error() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ConfigError, match="lengths from 1"):
        replacement_pairs(LT1.dfa, 0, 4, rng)
    with pytest.raises(ConfigError, match="pairs per place"):
        replacement_pairs(LT1.dfa, 10, 0, rng)


def test_the_store_page_probes_every_run(tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from expressivity.analysis.edit_positions import main as positions_main
    from expressivity.cli import main

    monkeypatch.chdir(tmp_path)
    for layout in ("mamba", "local-1"):
        assert main(["train", "LT-1", "--layout", layout, "--profile", "tiny", "-q",
                     "--steps", "3"]) == 0
    capsys.readouterr()
    out = tmp_path / "positions.md"
    assert positions_main(["runs/train.db", "--out", str(out), "--pairs", "2"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "runs digest" in text and "--pairs 2`" in text
    rows = [line for line in text.splitlines() if line.startswith("| LT-1")]
    assert len(rows) == 2 and {"mamba", "local-1"} == {r.split("|")[2].strip() for r in rows}
    from expressivity.errors import StoreError

    with pytest.raises(StoreError, match="no such lever"):  # `train` registers no sweep
        positions_main(["runs/train.db", "--out", str(out), "--lever", "slow"])
    assert positions_main(["runs/train.db", "--out", str(out), "--pairs", "2",
                           "--layout", "mamba"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "--layout mamba`" in text
    rows = [line for line in text.splitlines() if line.startswith("| LT-1")]
    assert [r.split("|")[2].strip() for r in rows] == ["mamba"]
    from expressivity.errors import ConfigError

    with pytest.raises(ConfigError, match="no run of 'jamba-2'"):
        positions_main(["runs/train.db", "--out", str(out), "--layout", "jamba-2"])
