"""Hard training examples: at train lengths, in train only, never a held-out word or pair."""

from __future__ import annotations

import numpy as np
import pytest

from expressivity.data import SplitConfig, make_splits
from expressivity.data.heldout import dfa_hash
from expressivity.errors import ConfigError
from expressivity.resolve import resolve
from expressivity.training.prepare import dataset_hash

CONFIG = SplitConfig.quick(train_size=300, val_short_size=40, val_long_size=40,
                           test_lengths=(41, 44), test_per_length=4, hard_pairs=8,
                           adversarial_per_family=4, type_max_len=6, type_max_nodes=2_000)


def _keys(ds) -> set[tuple[bytes, bool]]:  # type: ignore[no-untyped-def]
    return {(ds.word(i).tobytes() + bytes([len(ds.word(i))]), bool(ds.labels[i]))
            for i in range(len(ds))}


@pytest.mark.parametrize("language", ["LT-2", "DYCK-(1,1)", "LT-1"])
def test_hard_training_examples_are_disjoint_from_every_held_out_split(language: str) -> None:
    dfa = resolve(language).dfa
    config = SplitConfig(**{**CONFIG.__dict__, "train_hard_pairs": 30,
                            "train_adversarial_pairs": 6})
    splits = make_splits(dfa, config, seed=2)
    train = splits["train"]
    extra = np.flatnonzero(np.isin(train.kind, ["hard", "adversarial"]))
    assert (train.kind == "hard").sum() > 0
    if language == "LT-2":  # outside LTL[P]: [LC25] pairs exist at train lengths
        assert (train.meta["family"][extra] != "").any()
    lo, hi = config.train_lengths
    assert all(lo <= train.lengths[i] <= hi for i in extra)
    for i in extra:  # labels are the DFA's
        w = train.word(i)
        assert bool(dfa.accepts_codes(w[None, :], np.array([len(w)]))[0]) == bool(train.labels[i])
    held = set().union(*(_keys(splits[name]) for name in ("val_short", "val_long", "test",
                                                          "adversarial")))
    assert not _keys(train) & held
    base = _keys(train.subset(np.setdiff1d(np.arange(len(train)), extra)))
    added = [(train.word(i).tobytes() + bytes([len(train.word(i))]), bool(train.labels[i]))
             for i in extra]
    assert len(added) == len(set(added)) and not set(added) & base  # no repeats of train


def test_pairs_are_anchored_at_non_members_where_members_rarely_have_a_neighbour() -> None:
    # LT-1 = P a: a member one edit from a non-member has exactly one a, which few uniform
    # members of length up to 40 have; before the fallback the lever found 30 of 256 pairs
    source = resolve("LT-1")
    a = source.alphabet.index("a")
    config = SplitConfig(**{**CONFIG.__dict__, "train_hard_pairs": 40})
    train = make_splits(source.dfa, config, seed=3)["train"]
    hard = np.flatnonzero(train.kind == "hard")
    assert len(hard) == 40
    assert not any((train.word(i) == a).any() for i in hard)  # non-members: no a
    lone = {train.word(i).tobytes() for i in range(len(train))
            if train.labels[i] and (train.word(i) == a).sum() == 1}
    assert len(lone) >= 40 - 5  # their members, one a each (a few may be shared)


def test_the_levers_are_off_by_default_and_change_nothing_then() -> None:
    dfa = resolve("LT-2").dfa
    plain = make_splits(dfa, CONFIG, seed=1)
    zero = make_splits(dfa, SplitConfig(**{**CONFIG.__dict__, "train_hard_pairs": 0}), seed=1)
    assert dataset_hash(plain) == dataset_hash(zero)
    assert not np.isin(plain["train"].kind, ["hard", "adversarial"]).any()
    assert dfa_hash(dfa)


def test_negative_counts_are_refused() -> None:
    with pytest.raises(ConfigError, match="train_hard_pairs"):
        SplitConfig(train_hard_pairs=-1)
