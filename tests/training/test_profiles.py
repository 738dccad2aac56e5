"""Training profiles: the paper protocol, the quick CPU profile, validated spec construction."""

from __future__ import annotations

import pytest

from expressivity.errors import ConfigError
from expressivity.training import PROFILES, get_profile, run_grid, run_spec
from expressivity.training.prepare import check_spec


def test_paper_profile_is_the_published_protocol() -> None:
    paper = get_profile("paper")
    model = paper.model_config("global")
    assert (model.n_layers, model.d_model, model.n_heads, model.positional) == (5, 64, 8, "none")
    assert model.strict
    assert (paper.train.batch_size, paper.train.steps) == (128, 1_000_000)
    data = paper.split_config()
    assert data.train_lengths[1] == 40
    assert data.test_lengths == (41, 500) and data.test_per_length == 512
    assert paper.learning_rates == (1e-4, 3e-4, 5e-4) and paper.seeds == (0, 1, 2, 3, 4)
    grid = run_grid("LT-2", "hybrid-1", paper)
    assert len(grid) == 15 and len({s.run_id for s in grid}) == 15
    assert {(s.seed, s.train.lr) for s in grid} == {
        (s, lr) for s in paper.seeds for lr in paper.learning_rates
    }


@pytest.mark.parametrize("name", sorted(PROFILES))
@pytest.mark.parametrize("layout", ["global", "local-1", "hybrid-1"])
def test_every_profile_resolves_for_the_paper_layouts(name: str, layout: str) -> None:
    spec = run_spec("LT-2", layout, name)
    profile, model, data = check_spec(spec)
    assert profile.name == name and model.layout == layout
    assert spec.train == run_spec("LT-2", profile=get_profile(name)).train
    assert data.test_lengths[0] > data.train_lengths[1]  # test lengths lie beyond training


def test_quick_profile_is_a_scaled_down_protocol() -> None:
    quick = get_profile("quick")
    data = quick.split_config()
    assert data.train_lengths == (0, 40) and data.test_lengths == (41, 100)
    assert data.adversarial_lengths == (41, 100)
    assert quick.train.patience > 0 and quick.train.threads == 1


def test_spec_overrides_are_validated_and_named() -> None:
    spec = run_spec("SUFFIX-a", "local-1", "quick", seed=3, lr=1e-2, steps=7)
    assert (spec.seed, spec.train.lr, spec.train.steps, spec.profile) == (3, 1e-2, 7, "quick")
    with pytest.raises(ConfigError, match=r"train: unknown field.*stepz"):
        run_spec("SUFFIX-a", profile="quick", stepz=7)
    with pytest.raises(ConfigError, match="profile: unknown profile"):
        get_profile("huge")


def test_standard_profile_tests_on_the_papers_lengths() -> None:
    standard, quick = get_profile("standard"), get_profile("quick")
    data = standard.split_config()
    assert data.train_lengths == (0, 40)
    assert data.test_lengths == (41, 500) and data.adversarial_lengths == (41, 500)
    assert standard.model_config("global").n_layers == quick.model_config("global").n_layers
    assert standard.model_config("global").d_model == quick.model_config("global").d_model // 2
    assert standard.train.steps == quick.train.steps and standard.train.patience > 0
    assert standard.train.plateau > 0 and quick.train.plateau == 0  # quick's ids stay as they were
    assert standard.seeds == (0, 1, 2)
