"""The shipped sweep specs: they load, have the published shape, and their first run works."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from expressivity.catalogue import get_language
from expressivity.sweeps.runner import execute_run
from expressivity.sweeps.spec import load_sweep
from expressivity.sweeps.store import ResultsStore
from expressivity.training import get_profile, train

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
SPECS = sorted(EXPERIMENTS.glob("*.toml"))


def test_the_three_specs_are_shipped() -> None:
    assert {p.stem for p in SPECS} >= {"quick", "paper_lc25", "paper_lc26"}


def _class(language: str) -> str:
    expected = get_language(language).expected_classes
    if expected.get("definite") and not expected.get("r_trivial"):
        return "LTL[Y]-only"
    if expected.get("r_trivial") and not expected.get("definite"):
        return "LTL[P]-only"
    if expected.get("locally_r_trivial") and not expected.get("r_trivial") and not expected.get(
        "definite"
    ):
        return "LTL[P,Y]-only"
    return "other"


def test_quick_spec_separates_the_three_classes() -> None:
    spec = load_sweep(EXPERIMENTS / "quick.toml")
    runs = spec.expand()
    languages = dict(spec.axes)["language"]
    classes = [_class(lang) for lang in languages]
    for cls in ("LTL[Y]-only", "LTL[P]-only", "LTL[P,Y]-only"):
        assert classes.count(cls) >= 2, (cls, classes)
    assert set(dict(spec.axes)["layout"]) >= {"global", "local-1", "hybrid-1"}
    quick = get_profile("quick")
    assert spec.profile == "quick" and len(runs) == len(languages) * 3
    assert all(r.train.steps == quick.train.steps and not r.model and not r.data for r in runs)


@pytest.mark.parametrize(
    ("name", "languages", "layouts"), [("paper_lc25", 12, 1), ("paper_lc26", 8, 7)]
)
def test_paper_specs_are_the_full_protocol(name: str, languages: int, layouts: int) -> None:
    spec = load_sweep(EXPERIMENTS / f"{name}.toml")
    runs = spec.expand()
    paper = get_profile("paper")
    assert len(runs) == languages * layouts * 15
    assert {r.seed for r in runs} == set(paper.seeds)
    assert {r.train.lr for r in runs} == set(paper.learning_rates)
    assert {r.train.steps for r in runs} == {1_000_000}


@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_first_run_of_every_spec_works_at_toy_size(path: Path, tmp_path: Path) -> None:
    spec = load_sweep(path)
    assert spec.name == path.stem
    first = spec.expand()[0]
    tiny = get_profile("tiny")
    toy = dataclasses.replace(
        first, profile="tiny", train=dataclasses.replace(tiny.train, steps=20)
    )
    record = execute_run(train, toy, 1, str(tmp_path))
    assert record.status == "completed", record.error
    assert record.lengths and record.run_id == toy.run_id
    with ResultsStore(tmp_path / "r.db") as store:
        store.record(record)
        assert store.runs()["language"].tolist() == [first.language]


@pytest.mark.parametrize(("name", "profile", "seeds"),
                         [("catalogue", "standard", 3), ("catalogue-quick", "quick", 1)])
def test_catalogue_specs_cover_every_regular_language_and_layout(
    name: str, profile: str, seeds: int
) -> None:
    from expressivity.catalogue import load_catalogue
    from expressivity.models.layouts import parse_layout

    spec = load_sweep(EXPERIMENTS / f"{name}.toml")
    axes = dict(spec.axes)
    regular = {lang.name for lang in load_catalogue().values() if lang.is_regular}
    assert set(axes["language"]) == regular
    layouts = set(axes["layout"])
    assert {"global", "local-1", "local-2", "local-4", "hybrid-1", "hybrid-2",
            "hybrid-4"} <= layouts
    families = {layout.split("-")[0] for layout in layouts}
    assert {"longformer", "bigbird", "dilated", "block"} <= families
    for layout in layouts:
        parse_layout(layout, n_layers=2, n_heads=4)
    assert spec.profile == profile and len(axes["seed"]) == seeds
    assert len(spec.expand()) == len(regular) * len(layouts) * seeds
