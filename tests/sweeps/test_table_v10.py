"""experiments/table-v10.toml (issue 36): the table v9 with every proven-yes state-space cell
at its least proven depth and LDP-2 with global attention and the hybrids at 5 layers; every
other run the v9's."""

from __future__ import annotations

from dataclasses import replace

from expressivity.analysis.prediction_table import predictions
from expressivity.sweeps.cells import spec_cell
from tests.sweeps.twins import runs_by_key

MIXERS = ("mamba", "mamba-signed", "s4d", "samba-1", "jamba-2")
DEEPER = {("LDP-2", layout): 5 for layout in ("global", "hybrid-1", "hybrid-2", "hybrid-4")}


def _least_mixer_depths(languages: list[str]) -> dict[tuple[str, str], int]:
    """(language, layout) → the "≤N" of every state-space cell with a proven-yes depth (the
    tables' `analysis.mixer_depth`, asked at 9 layers: samba-1's deepest cell needs 9)."""
    table = predictions(languages, MIXERS, n_layers=9)
    least = table[table["min_depth"].str.startswith("≤")]
    return {(row.language, row.layout): int(row.min_depth[1:]) for row in least.itertuples()}


def test_the_v10_is_the_v9_with_each_cell_at_its_least_proven_depth() -> None:
    v9, v10 = runs_by_key("table-v9.toml"), runs_by_key("table-v10.toml")
    assert v9.keys() == v10.keys() and len(v10) == 26 * 23 * 3  # readouts: 23 cells a language
    least = _least_mixer_depths(sorted({language for language, *_ in v10}))
    assert len(least) == 86  # the proven-yes mixer cells with a construction (of 99)
    expected = {**least, **DEEPER}
    changed = set()
    for key, run in v10.items():
        twin, depth = v9[key], expected.get(key[:2])
        if depth is None or depth == twin.model["n_layers"]:
            assert run.run_id == twin.run_id, key  # reused: the v9's run
            continue
        changed.add(key[:2])
        assert run.model["n_layers"] == depth, key
        assert replace(run, model={**run.model, "n_layers": twin.model["n_layers"]}) == twin
    assert len(changed) == 31 + 4 + 10 + 4  # 1 layer; TOMITA-4 × s4d, samba-1's three; deep; LDP-2


def test_the_causal_ldp2_cells_are_yes_at_5_layers_and_not_at_4() -> None:
    v10 = runs_by_key("table-v10.toml")
    labels = sorted({spec_cell(v10[("LDP-2", layout, 0, "eos")]).label
                     for _, layout in DEEPER})
    assert all(label.endswith("[5 layers]") for label in labels)
    at = {layers: predictions(["LDP-2"], [label.replace("[5 ", f"[{layers} ") for label in labels])
          for layers in (4, 5)}  # a label's own depth wins
    assert set(at[5]["predicted_at_depth"]) == {"yes"}
    assert set(at[4]["predicted_at_depth"]) == {"unknown"}
