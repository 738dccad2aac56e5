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

Learning rates and seeds stay pooled in one cell (they are the search over training, not the
architecture). `split_cell` inverts the label; `analysis.classes.theory_layout` maps it to the
`classify` layout that predicts it (``…+periodic`` for the periodic encodings).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, get_args

import pandas as pd

from expressivity.errors import ExpressivityError

if TYPE_CHECKING:
    from expressivity.models.config import ModelConfig
    from expressivity.training.spec import RunSpec

__all__ = ["SCALED", "cell_label", "cell_order", "cell_scale", "encoding_label",
           "encoding_rank", "run_cell", "split_cell", "with_cells"]

#: The `ModelConfig.attention_scale` values that label a cell (all but "none").
SCALED = ("log-n", "ssmax")


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


def cell_label(layout: str, encoding: str) -> str:
    """``layout`` alone for NoPE, else ``layout+encoding``."""
    return f"{layout}+{encoding}" if encoding else layout


def split_cell(label: str) -> tuple[str, str, tuple[int, ...]]:
    """(layout, positional encoding name, periods) of a cell label; ("…", "none", ()) for NoPE.

    Only a last ``+`` part that starts with an encoding name is an encoding: custom layout
    spellings such as ``L3+R2+T1`` keep their ``+``. A length-aware scaling suffix
    (``+log-n``, ``+ssmax``) is dropped first (`cell_scale` reads it).
    """
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
    return sorted(distinct, key=lambda x: (bases.index(split_cell(x)[0]), encoding_rank(x)))


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


def run_cell(spec: RunSpec) -> str:
    """The cell label of a run spec (as `with_cells` labels its stored run)."""
    model = dict(spec.model or {})
    if not model:
        return spec.layout
    return cell_label(spec.layout, _encoding(spec.profile, spec.layout,
                                             json.dumps(model, sort_keys=True)))


def _run_encoding(row: Mapping[str, Any]) -> str:
    try:
        spec = json.loads(str(row["spec"]))
    except (TypeError, ValueError):
        return ""
    model = spec.get("model") or {}
    if not isinstance(model, dict) or not model:
        return ""
    return _encoding(str(row["profile"]), str(row["layout"]),
                     json.dumps(model, sort_keys=True))


def with_cells(runs: pd.DataFrame, *frames: pd.DataFrame) -> tuple[pd.DataFrame, ...]:
    """``runs`` (a `ResultsStore.runs` frame) and ``frames`` (keyed by ``run_id``, such as
    ``lengths`` and ``adversarial``) with ``layout`` replaced by each run's cell label."""
    if runs.empty or "spec" not in runs.columns:
        return (runs, *frames)
    labels = [cell_label(str(row["layout"]), _run_encoding(row))
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
