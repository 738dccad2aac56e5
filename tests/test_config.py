"""Config values: validated construction, clear errors, stable hashes and run ids."""

from __future__ import annotations

import pytest

from expressivity.config import stable_hash
from expressivity.errors import ConfigError
from expressivity.training.spec import LengthMetric, RunRecord, RunSpec, TrainConfig
from expressivity.training.train_config import CHOICES


def test_runspec_round_trip_and_stable_id() -> None:
    spec = RunSpec.from_dict({"language": "LT-2", "layout": "hybrid-1", "train": {"lr": 1e-3}})
    again = RunSpec.from_dict(spec.to_dict())
    assert again == spec
    assert again.run_id == spec.run_id
    assert len(spec.run_id) == 16
    assert spec.with_train(lr=5e-4).run_id != spec.run_id
    assert RunSpec("LT-2", seed=1).run_id != RunSpec("LT-2", seed=0).run_id


def test_hash_ignores_key_order() -> None:
    assert stable_hash({"a": 1, "b": [1, 2]}) == stable_hash({"b": [1, 2], "a": 1})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"language": "x", "train": {"lrr": 1}}, r"train: unknown field\(s\) lrr"),
        ({"language": "x", "train": {"lr": "fast"}}, r"train\.lr: expected a number"),
        ({"language": "x", "train": {"lr": -1.0}}, r"lr: must be > 0"),
        ({"language": "x", "train": {"schedule": "linear"}}, r"schedule.*'constant', 'cosine'"),
        ({"language": "x", "seed": 1.5}, r"seed: expected an integer"),
        ({"language": "x", "colour": 1}, r"unknown field\(s\) colour"),
        ({"language": "x", "train": {"device": "tpu"}}, r"device"),
    ],
)
def test_invalid_configs_name_the_field(data: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        RunSpec.from_dict(data)


def test_train_config_defaults_are_valid() -> None:
    assert TrainConfig().steps > 0


@pytest.mark.parametrize("name", sorted(CHOICES))
def test_worded_settings_are_checked_when_built_directly(name: str) -> None:
    """Built in Python (not from a table, whose Literal `config` checks), a word outside its
    setting's choices is refused by name, with the words it takes; each of those is accepted."""
    for word in CHOICES[name]:
        assert getattr(TrainConfig(**{name: word, "step_penalty": 1.0}), name) == word
    words = ", ".join(map(repr, CHOICES[name]))
    with pytest.raises(ConfigError, match=f"^{name}: 'other' is not one of {words}$"):
        TrainConfig(**{name: "other"})


def test_record_summary_properties() -> None:
    lengths = (
        LengthMetric(41, 10, 10),
        LengthMetric(42, 10, 10),
        LengthMetric(43, 10, 9),
        LengthMetric(44, 10, 10),
    )
    rec = RunRecord("id", RunSpec("x"), "completed", lengths=lengths)
    assert rec.n_star == 42
    assert rec.test_accuracy == pytest.approx(39 / 40)
    assert not rec.recognized
    short = {"short_words": {"n": 511, "correct": 511, "max_length": 8}}
    perfect = RunRecord("id", RunSpec("x"), "completed", lengths=lengths[:2], extra=short)
    assert perfect.recognized and perfect.n_star == 42
    untested = RunRecord("id", RunSpec("x"), "completed", lengths=lengths[:2])
    assert untested.perfect_on_test and not untested.recognized
    failed = RunRecord("id", RunSpec("x"), "failed", error="nan loss", lengths=lengths[:2],
                       extra=short)
    assert not failed.recognized
    assert rec.to_dict()["n_star"] == 42


def test_run_id_ignores_thread_count_only() -> None:
    spec = RunSpec("LT-2")
    assert spec.with_train(threads=4).run_id == spec.run_id
    assert spec.with_train(steps=17).run_id != spec.run_id


def test_a_spec_without_train_settings_takes_its_profiles() -> None:
    from expressivity.training.profiles import get_profile
    from expressivity.training.spec import run_spec

    spec = RunSpec("SUFFIX-a", profile="quick")
    assert spec == run_spec("SUFFIX-a", "global", "quick")
    assert spec.train.lr == get_profile("quick").learning_rates[0]
    assert RunSpec.from_dict({"language": "x", "profile": "tiny"}).train == (
        run_spec("x", profile=get_profile("tiny")).train
    )
    with pytest.raises(ConfigError, match="unknown profile 'nope'"):
        RunSpec("x", profile="nope")
