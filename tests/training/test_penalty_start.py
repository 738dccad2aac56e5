"""What both penalties share: their start (`train.*_penalty_start`) and their layout checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from expressivity.errors import ConfigError
from expressivity.models.config import ModelConfig
from expressivity.models.ssm.heads import SELECTIVE
from expressivity.training import run_spec, train
from expressivity.training.prepare import check_spec
from expressivity.training.spec import TrainConfig
from expressivity.training.step_penalty import atom_kinds, check_step_penalty, selective_mixers
from expressivity.training.write_penalty import (
    TIME_INVARIANT,
    check_write_penalty,
    diagonal_mixers,
)
from tests.small_models import small_config, small_model

#: each penalty: its field, a layout it acts on, and its check
PENALTIES = [("step_penalty", "mamba", check_step_penalty),
             ("write_penalty", "s4d", check_write_penalty)]


@pytest.mark.parametrize(("penalty", "layout"), [(p, layout) for p, layout, _ in PENALTIES])
def test_before_its_start_a_penalized_run_is_the_plain_run_step_by_step(
        penalty: str, layout: str) -> None:
    spec = run_spec("LAST", layout, profile="tiny", steps=20, patience=0, eval_every=5)
    plain = train(spec, quiet=True).extra["history"]
    late = train(spec.with_train(**{penalty: 10.0, f"{penalty}_start": 10}),
                 quiet=True).extra["history"]
    early = train(spec.with_train(**{penalty: 10.0}), quiet=True).extra["history"]
    assert [h["step"] for h in late] == [5, 10, 15, 20]
    assert late[:2] == plain[:2]  # steps 0..9: the data loss alone, bitwise
    assert late[2] != plain[2]  # from step 10 the penalty acts
    assert early[0] != plain[0]


@pytest.mark.parametrize(("penalty", "layout", "check"), PENALTIES)
def test_a_start_needs_a_penalty_and_a_step_to_start_at(
        penalty: str, layout: str, check: Callable[..., None]) -> None:
    config = ModelConfig.from_dict({"layout": layout})
    with pytest.raises(ConfigError, match="qualifies a penalty that is off"):
        check(0.0, config, start=5)
    late: dict[str, Any] = {penalty: 1.0, f"{penalty}_start": 20}
    with pytest.raises(ConfigError, match="never apply"):
        check_spec(run_spec("LAST", layout, profile="tiny", steps=20, **late))
    check(1.0, config, start=19, steps=20)
    with pytest.raises(ConfigError, match=f"{penalty}_start"):
        TrainConfig(**{**late, f"{penalty}_start": -1})
    on: dict[str, Any] = {penalty: 1.0}
    spec = run_spec("LAST", layout, profile="tiny", **on)
    assert spec.with_train(**{f"{penalty}_start": 0}).run_id == spec.run_id
    assert spec.with_train(**{f"{penalty}_start": 5}).run_id != spec.run_id


@pytest.mark.parametrize("layout", ["global", "mamba", "mamba-signed", "samba-1", "jamba-2",
                                    "s4d", "SDC", "deltanet", "hybrid-1"])
def test_the_atoms_a_check_reads_are_the_mixers_the_model_builds(layout: str) -> None:
    atoms = atom_kinds(small_config(layout))
    model = small_model(layout)
    assert bool(atoms & SELECTIVE) == bool(selective_mixers(model))
    assert bool(atoms & TIME_INVARIANT) == bool(diagonal_mixers(model))
