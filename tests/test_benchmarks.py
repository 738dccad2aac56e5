"""The benchmarks still drive the code they time: one tiny configuration of each stepping path."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("mode", ["single", "ensemble", "batched"])
def test_the_ensemble_benchmark_steps_its_members(mode: str) -> None:
    """benchmarks/ensemble.py reaches into the ensemble stepper (build, gradients, update); a
    rename there broke it once without any test noticing."""
    result = _load("ensemble").worker(mode, 2, 1, 1, 1, "tiny", "cpu")
    assert result["rate"] > 0
    assert result["mb_per_member"] >= 0


def test_the_seed_policy_replay_makes_what_the_runner_makes(tmp_path: Path) -> None:
    """benchmarks/seed_policy.py replays "until-recognized" on a complete store: it makes the
    runs the runner makes under that policy, and says the cell verdicts agree."""
    from expressivity.sweeps.runner import run_sweep
    from expressivity.sweeps.store import ResultsStore
    from tests.sweeps.conftest import SMALL, InlineExecutor
    from tests.sweeps.fake import fake_train

    four = SMALL.replace("seeds = [0, 1]", "seeds = [0, 1, 2, 3]")
    (tmp_path / "all.toml").write_text(four, encoding="utf-8")
    until = four.replace('profile = "tiny"', 'profile = "tiny"\nseed_policy = "until-recognized"')
    (tmp_path / "until.toml").write_text(until, encoding="utf-8")
    for name in ("all", "until"):
        run_sweep(tmp_path / f"{name}.toml", tmp_path / f"{name}.db", executor=InlineExecutor(),
                  train_fn=fake_train, progress=False)
    bench = _load("seed_policy")
    with ResultsStore(tmp_path / "until.db") as store:
        made = len(store.runs())
    text = bench.replay(tmp_path / "all.db")
    row = next(line for line in text.splitlines() if line.startswith("| all |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert (cells[1], cells[3]) == ("16", str(made)) and made < 16
    assert text.endswith("the same under both: yes")


def test_the_patience_replay_prices_a_stored_run_by_its_stop(tmp_path: Path) -> None:
    """benchmarks/patience.py prices a run that trained its whole budget at the step where the
    rule would have stopped it, and leaves a run that already had the rule alone."""
    from expressivity.sweeps.store import ResultsStore
    from expressivity.training import run_spec, train
    from expressivity.training.stopping import patience_stop

    whole = train(run_spec("SUFFIX-a", "local-1", profile="tiny", patience=0, steps=80),
                  quiet=True)
    stopped = train(run_spec("SUFFIX-a", "local-1", profile="tiny"), quiet=True)
    with ResultsStore(tmp_path / "runs.db") as store:
        store.record(whole)
        store.record(stopped)
        runs = store.runs()
    bench = _load("patience")
    stop = patience_stop(stopped.spec.train, whole.extra["history"])
    assert stop is not None and stop < whole.steps == 80
    row = bench.price(runs, 2, 0).iloc[-1]
    assert (row["layout"], row["runs"], row["stopped"]) == ("all", 1, 1)
    saved = whole.extra["train_seconds"] * (80 - stop) / 80 / 3600
    assert row["run-hours saved"] == pytest.approx(saved)
    late = bench.price(runs, 2, 70).iloc[-1]
    assert (late["stopped"], late["run-hours saved"]) == (0, 0.0)
    assert "| local-1 | 1 |" in bench.report(tmp_path / "runs.db", 2, 0)


@pytest.mark.slow
def test_the_sampler_benchmark_times_both_samplers_of_each_mixer(
        capsys: pytest.CaptureFixture[str]) -> None:
    """benchmarks/ssm.py --batching steps each mixer model on both samplers' batches."""
    _load("ssm").batching_step_table(1, 1)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")][1:]
    assert [row.split("|")[1].strip() for row in rows] == [
        "mamba", "mamba-signed", "s4d", "samba-1", "jamba-2"]
    assert all(float(row.split("|")[4]) > 0 for row in rows)
