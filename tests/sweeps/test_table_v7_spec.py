"""experiments/table-v7.toml (issue 36): the table v6 with length-aware logits for jamba-2's
global layer, and nothing else changed."""

from __future__ import annotations

from pathlib import Path

from expressivity.analysis.classes import theory_layout
from expressivity.sweeps.cells import spec_cell
from expressivity.sweeps.spec import load_sweep

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


def test_the_v7_is_the_v6_with_jamba_scaled() -> None:
    v6, v7 = (list({r.run_id: r for r in load_sweep(EXPERIMENTS / name).expand()}.values())
              for name in ("table-v6.toml", "table-v7.toml"))
    assert len(v6) == len(v7) == 26 * 23 * 3  # 11 causal + 7 encoder + 5 mixer cells, 3 seeds
    changed = {r.run_id for r in v7} - {r.run_id for r in v6}
    jamba = {r.run_id for r in v7 if r.layout == "jamba-2"}
    assert changed == jamba and len(jamba) == 26 * 3  # every other run is reused
    for r in v7:
        if r.layout != "jamba-2":
            continue
        assert r.model["attention_scale"] == "log-n" and r.model["n_layers"] == 2
        cell = spec_cell(r)
        assert cell.label == "jamba-2+log-n"
        assert theory_layout(cell.label) == "jamba-2"  # proved unchanged, docs/theory.md §9
    old = {r.layout: r.model.get("attention_scale", "none") for r in v6}
    new = {r.layout: r.model.get("attention_scale", "none") for r in v7}
    assert {k for k in old if old[k] != new[k]} == {"jamba-2"}
