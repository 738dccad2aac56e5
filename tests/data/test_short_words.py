"""The short split: every word up to a short length (or a fixed sample), labelled by the DFA."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.data import SplitConfig, make_splits
from expressivity.data.dataset import DatasetProvenance
from expressivity.data.short_words import exhaustive_length, is_exhaustive, short_words
from expressivity.errors import ConfigError
from expressivity.logic.semantics import accepts
from expressivity.resolve import resolve

_PROV = DatasetProvenance("x", "0" * 64, 0, "{}", "test", "short")


def _words(ds) -> list[tuple[str, ...]]:  # type: ignore[no-untyped-def]
    return [ds.symbols(i) for i in range(len(ds))]


def test_two_letters_get_every_word_up_to_length_8() -> None:
    source = resolve("PARITY")
    ds = short_words(source.dfa, 8, 511, _PROV)
    every = [w for n in range(9) for w in itertools.product(("a", "b"), repeat=n)]
    assert _words(ds) == every  # length-lexicographic, none missing, none repeated
    assert [bool(x) for x in ds.labels] == [w.count("b") % 2 == 0 for w in every]
    assert is_exhaustive(2, 8, 511) and (ds.split == "short").all()


@pytest.mark.parametrize("formula", ["P a", "Y b", "P(b & Y a)", "!P true | Y b"])
def test_labels_agree_with_the_formula_semantics(formula: str) -> None:
    source = resolve(formula, "a,b,c")
    ds = short_words(source.dfa, 8, 511, _PROV)
    for i in range(len(ds)):
        assert source.formula is not None
        assert bool(ds.labels[i]) == accepts(source.formula, ds.symbols(i))


def test_larger_alphabets_get_the_short_words_then_a_fixed_sample() -> None:
    dfa = resolve("LT-2").dfa  # {a,b,c}: 1 + 3 + ... + 243 = 364 words of length <= 5
    assert exhaustive_length(3, 8, 511) == 5 and not is_exhaustive(3, 8, 511)
    ds = short_words(dfa, 8, 511, _PROV)
    words = _words(ds)
    assert len(words) == len(set(words)) == 511
    assert words[:364] == [w for n in range(6) for w in itertools.product("abc", repeat=n)]
    assert all(6 <= len(w) <= 8 for w in words[364:])
    again = short_words(dfa, 8, 511, _PROV)
    assert np.array_equal(again.codes, ds.codes)  # a fixed sample, not the run's seed


@settings(max_examples=25, deadline=None)
@given(k=st.integers(1, 5), length=st.integers(0, 6), size=st.integers(1, 400))
def test_exhaustive_length_is_the_longest_prefix_that_fits(k: int, length: int, size: int) -> None:
    m = exhaustive_length(k, length, size)
    assert sum(k**n for n in range(m + 1)) <= size
    assert m == length or sum(k**n for n in range(m + 2)) > size


def test_make_splits_adds_the_short_split_whatever_the_seed() -> None:
    config = SplitConfig.quick(train_size=40, val_short_size=8, val_long_size=8,
                               test_lengths=(41, 42), test_per_length=2, hard_pairs=2,
                               adversarial_per_family=1, type_fragments=())
    dfa = resolve("LT-2").dfa
    a, b = make_splits(dfa, config, seed=0), make_splits(dfa, config, seed=3)
    assert np.array_equal(a["short"].codes, b["short"].codes)
    assert a.notes["short"] == ("every word of length 0..5 and a fixed sample of 147 words "
                                "of length 6..8 (511 words; seed 34)",)
    without = make_splits(dfa, SplitConfig(**{**config.__dict__, "splits": ("train",)}), seed=0)
    assert "short" not in list(without)


@pytest.mark.parametrize(("field", "value"), [("short_max_length", 17),
                                              ("short_max_length", -1), ("short_size", 0)])
def test_bad_short_settings_are_refused(field: str, value: int) -> None:
    with pytest.raises(ConfigError, match=field):
        SplitConfig(**{field: value})


def test_the_sample_command_saves_the_short_split(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from expressivity.cli import main

    assert main(["sample", "PARITY", "--profile", "tiny", "--split", "short", "--out",
                 str(tmp_path), "-q"]) == 0
    out = capsys.readouterr().out
    assert "[short] 511 examples: 256 members, 255 non-members" in out
    assert "every word of length 0..8 (511 words)" in out
