"""A selective-mixer recognizer laid on a hybrid's mixer rows, the other rows silent (§16.4).

Theorem 16.1 (docs/theory.md) builds recognizers whose every layer is one selective mixer
(``M`` or ``MS``). The hybrids ``samba-k`` and ``jamba-n`` have rows whose every head is ``M``
(`mixer_rows`); Corollary 16.3 lays such a recognizer on the first of those rows and makes
every other row write zero (all its weights 0: attention and FFN add nothing to the residual),
so the hybrid model decides exactly what the recognizer decides. `lay_model` lays the weights
(`models.construct.build.lay_on` the whole `ConstructedModel`, which
`construct_language(..., layout="jamba-2")` returns), and the tables' depth rule
(`analysis.mixer_depth`) counts the same rows.
"""

from __future__ import annotations

from dataclasses import replace

import torch

from expressivity.errors import ConfigError, ExpressivityError
from expressivity.layouts import parse_spelling
from expressivity.layouts.presets import parse_preset
from expressivity.models.construct.mixer_plan import CONSTRUCTED
from expressivity.models.ssm.heads import SELECTIVE
from expressivity.models.transformer import Recognizer

__all__ = ["HYBRIDS", "constructed_mixer", "lay_model", "least_layers", "mixer_rows",
           "moved_label", "pure_mixer", "selective_mixer"]

#: Hybrid presets whose non-attention rows are all ``M`` (docs/theory.md §16.4).
HYBRIDS = ("samba", "jamba")


def pure_mixer(layout: str) -> str | None:
    """``"M"``, ``"MS"``, ``"SD"`` or ``"SDC"`` when every head of ``layout`` is that one
    mixer with a construction (§16.1, §16.5), else None."""
    try:
        kinds = {a.kind for pattern in parse_spelling(layout).patterns for a in pattern}
    except ExpressivityError:
        return None
    return next(iter(kinds)) if len(kinds) == 1 and kinds <= CONSTRUCTED else None


def constructed_mixer(layout: str) -> str | None:
    """The mixer whose recognizer a ``layout`` model holds: its own for a pure mixer
    (`pure_mixer`: Theorem 16.1's for M and MS, Theorem 16.4's for SD and SDC), ``"M"`` for
    the hybrids ``samba-k`` and ``jamba-n`` (Corollary 16.3), else None."""
    return pure_mixer(layout) or selective_mixer(layout)


def selective_mixer(layout: str) -> str | None:
    """The selective mixer Theorem 16.1's recognizer uses for ``layout``: its own for a pure
    selective mixer, ``"M"`` for the hybrids ``samba-k`` and ``jamba-n``, else None."""
    kind = pure_mixer(layout)
    if kind is not None:
        return kind if kind in SELECTIVE else None
    try:
        preset = parse_preset(layout)
    except ExpressivityError:
        return None
    return "M" if preset is not None and preset.family in HYBRIDS else None


def _rows(layout: str, layers: int) -> list[int]:
    """The indices of the rows of a ``layers``-layer ``layout`` model whose every head is its
    `constructed_mixer` ([] without one, or below the layout's smallest model)."""
    kind = constructed_mixer(layout)
    if kind is None:
        return []
    spelled = parse_spelling(layout)
    if layers < spelled.smallest[0]:  # jamba-2's first global row is its second
        return []
    rows = spelled.sized(layers, 1)  # samba-k's and jamba-n's rows do not depend on heads
    return [i for i, row in enumerate(rows) if all(a.kind == kind for head in row for a in head)]


def mixer_rows(layout: str, layers: int) -> int:
    """How many of the ``layers`` rows of a ``layout`` model have `constructed_mixer` as every
    head (0 for a layout without one, or with fewer layers than its smallest model has)."""
    return len(_rows(layout, layers))


def least_layers(layout: str, built: int) -> int:
    """The fewest layers whose ``layout`` model has ``built`` `mixer_rows` (``built`` ≥ 1)."""
    if constructed_mixer(layout) is None:
        raise ConfigError(f"layout: {layout!r} has no mixer rows to lay a recognizer on")
    layers = built
    while mixer_rows(layout, layers) < built:  # a hybrid's M rows grow with every n layers
        layers += 1
    return layers


def lay_model(model: Recognizer, layout: str, n_layers: int | None = None
              ) -> tuple[Recognizer, dict[int, int]]:
    """``model`` (a recognizer whose every layer is one selective mixer) laid on the first mixer
    rows of a ``layout`` model of ``n_layers`` layers (default: `least_layers`), every other
    row's weights 0 so that it writes nothing (Corollary 16.3), and the map from ``model``'s
    rows to the new model's. A `ConfigError` when the new model has fewer mixer rows than
    ``model`` has layers, or other mixers."""
    config = model.config
    kind = selective_mixer(layout)
    if kind is None or pure_mixer(config.layout) != kind:
        raise ConfigError(
            f"layout: {layout!r} has no {pure_mixer(config.layout) or 'selective'} rows to lay "
            f"the {config.layout!r} recognizer on; lay M recognizers on samba-k or jamba-n")
    layers = least_layers(layout, config.n_layers) if n_layers is None else n_layers
    rows = _rows(layout, layers)
    if len(rows) < config.n_layers:
        raise ConfigError(
            f"n_layers: a {layers}-layer {layout!r} model has {len(rows)} {kind} rows and the "
            f"recognizer needs {config.n_layers}; take at least "
            f"{least_layers(layout, config.n_layers)} layers")
    place = dict(zip(rows, range(config.n_layers), strict=False))  # new row -> model row
    laid = Recognizer(replace(config, layout=layout, n_layers=layers), model.alphabet_size)
    source = model.state_dict()
    with torch.no_grad():
        for key, value in laid.state_dict().items():
            if not key.startswith("blocks."):
                value.copy_(source[key])
                continue
            row = int(key.split(".")[1])
            if row in place:
                value.copy_(source[key.replace(f"blocks.{row}.", f"blocks.{place[row]}.", 1)])
            else:
                value.zero_()
    return laid.eval(), {b: m for m, b in place.items()}


def moved_label(where: str, rows: dict[int, int]) -> str:
    """A `ConstructedModel.written` label ("layer 2 M") with its layer renumbered by ``rows``
    (0-based old row -> 0-based new row; labels count from 1)."""
    parts = where.split(" ", 2)
    if len(parts) >= 2 and parts[0] == "layer" and parts[1].isdigit():
        parts[1] = str(rows[int(parts[1]) - 1] + 1)
    return " ".join(parts)
