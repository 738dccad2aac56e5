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
``+log-n`` / ``+ssmax`` part; `cell_scale`), which no NoPE prediction covers
(docs/theory.md §9).

A run that reads another position than EOS (``model.readout``: cls, mean, last; issue 32) gets
the suffix `` @READOUT`` (``window-1 @cls``): the readout decides the class as much as the
mask, so runs of different readouts are different cells; `cell_readout` reads it back.

A run whose ``model.n_layers`` differs from its profile's gets the suffix `` [N layers]``
(``global [3 layers]``, ``hybrid-1+rope [4 layers]``): the theory's answer depends on the depth
(docs/theory.md §8), so runs of different depths are different cells; `cell_layers` reads it
back. Learning rates and seeds stay pooled in one cell (they are the search over training, not
the architecture). `split_cell` inverts the label; `analysis.classes.theory_layout` maps it to the
`classify` layout that predicts it (``…+periodic`` for the periodic encodings).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, get_args

import pandas as pd

from expressivity.errors import ExpressivityError

if TYPE_CHECKING:
    from expressivity.models.config import ModelConfig
    from expressivity.training.spec import RunSpec

__all__ = ["SCALED", "cell_depths", "cell_label", "cell_layers", "cell_order", "cell_readout",
           "cell_scale", "encoding_label", "encoding_rank", "run_cell", "split_cell",
           "with_cells"]

#: The `ModelConfig.attention_scale` values that label a cell (all but "none").
SCALED = ("log-n", "ssmax")
_LAYERS = re.compile(r" \[(\d+) layers?\]$")
_READOUT = re.compile(r" @([a-z]+)$")


@lru_cache(maxsize=1)
def _encodings() -> tuple[str, ...]:
    """The `ModelConfig.positional` names (imported on first use: `models` loads torch)."""
    from expressivity.models.config import Positional

    return get_args(Positional)


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


def cell_label(layout: str, encoding: str, layers: int | None = None,
               readout: str = "eos") -> str:
    """``layout`` alone for NoPE, else ``layout+encoding``; `` @READOUT`` for a readout other
    than EOS; `` [N layers]`` when ``layers`` (a depth other than the profile's) is given."""
    text = f"{layout}+{encoding}" if encoding else layout
    text += "" if readout == "eos" else f" @{readout}"
    return text if layers is None else f"{text} [{layers} layer{'s' * (layers != 1)}]"


def cell_readout(label: str) -> str:
    """The readout a cell label states (`cell_label`): "eos" unless it says `` @READOUT``."""
    m = _READOUT.search(_LAYERS.sub("", label))
    return m.group(1) if m else "eos"


def cell_layers(label: str) -> int | None:
    """The layer count a cell label states (`cell_label`), or None (the profile's)."""
    m = _LAYERS.search(label)
    return int(m.group(1)) if m else None


def split_cell(label: str) -> tuple[str, str, tuple[int, ...]]:
    """(layout, positional encoding name, periods) of a cell label; ("…", "none", ()) for NoPE.

    Only a last ``+`` part that starts with an encoding name is an encoding: custom layout
    spellings such as ``L3+R2+T1`` keep their ``+``. A layer suffix is dropped (`cell_layers`),
    then a length-aware scaling suffix (``+log-n``, ``+ssmax``; `cell_scale` reads it).
    """
    label = _READOUT.sub("", _LAYERS.sub("", label))
    head, sep, tail = label.rpartition("+")
    if sep and tail in SCALED:
        label = head
        head, sep, tail = label.rpartition("+")
    name = tail.split("(")[0].split("[")[0]
    if not sep or name not in _encodings():
        return label, "none", ()
    periods: tuple[int, ...] = ()
    if "(" in tail:
        inside = tail.split("(", 1)[1].split(")", 1)[0]
        periods = tuple(int(m) for m in inside.split(",") if m.strip().isdigit())
    return head, name, periods


def cell_scale(label: str) -> str:
    """The ``attention_scale`` of a cell label: "log-n", "ssmax", or "none"."""
    label = _READOUT.sub("", _LAYERS.sub("", label))
    tail = label.rpartition("+")[2]
    return tail if "+" in label and tail in SCALED else "none"


def encoding_rank(label: str) -> tuple[int, str]:
    """Sort key of a cell label's encoding: NoPE first, then in `ModelConfig`'s order."""
    _, name, _ = split_cell(label)
    return _encodings().index(name), label


def cell_order(labels: Sequence[str], layouts: Sequence[str] | None = None) -> list[str]:
    """Distinct ``labels`` by layout (in ``layouts`` order, the rest after in order of
    appearance), each layout's cells by `encoding_rank`."""
    distinct = list(dict.fromkeys(labels))
    bases = list(dict.fromkeys([*(layouts or ()), *(split_cell(x)[0] for x in distinct)]))
    return sorted(distinct, key=lambda x: (bases.index(split_cell(x)[0]), encoding_rank(x)[0],
                                           cell_layers(x) or 0, x))


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


def run_cell(spec: RunSpec) -> str:
    """The cell label of a run spec (as `with_cells` labels its stored run)."""
    model = dict(spec.model or {})
    if not model:
        return spec.layout
    key = json.dumps(model, sort_keys=True)
    return cell_label(spec.layout, _encoding(spec.profile, spec.layout, key),
                      _layers(spec.profile, spec.layout, key), _readout(model))


def _run_label(row: Mapping[str, Any]) -> str:
    layout = str(row["layout"])
    try:
        spec = json.loads(str(row["spec"]))
    except (TypeError, ValueError):
        return layout
    model = spec.get("model") or {}
    if not isinstance(model, dict) or not model:
        return layout
    key = json.dumps(model, sort_keys=True)
    profile = str(row["profile"])
    return cell_label(layout, _encoding(profile, layout, key), _layers(profile, layout, key),
                      _readout(model))


def _readout(model: Mapping[str, Any]) -> str:
    """A run's ``model.readout`` override ("eos", the default, when it has none)."""
    readout = model.get("readout", "eos")
    return readout if isinstance(readout, str) and readout.isalpha() else "eos"


def with_cells(runs: pd.DataFrame, *frames: pd.DataFrame) -> tuple[pd.DataFrame, ...]:
    """``runs`` (a `ResultsStore.runs` frame) and ``frames`` (keyed by ``run_id``, such as
    ``lengths`` and ``adversarial``) with ``layout`` replaced by each run's cell label."""
    if runs.empty or "spec" not in runs.columns:
        return (runs, *frames)
    labels = [_run_label(row) for row in runs[["layout", "profile", "spec"]].to_dict("records")]
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
    found: dict[str, set[int]] = {}
    for row in runs[["layout", "extra"]].to_dict("records") if "extra" in runs else []:
        label = str(row["layout"])
        layers = cell_layers(label)
        if layers is None:
            try:
                model = json.loads(str(row["extra"])).get("model") or {}
                layers = int(model["n_layers"])
            except (TypeError, ValueError, KeyError, AttributeError):
                continue
        found.setdefault(label, set()).add(layers)
    return {label: next(iter(v)) for label, v in found.items() if len(v) == 1}
