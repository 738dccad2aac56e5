"""The cell of a run: its layout, plus its positional encoding when that is not NoPE.

Theory distinguishes a model by its attention layout *and* its positions (docs/theory.md,
"Periodic positions and MOD"): global attention with NoPE is LTL[P], with periodic positions
LTL[P,MOD]. So the tables of a results store (`expressivity results`, `expressivity figures`,
the summary a sweep prints) put runs that differ in ``model.positional`` (or in its periods or
unrotated channels) in different cells, labelled ``LAYOUT+ENCODING``::

    global                       NoPE (every profile's default): the layout alone
    global+rope                  RoPE (base 10^4)
    hybrid-1+periodic-rope(2)    periodic RoPE with period 2
    global+rope[8 unrotated]     partial RoPE
    global+ssmax                 NoPE with length-aware logits (``model.attention_scale``)
    global+rope+log-n            RoPE with logits times log n

Length-aware attention (``attention_scale`` "log-n" / "ssmax", `models.scaling`) makes the
scores depend on the number of keys, so its runs form cells of their own too (a last
``+log-n`` / ``+ssmax`` part; `cell_labels.cell_scale`), which no NoPE prediction covers
(docs/theory.md §9).

A run that reads another position than EOS (``model.readout``: cls, mean, last; issue 32) gets
the suffix `` @READOUT`` (``window-1 @cls``): the readout decides the class as much as the
mask, so runs of different readouts are different cells; `cell_labels.cell_readout` reads it
back.

A run whose ``model.n_layers`` differs from its profile's gets the suffix `` [N layers]``
(``global [3 layers]``, ``hybrid-1+rope [4 layers]``): the theory's answer depends on the depth
(docs/theory.md §8), so runs of different depths are different cells; `cell_labels.cell_layers`
reads it back. Learning rates and seeds stay pooled in one cell (they are the search over
training, not the architecture). A cell is a typed key, `Cell` (layout, encoding, scale,
layers): the label is generated from it (`Cell.label`) and `Cell.parse` reads a label back
(``+`` inside a layout spelling stays the layout's); `split_cell`, `cell_layers` and
`cell_scale` are its parts (all in `sweeps.cell_labels`). Here a run's cell is read from its
spec or stored row (`spec_cell`, `run_cell`, `row_cell`, `with_cells`).
`analysis.layout_theory.theory_layout` maps a cell to the `classify` layout that predicts it
(``…+periodic`` for the periodic encodings).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import pandas as pd

from expressivity.errors import ExpressivityError
from expressivity.sweeps.cell_labels import SCALED, Cell

if TYPE_CHECKING:
    from expressivity.models.config import ModelConfig
    from expressivity.training.spec import RunSpec

__all__ = ["cell_depths", "cell_heads", "encoding_label", "row_cell", "run_cell", "spec_cell",
           "with_cells"]


def encoding_label(config: ModelConfig) -> str:
    """The positional encoding (and length-aware scaling) of ``config`` as a cell suffix; ""
    for NoPE without scaling."""
    return _label(config.positional, config.periods, config.rope_unrotated,
                  config.attention_scale)


def _label(positional: str, periods: Sequence[int], unrotated: int, scale: str = "none") -> str:
    suffix = f"+{scale}" if scale in SCALED else ""
    if positional == "none":
        return suffix.removeprefix("+")
    text = positional
    if periods:
        text += "(" + ",".join(str(m) for m in periods) + ")"
    if unrotated:
        text += f"[{unrotated} unrotated]"
    return text + suffix


@lru_cache(maxsize=1024)
def _encoding(profile: str, layout: str, model_json: str) -> str:
    from expressivity.training.profiles import get_profile

    overrides: dict[str, Any] = json.loads(model_json)
    try:
        return encoding_label(get_profile(profile).model_config(layout, overrides))
    except (ExpressivityError, KeyError):  # an old store's profile or field: its overrides
        return _label(str(overrides.get("positional", "none")),
                      list(overrides.get("periods") or ()),
                      int(overrides.get("rope_unrotated") or 0),
                      str(overrides.get("attention_scale", "none")))


@lru_cache(maxsize=1024)
def _layers(profile: str, layout: str, model_json: str) -> int | None:
    """``model.n_layers`` when it differs from the profile's, else None."""
    from expressivity.training.profiles import get_profile

    overrides: dict[str, Any] = json.loads(model_json)
    if "n_layers" not in overrides:
        return None
    try:
        default = get_profile(profile).model_config(layout, {}).n_layers
    except (ExpressivityError, KeyError):
        default = None
    layers = overrides["n_layers"]
    return int(layers) if isinstance(layers, int) and layers != default else None


def _cell(profile: str, layout: str, model: Mapping[str, Any]) -> Cell:
    if not model:
        return Cell(layout)
    key = json.dumps(model, sort_keys=True)
    return Cell.of(layout, _encoding(profile, layout, key), _layers(profile, layout, key),
                   _readout(model))


def spec_cell(spec: RunSpec) -> Cell:
    """The cell of a run spec (as `with_cells` labels its stored run)."""
    return _cell(spec.profile, spec.layout, dict(spec.model or {}))


def run_cell(spec: RunSpec) -> str:
    """The cell label of a run spec (`spec_cell`'s label)."""
    return spec_cell(spec).label


def row_cell(row: Mapping[str, Any]) -> Cell:
    """The cell of a stored run (a row with ``layout``, ``profile`` and ``spec``), as
    `with_cells` labels it."""
    layout = str(row["layout"])
    try:
        spec = json.loads(str(row["spec"]))
    except (TypeError, ValueError):
        return Cell(layout)
    model = spec.get("model") or {}
    return _cell(str(row["profile"]), layout, model if isinstance(model, dict) else {})


def _readout(model: Mapping[str, Any]) -> str:
    """A run's ``model.readout`` override ("eos", the default, when it has none)."""
    readout = model.get("readout", "eos")
    return readout if isinstance(readout, str) and readout.isalpha() else "eos"


def with_cells(runs: pd.DataFrame, *frames: pd.DataFrame) -> tuple[pd.DataFrame, ...]:
    """``runs`` (a `ResultsStore.runs` frame) and ``frames`` (keyed by ``run_id``, such as
    ``lengths`` and ``adversarial``) with ``layout`` replaced by each run's cell label."""
    if runs.empty or "spec" not in runs.columns:
        return (runs, *frames)
    labels = [row_cell(row).label
              for row in runs[["layout", "profile", "spec"]].to_dict("records")]
    by_run = dict(zip(runs["run_id"], labels, strict=True))
    out = [runs.assign(layout=pd.Series(labels, index=runs.index, dtype=runs["layout"].dtype))]
    for frame in frames:
        if frame.empty or "layout" not in frame.columns:
            out.append(frame)
            continue
        relabelled = frame["run_id"].map(by_run).fillna(frame["layout"])
        out.append(frame.assign(layout=relabelled.astype(frame["layout"].dtype)))
    return tuple(out)


def cell_depths(runs: pd.DataFrame) -> dict[str, int]:
    """Cell label → the number of layers of its runs' models (from each run's stored model
    config; a label's own `` [N layers]`` suffix wins), for the cells whose runs agree."""
    return _model_numbers(runs, "n_layers")


def cell_heads(runs: pd.DataFrame) -> dict[str, int]:
    """Cell label → the number of heads of its runs' models (from each run's stored model
    config), for the cells whose runs agree (the encoder theory lays a layout over them)."""
    return _model_numbers(runs, "n_heads")


def _model_numbers(runs: pd.DataFrame, field: str) -> dict[str, int]:
    found: dict[str, set[int]] = {}
    for row in runs[["layout", "extra"]].to_dict("records") if "extra" in runs else []:
        label = str(row["layout"])
        number = Cell.parse(label).layers if field == "n_layers" else None
        if number is None:
            try:
                model = json.loads(str(row["extra"])).get("model") or {}
                number = int(model[field])
            except (TypeError, ValueError, KeyError, AttributeError):
                continue
        found.setdefault(label, set()).add(number)
    return {label: next(iter(v)) for label, v in found.items() if len(v) == 1}
