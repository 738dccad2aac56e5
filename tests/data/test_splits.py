"""make_splits: correct labels, disjoint and balanced splits, determinism, clear errors, CLI."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.automata.dfa import DFA
from expressivity.automata.ops import complement
from expressivity.cli import main
from expressivity.config import from_mapping
from expressivity.data import Dataset, DatasetSplits, SplitConfig, make_splits
from expressivity.data.heldout import Sources, dfa_hash, spans
from expressivity.data.negatives import edit_distance_to_language
from expressivity.data.sampling import LengthDistribution, WordSampler
from expressivity.data.splits import _sized_plan
from expressivity.errors import ConfigError, SamplingError
from expressivity.resolve import resolve
from tests.automata.conftest import permuted
from tests.data.helpers import ABC, dyck11, lt2

TINY = SplitConfig(
    train_lengths=(0, 24),
    val_short_lengths=(0, 24),
    train_size=300,
    val_short_size=60,
    val_long_size=60,
    val_long_lengths=(0, 32),
    test_lengths=(41, 46),
    test_per_length=8,
    adversarial_lengths=(41, 60),
    hard_pairs=6,
    adversarial_per_family=2,
    type_max_len=6,
    type_max_nodes=2_000,
)


@pytest.fixture(scope="module")
def lt2_splits() -> DatasetSplits:
    return make_splits(lt2(), TINY, seed=5, name="LT-2")


@pytest.fixture(scope="module")
def dyck_splits() -> DatasetSplits:
    return make_splits(dyck11(), TINY, seed=5)


def words_of(ds: Dataset) -> list[np.ndarray]:
    return [ds.word(i) for i in range(len(ds))]


@pytest.mark.parametrize("which", ["lt2_splits", "dyck_splits"])
def test_labels_kinds_and_distances_are_true(which: str, request: pytest.FixtureRequest) -> None:
    splits: DatasetSplits = request.getfixturevalue(which)
    dfa = lt2() if which == "lt2_splits" else dyck11()
    assert list(splits) == ["train", "val_short", "val_long", "test", "adversarial", "short"]
    for name, ds in splits.items():
        assert (ds.split == name).all()
        for i in range(len(ds)):
            assert (
                dfa.accepts_codes(ds.word(i)[None, :], np.array([ds.lengths[i]]))[0] == ds.labels[i]
            )
        assert (ds.distance[ds.labels] == 0).all()
        pert = np.flatnonzero(ds.kind == "perturbed")
        for i in pert:
            exact = edit_distance_to_language(dfa, ds.word(i)[None, :])[0]
            assert ds.distance[i] == exact and 1 <= exact <= ds.edits[i]
        hard = ds.kind == "hard"
        assert (ds.distance[hard] == 1).all() and (ds.edits[hard] == 1).all()


@pytest.mark.parametrize("which", ["lt2_splits", "dyck_splits"])
def test_no_heldout_word_is_in_train(which: str, request: pytest.FixtureRequest) -> None:
    splits: DatasetSplits = request.getfixturevalue(which)
    train = splits["train"].keys()
    for name in ("val_short", "val_long", "test", "adversarial"):
        assert not splits[name].keys() & train, name


def test_balance_per_length_and_distinct_heldout(lt2_splits: DatasetSplits) -> None:
    test = lt2_splits["test"]
    assert test.per_length() == {n: (4, 4) for n in range(41, 47)}
    assert set(np.unique(test.kind)) <= {"positive", "negative", "perturbed"}
    perturbed = int((test.kind == "perturbed").sum())
    if perturbed < 12:  # members of Σ*abΣ* this long rarely lose every ab in one or two edits
        assert "perturbed negatives found within budget" in " ".join(lt2_splits.notes["test"])
    for name in ("train", "val_short", "val_long"):
        for n, (pos, neg) in lt2_splits[name].per_length().items():
            if n >= 4:  # both labels plentiful: exactly balanced
                assert pos == neg, (name, n)
    for name in ("val_long", "test"):
        ds = lt2_splits[name]
        keys = [
            (int(ds.lengths[i]), bool(ds.labels[i]), ds.word(i).tobytes()) for i in range(len(ds))
        ]
        assert len(keys) == len(set(keys))
    lengths = lt2_splits["train"].lengths
    assert lengths.min() >= 0 and lengths.max() <= 24
    assert lt2_splits["val_long"].lengths.max() <= 32


def test_imbalance_is_reported(dyck_splits: DatasetSplits) -> None:
    test = dyck_splits["test"]
    for n, (pos, neg) in test.per_length().items():
        assert (pos, neg) == ((4, 4) if n % 2 == 0 else (0, 8))
    notes = " ".join(dyck_splits.notes["test"])
    assert "only non-members (unbalanced) at lengths 41-45 step 2" in notes
    assert "too few distinct unseen members (repeat) (3 of 12) at lengths 42-46 step 2" in notes


def test_adversarial_pairs(lt2_splits: DatasetSplits) -> None:
    adv = lt2_splits["adversarial"]
    ids, counts = np.unique(adv.pair_id, return_counts=True)
    assert (ids >= 0).all() and (counts == 2).all()
    for pid in ids:
        rows = np.flatnonzero(adv.pair_id == pid)
        assert sorted(adv.labels[rows].tolist()) == [False, True]
    fooling = adv.kind == "adversarial"
    assert "lc25" in set(adv.meta["family"][fooling].tolist())  # LT-2 is in LTL[P,Y]: no lc26 pair
    assert all(f.startswith("LTL[") for f in adv.fragment[fooling])
    assert (adv.meta["depth"][fooling] >= 1).all()


def test_same_seed_same_bytes_other_seed_other_data(
    tmp_path: Path, lt2_splits: DatasetSplits
) -> None:
    again = make_splits(lt2(), TINY, seed=5, name="LT-2")
    lt2_splits.save(tmp_path / "a")
    again.save(tmp_path / "b")
    for path in sorted((tmp_path / "a").rglob("*.*")):
        assert (
            path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes()
        ), path
    loaded = DatasetSplits.load(tmp_path / "a")
    assert np.array_equal(loaded["test"].codes, lt2_splits["test"].codes)
    assert loaded.notes == lt2_splits.notes
    other = make_splits(lt2(), replace(TINY, splits=("train",)), seed=6, name="LT-2")
    assert not np.array_equal(other["train"].codes, lt2_splits["train"].codes)
    prov = lt2_splits["test"].provenance
    assert (prov.language, prov.seed, prov.split) == ("LT-2", 5, "test")
    assert prov.dfa_hash == dfa_hash(permuted(lt2(), 3))  # the language's hash, not the table's


def test_spans() -> None:
    assert spans([5, 1, 2, 3, 7, 9, 11, 20]) == "1-3, 5-11 step 2, 20"
    assert spans([4]) == "4" and spans([1, 2]) == "1, 2"


def test_impossible_requests_raise() -> None:
    with pytest.raises(SamplingError, match="distinct words of length 42"):
        make_splits(dyck11(), replace(TINY, shortfall="error", splits=("test",)), 0)
    with pytest.raises(ConfigError, match="test_lengths"):
        SplitConfig(test_lengths=(50, 41))
    with pytest.raises(ConfigError, match="unknown split"):
        SplitConfig(splits=("dev",))
    with pytest.raises(ConfigError, match="seed"):
        make_splits(lt2(), TINY, seed=-1)
    with pytest.raises(ConfigError, match="perturbed_fraction"):
        from_mapping(SplitConfig, {"perturbed_fraction": 2})


def test_sources_and_config_mapping() -> None:
    config = from_mapping(
        SplitConfig,
        {"test_lengths": [41, 42], "test_per_length": 4, "splits": ["test"], "train_size": 40},
    )
    assert config.test_lengths == (41, 42)
    source = resolve("LAST")  # text is resolved at the edge, not by make_splits
    from_name = make_splits(source.dfa, config, seed=1, name=source.name)
    last_b = DFA(ABC, [[0, 1, 0], [0, 1, 0]], [False, True])  # LAST = Σ*b
    from_dfa = make_splits(last_b, config, seed=1, name="LAST")
    assert from_name["test"].provenance.dfa_hash == from_dfa["test"].provenance.dfa_hash
    assert from_name["test"].provenance.language == "LAST"
    with pytest.raises(ConfigError, match="make_splits takes a DFA, got str"):
        make_splits("LAST", config, seed=1)  # type: ignore[arg-type]
    assert list(from_name) == ["test"]


def test_cli_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "last"
    argv = ["sample", "LAST", "--split", "test", "--out", str(out), "--seed", "3"]
    argv += [
        "--profile",
        "quick",
        "--set",
        "test_lengths=[41,44]",
        "--set",
        "test_per_length=6",
        "--set",
        "train_size=100",
    ]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "[test] 24 examples: 12 members, 12 non-members" in text
    assert "41-44" in text and "0.50" in text
    ds = Dataset.load(out)
    assert len(ds) == 24 and ds.provenance.seed == 3
    assert main(["sample", "LAST", "--out", str(out), "--set", "nonsense=1"]) == 2



LENGTH_ONLY = replace(TINY, splits=("train", "val_short", "val_long"), train_size=1_000)


def _member_counts(dfa: DFA, lengths: tuple[int, int]) -> dict[int, int]:
    sampler = WordSampler.build(dfa, lengths[1])
    return {n: sampler.count(n) for n in range(lengths[0], lengths[1] + 1)}


@pytest.mark.parametrize("name", ["SUFFIX-a", "FIRST", "TOMITA-2", "EVEN-LENGTH"])
def test_uniform_lengths_cover_member_free_lengths(name: str) -> None:
    """"uniform" places train words at every length, member-free ones too; every word is
    labelled by the DFA and train holds both classes (its owed members went to lengths that
    have members: drawn at member-free lengths, they raised `SamplingError` before)."""
    dfa = resolve(name).dfa
    uniform = make_splits(dfa, replace(LENGTH_ONLY, length_distribution="uniform"), 3, name=name)
    for split in uniform.values():
        for i in range(len(split)):
            assert dfa.accepts(split.symbols(i)) == bool(split.labels[i])
    assert uniform["train"].labels.any() and not uniform["train"].labels.all()
    lo, hi = LENGTH_ONLY.train_lengths
    assert any(c == 0 for c in _member_counts(dfa, (lo, hi)).values())
    assert set(uniform["train"].lengths.tolist()) == set(range(lo, hi + 1))


@pytest.mark.parametrize("name", ["SUFFIX-a", "FIRST", "PREFIX-a"])
def test_flare_never_trains_on_the_empty_word_of_these(name: str) -> None:
    """The blind spot "uniform" closes: ε is a non-member and every other length has both
    classes, so flare (lengths with members, nothing owed) never puts ε in train, though the
    short-word check asks for it; "uniform" does."""
    dfa = resolve(name).dfa
    assert not dfa.accepts(())
    counts = _member_counts(dfa, LENGTH_ONLY.train_lengths)
    assert counts[0] == 0 and all(counts[n] for n in counts if n)
    flare = make_splits(dfa, LENGTH_ONLY, 3, name=name)
    uniform = make_splits(dfa, replace(LENGTH_ONLY, length_distribution="uniform"), 3, name=name)
    assert 0 not in flare["train"].lengths.tolist()
    assert 0 in uniform["train"].lengths.tolist()


def test_uniform_equals_flare_where_every_length_has_members() -> None:
    """Where every length of every range has a member the two distributions weigh lengths
    alike, so the same seed gives byte-identical splits (stored runs are unchanged)."""
    dfa = resolve("TOMITA-1").dfa  # 1^n is a member at every length n
    assert all(_member_counts(dfa, (0, LENGTH_ONLY.val_long_lengths[1])).values())
    flare = make_splits(dfa, LENGTH_ONLY, 5, name="TOMITA-1")
    uniform = make_splits(dfa, replace(LENGTH_ONLY, length_distribution="uniform"), 5,
                          name="TOMITA-1")
    for split in flare:
        assert np.array_equal(flare[split].codes, uniform[split].codes)
        assert np.array_equal(flare[split].labels, uniform[split].labels)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(["TOMITA-1", "TOMITA-2", "EVEN-LENGTH", "SUFFIX-a", "LT-1"]),
       dist=st.sampled_from(["flare", "uniform", "members"]),
       seed=st.integers(0, 2**31), size=st.integers(2, 400))
def test_sized_plans_ask_only_for_words_that_exist(
    name: str, dist: LengthDistribution, seed: int, size: int
) -> None:
    """Every (members, non-members) a sized plan asks at a length exists there, whatever the
    distribution (the owed examples of "uniform" once landed at lengths without their class)."""
    dfa = resolve(name).dfa
    src = Sources(dfa, WordSampler.build(dfa, 40), WordSampler.build(complement(dfa), 40))
    plan = _sized_plan(src, (0, 40), size, dist, np.random.default_rng(seed),
                       np.random.default_rng(seed + 1))
    assert sum(p + q for p, q in plan.values()) == 2 * (size // 2)
    for n, (members, non_members) in plan.items():
        assert members == 0 or src.positives.count(n) > 0
        assert non_members == 0 or src.negatives.count(n) > 0


@pytest.mark.parametrize("name", ["EVEN-LENGTH", "TOMITA-2"])
def test_uniform_builds_every_split_with_hard_pairs_where_lengths_lack_members(name: str) -> None:
    """Hard pairs (adversarial, and in train) are anchored at members: under "uniform" their
    lengths are drawn among lengths with members (`within_class`); drawn over every length
    they once asked for a member of an odd length of EVEN-LENGTH and raised."""
    dfa = resolve(name).dfa
    config = replace(TINY, length_distribution="uniform", train_hard_pairs=32, hard_pairs=32)
    splits = make_splits(dfa, config, 1, name=name)
    for split in splits.values():
        for i in range(len(split)):
            assert dfa.accepts(split.symbols(i)) == bool(split.labels[i])
    assert len(splits["adversarial"]) and 0 in splits["train"].lengths.tolist()
