"""Cell labels: the typed key `Cell` of a results table and its label, parsed and ordered.

A cell is (layout, encoding, scale, layers, readout); its label is
``LAYOUT[+ENCODING][+SCALE][ @READOUT][ [N layers]]`` (`Cell.label`) and `Cell.parse` reads a
label back (``+`` inside a layout spelling stays the layout's). `cell_label`, `split_cell`,
`cell_scale`, `cell_layers` and `cell_readout` are the label's parts as functions;
`cell_order` sorts labels as tables print them. Which cell a run is in is `sweeps.cells`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import get_args

__all__ = ["SCALED", "Cell", "cell_label", "cell_layers", "cell_order", "cell_readout",
           "cell_scale", "encoding_rank", "per_cell", "split_cell"]

#: The `ModelConfig.attention_scale` values that label a cell (all but "none").
SCALED = ("log-n", "ssmax")
_LAYERS = re.compile(r" \[(\d+) layers?\]$")
_READOUT = re.compile(r" @([a-z]+)$")


@lru_cache(maxsize=1)
def _encodings() -> tuple[str, ...]:
    """The `ModelConfig.positional` names (imported on first use: `models` loads torch)."""
    from expressivity.models.config import Positional

    return get_args(Positional)


@dataclass(frozen=True)
class Cell:
    """The cell of a run: its ``layout`` spelling, its positional ``encoding`` as labelled
    (``rope``, ``periodic-rope(2)``, ``rope[8 unrotated]``; "" for NoPE), its length-aware
    ``scale`` (one of `SCALED`, or "none") and ``layers`` when its depth is not the profile's."""

    layout: str
    encoding: str = ""
    scale: str = "none"
    layers: int | None = None
    readout: str = "eos"  # `ModelConfig.readout`; labels say `` @READOUT`` unless EOS

    @property
    def label(self) -> str:
        """``LAYOUT[+ENCODING][+SCALE][ @READOUT][ [N layers]]``, as tables print it."""
        text = "+".join([self.layout, *[self.encoding] * bool(self.encoding),
                         *[self.scale] * (self.scale in SCALED)])
        text += "" if self.readout == "eos" else f" @{self.readout}"
        n = self.layers
        return text if n is None else f"{text} [{n} layer{'s' * (n != 1)}]"

    def __str__(self) -> str:
        return self.label

    @property
    def positional(self) -> str:
        """The `ModelConfig.positional` name of the encoding ("none" for NoPE)."""
        return self.encoding.split("(")[0].split("[")[0] or "none"

    @property
    def periods(self) -> tuple[int, ...]:
        """The periods the encoding label states (``periodic-rope(2,3)``: (2, 3))."""
        if "(" not in self.encoding:
            return ()
        inside = self.encoding.split("(", 1)[1].split(")", 1)[0]
        return tuple(int(m) for m in inside.split(",") if m.strip().isdigit())

    @classmethod
    def parse(cls, label: str) -> Cell:
        """The cell a label names (`label` inverted). Only a last ``+`` part that starts with
        an encoding name is an encoding: custom layout spellings such as ``L3+R2+T1`` keep
        their ``+``; a length-aware scaling part comes after it, the layer suffix last."""
        found = _LAYERS.search(label)
        layers = int(found.group(1)) if found else None
        rest = _LAYERS.sub("", label)
        said = _READOUT.search(rest)
        readout = said.group(1) if said else "eos"
        rest = _READOUT.sub("", rest)
        head, sep, tail = rest.rpartition("+")
        scale = "none"
        if sep and tail in SCALED:
            scale, rest = tail, head
            head, sep, tail = rest.rpartition("+")
        if not sep or tail.split("(")[0].split("[")[0] not in _encodings():
            return cls(rest, "", scale, layers, readout)
        return cls(head, tail, scale, layers, readout)

    @classmethod
    def of(cls, layout: str, encoding: str, layers: int | None = None,
           readout: str = "eos") -> Cell:
        """The cell of ``layout`` with an `sweeps.cells.encoding_label` (which ends in the
        scale, if any)."""
        head, _, tail = encoding.rpartition("+")
        if tail in SCALED:
            return cls(layout, head, tail, layers, readout)
        return cls(layout, encoding, "none", layers, readout)


def cell_label(layout: str, encoding: str, layers: int | None = None,
               readout: str = "eos") -> str:
    """``layout`` alone for NoPE, else ``layout+encoding``; `` @READOUT`` for a readout other
    than EOS; `` [N layers]`` when ``layers`` (a depth other than the profile's) is given
    (`Cell.label`)."""
    return Cell.of(layout, encoding, layers, readout).label


def cell_readout(label: str) -> str:
    """The readout a cell label states (`cell_label`): "eos" unless it says `` @READOUT``."""
    return Cell.parse(label).readout


def cell_layers(label: str, default: int | Mapping[str, int] | None = None) -> int | None:
    """The layer count a cell label states (`cell_label`), else ``default``: one count for
    every cell, or counts by cell label (as `cell_depths` gives); None: the profile's."""
    stated = Cell.parse(label).layers
    return stated if stated is not None else per_cell(default, label)


def per_cell(value: int | Mapping[str, int] | None, label: str) -> int | None:
    """A setting given for every cell (an int, or None) or by cell label (a mapping, as
    `cell_depths` and `cell_heads` give), read for the cell ``label``."""
    return value.get(label) if isinstance(value, Mapping) else value


def split_cell(label: str) -> tuple[str, str, tuple[int, ...]]:
    """(layout, positional encoding name, periods) of a cell label; ("…", "none", ()) for NoPE
    (`Cell.parse`; the layer and scaling suffixes are `cell_layers` and `cell_scale`)."""
    cell = Cell.parse(label)
    return cell.layout, cell.positional, cell.periods


def cell_scale(label: str) -> str:
    """The ``attention_scale`` of a cell label: "log-n", "ssmax", or "none"."""
    return Cell.parse(label).scale


def encoding_rank(label: str) -> tuple[int, str]:
    """Sort key of a cell label's encoding: NoPE first, then in `ModelConfig`'s order."""
    return _encodings().index(Cell.parse(label).positional), label


def cell_order(labels: Sequence[str], layouts: Sequence[str] | None = None) -> list[str]:
    """Distinct ``labels`` by layout (in ``layouts`` order, the rest after in order of
    appearance), each layout's cells by `encoding_rank`."""
    distinct = list(dict.fromkeys(labels))
    cells = {x: Cell.parse(x) for x in distinct}
    bases = list(dict.fromkeys([*(layouts or ()), *(c.layout for c in cells.values())]))
    return sorted(distinct, key=lambda x: (bases.index(cells[x].layout), encoding_rank(x)[0],
                                           cells[x].layers or 0, x))
