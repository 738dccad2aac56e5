"""Issue 15 item 3: every split holds both classes; a run record states its class balance."""

from __future__ import annotations

import pytest

from expressivity.data import SplitConfig, make_splits
from expressivity.errors import SamplingError
from expressivity.resolve import resolve
from expressivity.training import run_spec, train

# Small enough to be fast; train lengths where every length is all members or all non-members.
SMALL = SplitConfig(
    splits=("train", "val_short", "val_long", "test"),
    train_lengths=(0, 12), val_short_lengths=(0, 12), val_long_lengths=(0, 16),
    train_size=200, val_short_size=40, val_long_size=40, test_lengths=(13, 18), test_per_length=8,
)


@pytest.mark.parametrize(("text", "alphabet"), [
    ("EVEN-a", None),                    # the catalogue's (aa)* over {a}
    ("(a a)*", "a"),
    ("((a|b)(a|b))+", "a,b"),            # non-empty even length over {a, b}
])
def test_length_only_languages_get_both_classes_in_every_split(
    text: str, alphabet: str | None
) -> None:
    source = resolve(text, alphabet)
    splits = make_splits(source.dfa, SMALL, seed=0, name=source.name)
    for name, ds in splits.items():
        if len(ds):
            members = int(ds.labels.sum())
            assert 0 < members < len(ds), (name, members, len(ds))
    train = splits["train"]
    assert int(train.labels.sum()) == len(train) // 2  # balanced, not 200 members and 0 others


def test_a_split_that_cannot_hold_both_classes_is_an_error() -> None:
    # Over {a}: a* has no non-member at all.
    with pytest.raises(SamplingError, match=r"split 'train' would hold one class: the "
                       r"language has no non-member of length 0\.\.12.*train_lengths"):
        make_splits(resolve("a*", "a").dfa, SMALL, seed=0)


def test_a_run_record_states_its_class_balance() -> None:
    spec = run_spec("EVEN-a", "global", profile="tiny", steps=2, patience=0)
    record = train(spec, quiet=True)
    assert record.status == "completed", record.error
    balance = record.extra["class_balance"]
    assert balance["train"]["members"] > 0 and balance["train"]["non_members"] > 0
    assert balance["train"]["members"] == balance["train"]["non_members"]
